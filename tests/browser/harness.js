// What the page's browser tests share (test_web.js, test_web_simd.js, test_web_backward.js):
// their arguments, how they open the page, their checks, counted, and how a test ends: a line
// for each failed check, then "N check(s) failed" and exit 1; or "PASS: ..." and exit 0. A
// throw fails the test too.
"use strict";
const path = require("path");
const {launch, waitFor} = require("./cdp");

// The two arguments every test takes, PAGE.html and ATTN-WALK-BINARY, and the page's URL; with
// either missing, the usage on stderr and exit 2.
function pageArgs(usage) {
  const [page, binary] = process.argv.slice(2, 4);
  if (!page || !binary) {
    console.error("usage: " + usage);
    process.exit(2);
  }
  return {page, binary, pageUrl: "file://" + path.resolve(page)};
}

// Opens `url` in the tab from about:blank (so that a new fragment is a new load, not a hash
// change) and waits until the page is ready.
async function openPage(tab, url, timeoutMs = 60000) {
  await tab.send("Page.navigate", {url: "about:blank"});
  await waitFor(tab, `location.href === "about:blank"`);
  await tab.send("Page.navigate", {url});
  await waitFor(tab, `document.body && document.body.getAttribute("data-ready") === "1"`, timeoutMs);
}

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

module.exports = {check, openPage, pageArgs, runInBrowser};
