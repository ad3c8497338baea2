// What the page's browser tests share (test_web.js, test_web_simd.js, test_web_backward.js):
// their arguments, how they open the page, their checks, counted, and how a test ends: a line
// for each failed check, then "N check(s) failed" and exit 1; or "PASS: ..." and exit 0. A
// throw fails the test too.
"use strict";
const path = require("path");
const {evaluate, launch, waitFor} = require("./cdp");

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

// Something done in the page (an input event, a click), then the walk it asked for settled: the
// engine runs in a worker, so the page shows the walk after the event, not during it.
async function act(tab, expression) {
  const v = await evaluate(tab, expression);
  await waitFor(tab, `!window.attnWalk.busy()`, 120000);
  return v;
}

// The control `selector` names set to `value` as a learner's typing does (its "input" event; a
// choice in a select: "change"), then the page's walk waited for.
function setControl(tab, selector, value, event = "input") {
  return act(tab, `(function () { var e = document.querySelector(${JSON.stringify(selector)});
    e.value = ${JSON.stringify(value)}; e.dispatchEvent(new Event(${JSON.stringify(event)})); })()`);
}

// A real mouse click (the browser's input, not a script's) on the element `selector` names.
async function click(tab, selector) {
  const at = await evaluate(tab, `(function () { var e = document.querySelector(${JSON.stringify(selector)});
    e.scrollIntoView({block: "nearest"}); var r = e.getBoundingClientRect();
    return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`);
  for (const type of ["mousePressed", "mouseReleased"])
    await tab.send("Input.dispatchMouseEvent", {type, x: at.x, y: at.y, button: "left", clickCount: 1});
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

module.exports = {act, check, click, openPage, pageArgs, runInBrowser, setControl};
