// The backward stage in the web page of `make web`, in headless chromium:
//
//   node tests/browser/test_web_backward.js PAGE.html ATTN-WALK-BINARY
//
// 1. `--stage backward --steps 5` through the URL fragment: every step's printed text is the
//    CLI's, and the losses step holds the line plot (svg.series) of the CLI's --format html,
//    the same points, drawn where the page lays it out (wider than nothing, inside its step).
// 2. The same on a --text input (GPT-2's ids, V = 50257, tok_emb and pos_emb trained).
"use strict";
const {execFileSync} = require("child_process");
const {evaluate} = require("./cdp");
const {check, openPage, pageArgs, runInBrowser} = require("./harness");

const {binary, pageUrl} = pageArgs("node test_web_backward.js PAGE.html ATTN-WALK-BINARY");

function cliArgs(opts) {
  return [].concat(...Object.entries(opts).map(([k, v]) => ["--" + k, v]));
}
function cli(opts, format) {
  return execFileSync(binary, cliArgs(opts).concat(["--format", format]), {maxBuffer: 1 << 28}).toString();
}

async function open(tab, opts) {
  const hash = "#" + Object.entries(opts).map(([k, v]) => k + "=" + encodeURIComponent(v)).join("&");
  await openPage(tab, pageUrl + hash);
}

async function compareWithCli(tab, label, opts) {
  await open(tab, opts);
  const err = await evaluate(tab, `document.getElementById("aw-error").textContent`);
  check(err === "", `${label}: an error shows: ${err}`);
  const got = await evaluate(tab, `Array.from(document.querySelectorAll("#aw-walk section.step")).map(function (s) {
    var pre = s.querySelector("pre.tensor"); return [s.getAttribute("data-step"), pre ? pre.textContent : null]; })`);
  const want = JSON.parse(cli(opts, "json"));
  check(got.length === want.steps.length, `${label}: ${got.length} steps on the page, the CLI has ${want.steps.length}`);
  want.steps.forEach((s, i) => {
    if (!got[i]) return;
    check(got[i][0] === s.name, `${label}: step ${i + 1} is ${got[i][0]}, the CLI's is ${s.name}`);
    check(got[i][1] === s.printed, `${label}: ${s.name} printed differently from the CLI`);
  });
  // The losses' line plot: the CLI's points, on the page, visible.
  const plot = await evaluate(tab, `(function () {
    var svg = document.querySelector('#aw-walk section.step[data-step="losses"] svg.series');
    if (!svg) return null;
    var line = svg.querySelector("polyline"), r = svg.getBoundingClientRect();
    return {points: line ? line.getAttribute("points") : null, width: r.width, height: r.height}; })()`);
  const html = cli(opts, "html");
  const m = /<svg class="series"[\s\S]*?<polyline points="([^"]*)"/.exec(html);
  check(m !== null, `${label}: the CLI's --format html has no losses plot`);
  check(plot !== null, `${label}: the page's losses step has no svg.series`);
  if (!plot || !m) return;
  check(plot.points === m[1], `${label}: the page plots ${plot.points}, the CLI ${m[1]}`);
  check(plot.points.split(" ").length === Number(opts.steps), `${label}: ${plot.points.split(" ").length} points for ${opts.steps} steps`);
  check(plot.width > 100 && plot.height > 50, `${label}: the plot is ${plot.width} x ${plot.height} px`);
}

async function main(browser) {
  const tab = await browser.newTab();
  await tab.send("Emulation.setDeviceMetricsOverride", {width: 1280, height: 900, deviceScaleFactor: 1, mobile: false});
  await compareWithCli(tab, "backward", {stage: "backward", steps: "5"});
  await compareWithCli(tab, "backward --text", {stage: "backward", steps: "3", text: "the cat and the dog and the bird"});
}

runInBrowser("the backward stage in the web page", main);
