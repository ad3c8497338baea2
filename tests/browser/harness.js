// What the page's browser tests share (test_web.js, test_web_simd.js, test_web_backward.js):
// their checks, counted, and how a test ends: a line for each failed check, then
// "N check(s) failed" and exit 1; or "PASS: ..." and exit 0. A throw fails the test too.
"use strict";
const {launch} = require("./cdp");

let failures = 0;
function check(ok, what) {
  if (ok) return;
  console.log("FAIL: " + what);
  failures++;
}

// Runs body(browser) in a headless Chromium of its own, closes it, and reports.
function runInBrowser(passLine, body) {
  (async () => {
    const browser = await launch();
    try {
      await body(browser);
    } finally {
      browser.close();
    }
    if (failures) {
      console.log(`${failures} check(s) failed`);
      process.exit(1);
    }
    console.log("PASS: " + passLine);
  })().catch((e) => { console.log("FAIL: " + (e.stack || e)); process.exit(1); });
}

module.exports = {check, runInBrowser};
