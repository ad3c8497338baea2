// The web page of `make web` in headless chromium, opened from a file as a learner would:
//
//   node tests/browser/test_web.js PAGE.html ATTN-WALK-BINARY [--bench] [--shots DIR]
//
// 1. Configurations given through the URL fragment: every step's <pre class="tensor"> is
//    the CLI's printed text, and the engine's JSON has the CLI's float32 values (bits).
// 2. A control changed (d-out, stage): the walk is recomputed, the fragment follows, the
//    numbers are the CLI's for the new option; an option the CLI refuses shows its message.
// 3. Hovering an attention weight outlines its row and column and marks the query row, the
//    key row, the value row and the context-vector row in the printed tensors.
// 4. Pasted bad JSON: the engine's message (with line and column) shows, the last good walk
//    stays; then an edited embedding cell recomputes.
// 5. The page is under 2 MB, and --text works in it (the tokens stage equals the CLI's).
// 6. No request leaves the page (file:// of the page itself, data: and its worker's blob:).
// 7. At phone width (390 px) the settings start folded and the page never scrolls sideways.
// 8. The controls: the chosen stage's options in groups, the rest under "more"; the text box
//    and its pieces; a bad cell named by row and column; the table's buttons (a token or a
//    dimension added or removed, the chapter's table back), each walk the CLI's.
// 9. The engine runs in a Web Worker: during a walk of a few seconds a timer keeps firing and
//    a click is handled, the progress line advances (the wrapper's heads one by one), and the
//    walk shown is the CLI's; a newer request stops a long walk and only the newer walk is
//    shown; Stop keeps the last walk.
// The engine answers in its worker, so every change is followed by a wait for its walk.
// --bench: prints the page size, the time to the first walk (median of 9 loads) and to a
// recompute (median of 21), what the worker's message adds to a walk of stage all, and
// `attn-walk bench` in the page against the native one.
"use strict";
const {execFileSync} = require("child_process");
const fs = require("fs");
const path = require("path");
const {evaluate, waitFor} = require("./cdp");
const {act, check, click, openPage, pageArgs, runInBrowser, setControl} = require("./harness");

const {page, binary, pageUrl} = pageArgs("node test_web.js PAGE.html ATTN-WALK-BINARY [--bench] [--shots DIR]");
const bench = process.argv.includes("--bench");
const shotsAt = process.argv.indexOf("--shots");
const shots = shotsAt > 0 ? process.argv[shotsAt + 1] : process.env.ATTN_WALK_SHOTS;

// Configurations: CLI options by long name, and embeddings (null: the chapter's six).
const four = {tokens: ["The", "cat", "sat", "还"], embeddings: [[0.1, -0.5, 0.25], [1.5, 0.0, -2.0], [0.33, 0.66, 0.99], [-1e-3, 2e-4, 7.0]]};
const wide = {tokens: ["a", "b", "c", "d", "e"], embeddings: [[0.9, 0.1, -0.3, 0.7, 0.2], [0.05, 0.4, 0.8, -0.6, 1.1],
  [-0.2, 0.3, 0.5, 0.5, -0.9], [1.2, -1.1, 0.0, 0.4, 0.3], [0.6, 0.6, -0.6, 0.1, 0.8]]};
// Score [0][1] of these is a multiply-add whose sum in double lands on a tie between two floats
// (tests/golden/make_goldens.py, fma_tie): WebAssembly has no fused multiply-add, and the page
// must still round it once, as PyTorch does.
const tieGolden = JSON.parse(fs.readFileSync(path.join(__dirname, "../golden/walks/fma_tie.json"), "utf8"));
const fmaTie = {tokens: tieGolden.tokens, embeddings: tieGolden.embeddings};
const configs = [
  {opts: {stage: "all"}, input: null},
  {opts: {stage: "all"}, input: fmaTie},
  {opts: {stage: "causal", seed: "7", "d-out": "3", "qkv-bias": "1"}, input: four},
  {opts: {stage: "multi-head", "d-out": "4", heads: "2", batch: "3", "attn-dropout": "0.1", init: "randn", lang: "zh"}, input: wide},
  {opts: {stage: "dropout", "dropout-rng": "mkl", dropout: "0.3", seed: "42", query: "3"}, input: four},
  {opts: {stage: "trainable", "d-out": "5", seed: "2024", "qkv-bias": "1", query: "5"}, input: wide},
  {opts: {stage: "softmax", query: "1"}, input: four},
  // Paths that call the C library (emscripten's in the page, glibc natively): expf for the
  // single columns of a softmax over dim 1, and log1p, sin and cos for randn below 16 elements.
  {opts: {stage: "causal", "softmax-dim": "1", "d-out": "3"}, input: wide},
  {opts: {stage: "trainable", init: "randn", "d-out": "2", seed: "5"}, input: four},
];

// A walk of a few seconds in the page: multi-head at GPT-2's width on a text of about 440 tokens
// (with the fused products of src/kernels/gemm_relaxed_wasm.cpp; 110 tokens took under a second),
// long enough past the wrapper's one long step that the steps shown advance while it runs.
const longOpts = {stage: "multi-head", text: Array(40).fill("Every effort moves you forward, and attention looks back.").join(" "),
                  "embed-dim": "768", "d-out": "768", heads: "12"};

function fragment(c) {
  const parts = Object.entries(c.opts).map(([k, v]) => k + "=" + encodeURIComponent(v));
  if (c.input) parts.push("input=" + encodeURIComponent(JSON.stringify(c.input)));
  return "#" + parts.join("&");
}
function cliArgs(opts) {
  const a = [];
  for (const [k, v] of Object.entries(opts)) {
    if (k === "qkv-bias") { if (v === "1") a.push("--qkv-bias"); } else a.push("--" + k, v);
  }
  return a;
}
// The CLI's walk as JSON (steps with their printed text and values).
function cli(c) {
  const args = cliArgs(c.opts).concat(["--format", "json"]);
  const input = c.input ? JSON.stringify(c.input) : null;
  if (input) args.push("--input", "-");
  return JSON.parse(execFileSync(binary, args, {input: input || "", maxBuffer: 1 << 28}).toString());
}

// The CLI's walk as compareSteps wants it, for a walk whose JSON would be too large (the long
// walk's is some 600 MB): its --format html opened in a tab of its own, read as pageSteps reads
// the page.
async function cliStepsFromHtml(browser, opts) {
  const file = path.join(require("os").tmpdir(), `attn-walk-long-${process.pid}.html`);
  fs.writeFileSync(file, execFileSync(binary, cliArgs(opts).concat(["--format", "html"]), {maxBuffer: 1 << 28}));
  try {
    const tab = await browser.newTab();
    await tab.send("Page.navigate", {url: "file://" + file});
    await waitFor(tab, `document.readyState === "complete" && document.querySelector("#aw-walk section.step") !== null`, 30000);
    return {steps: (await pageSteps(tab)).map(([name, printed]) => ({name, printed}))};
  } finally {
    fs.unlinkSync(file);
  }
}

async function pageSteps(tab) {
  return evaluate(tab, `Array.from(document.querySelectorAll("#aw-walk section.step")).map(function (s) {
    return [s.getAttribute("data-step"), s.querySelector("pre.tensor").textContent]; })`);
}
function compareSteps(label, got, want) {
  check(got.length === want.steps.length, `${label}: ${got.length} steps on the page, the CLI has ${want.steps.length}`);
  want.steps.forEach((s, i) => {
    if (!got[i]) return;
    check(got[i][0] === s.name, `${label}: step ${i + 1} is ${got[i][0]}, the CLI's is ${s.name}`);
    check(got[i][1] === s.printed, `${label}: ${s.name} printed\n--- page\n${got[i][1]}\n--- CLI\n${s.printed}`);
  });
}
// The float32 values, compared as JSON text (the same shortest decimal per float32).
function compareValues(label, pageJson, want) {
  const got = JSON.parse(pageJson);
  check(got.steps.length === want.steps.length, `${label}: engine JSON has ${got.steps.length} steps`);
  want.steps.forEach((s, i) => {
    const g = got.steps[i];
    check(g && JSON.stringify(g.shape) === JSON.stringify(s.shape) && JSON.stringify(g.data) === JSON.stringify(s.data),
          `${label}: ${s.name}: the engine's values differ from the CLI's`);
  });
}

// The chapter's embeddings (data/journey.json, the page's default table) with one cell changed.
function journeyWith(row, col, value) {
  const journey = JSON.parse(fs.readFileSync(path.join(__dirname, "../../data/journey.json"), "utf8"));
  journey.embeddings[row][col] = value;
  return journey;
}

function open(tab, hash) {
  return openPage(tab, pageUrl + hash, 30000);
}

async function main(browser) {
  const tab = await browser.newTab();
  await tab.send("Emulation.setDeviceMetricsOverride", {width: 1280, height: 900, deviceScaleFactor: 1, mobile: false});

  // 1. Configurations through the fragment.
  for (const c of configs) {
    const hash = fragment(c);
    await open(tab, hash);
    const want = cli(c);
    compareSteps(hash.slice(0, 60), await pageSteps(tab), want);
    const args = JSON.stringify(cliArgs(c.opts));
    const input = JSON.stringify(c.input ? JSON.stringify(c.input) : "");
    compareValues(hash.slice(0, 60), await evaluate(tab, `window.attnWalk.walk(${args}, ${input}, true).then(function (r) { return r.json; })`), want);
    // The engine on the page's own thread (window.attnWalk.run, at once) gives the same.
    if (c === configs[2])
      compareValues("attnWalk.run " + hash.slice(0, 50), await evaluate(tab, `window.attnWalk.run(${args}, ${input}, true).json`), want);
    const err = await evaluate(tab, `document.getElementById("aw-error").textContent`);
    check(err === "", `${hash.slice(0, 60)}: an error shows: ${err}`);
    if (c.opts.lang === "zh")
      check(await evaluate(tab, `document.documentElement.lang`) === "zh-CN", "lang=zh: <html lang> is not zh-CN");
  }

  // 2. A control: --d-out changed to 3 on the causal walk.
  await open(tab, "#stage=causal");
  await setControl(tab, `#aw-controls input[name="d-out"]`, "3");
  check(/(^|&|#)d-out=3(&|$)/.test(await evaluate(tab, "location.hash")), "the fragment does not follow the d-out control");
  compareSteps("control d-out=3", await pageSteps(tab), cli({opts: {stage: "causal", "d-out": "3"}, input: null}));
  await setControl(tab, `#aw-controls select[name="stage"]`, "dot-product", "change");
  compareSteps("control stage=dot-product", await pageSteps(tab),
               cli({opts: {stage: "dot-product", "d-out": "3"}, input: null}));

  // An option the CLI refuses (MultiHeadAttention needs d_out divisible by heads): the CLI's
  // reason in plain words (src/web/page_errors.cpp), and the walk shown before stays.
  await open(tab, "#stage=multi-head");
  const goodWalk = await pageSteps(tab);
  await setControl(tab, `#aw-controls input[name="d-out"]`, "3");
  const refused = await evaluate(tab, `document.getElementById("aw-error").textContent`);
  check(refused.startsWith("--heads: the heads must divide the width d_out evenly: d_out 3 cannot be split into 2 heads"),
        `d-out=3 with 2 heads: the message is ${JSON.stringify(refused)}`);
  check(JSON.stringify(await pageSteps(tab)) === JSON.stringify(goodWalk), "d-out=3 with 2 heads: the walk was replaced");
  check(!/d-out=3/.test(await evaluate(tab, "location.hash")), "d-out=3 with 2 heads: it went into the fragment");

  // 3. Hover: attn_weights of dot-product, row x(2) "journey", column x(5) "one".
  await open(tab, "#stage=dot-product");
  const box = await evaluate(tab, `(function () {
    var svg = document.querySelector('section.step[data-step="attn_weights"] svg.heatmap');
    svg.scrollIntoView({block: "center"});
    var g = svg.getAttribute("data-grid").split(" ").map(Number), m = svg.getScreenCTM();
    var x = g[0] + 4.5 * g[2], y = g[1] + 1.5 * g[2];
    return {x: m.a * x + m.e, y: m.d * y + m.f}; })()`);
  await tab.send("Input.dispatchMouseEvent", {type: "mouseMoved", x: box.x, y: box.y});
  const hl = await evaluate(tab, `(function () {
    var svg = document.querySelector('section.step[data-step="attn_weights"] svg.heatmap');
    function marked(step) { var p = document.querySelector('section.step[data-step="' + step + '"] pre.tensor');
      return Array.from(p.querySelectorAll(".hl")).map(function (s) { return s.textContent; }); }
    return {hover: svg.getAttribute("data-hover"), rects: svg.querySelectorAll("rect.hl").length,
            inputs: marked("inputs"), context: marked("all_context_vecs"),
            text: document.querySelector('section.step[data-step="inputs"] pre.tensor').textContent}; })()`);
  check(hl.hover === "1 4", `hover: the weight under the mouse is ${hl.hover}, expected row 1 column 4`);
  check(hl.rects === 2, `hover: ${hl.rects} outlines in the heatmap, expected its row and its column`);
  const inputRows = hl.text.split("\n");
  check(hl.inputs.length === 2 && hl.inputs[0] === inputRows[1] + "\n" && hl.inputs[1] === inputRows[4] + "\n",
        `hover: inputs rows marked ${JSON.stringify(hl.inputs)}, expected x(2) (query) and x(5) (key and value)`);
  check(hl.context.length === 1, `hover: context rows marked ${JSON.stringify(hl.context)}, expected row 2`);
  await tab.send("Input.dispatchMouseEvent", {type: "mouseMoved", x: 2, y: 2});
  check(await evaluate(tab, `document.querySelectorAll(".hl").length`) === 0, "hover: marks stay after the mouse left");

  // 4. Bad JSON pasted: a clear message, the last good walk stands.
  const before = await pageSteps(tab);
  await act(tab, `(function () { var t = document.querySelector("#aw-controls textarea.paste");
    t.value = '{"tokens": ["a", "b"], "embeddings": [[1, 2], [3, oops]]}';
    document.querySelector("#aw-controls button.apply").click(); })()`);
  const msg = await evaluate(tab, `document.getElementById("aw-error").textContent`);
  check(/^Embeddings: line 1, column \d+: /.test(msg), `bad JSON: the message does not name line and column: ${JSON.stringify(msg)}`);
  check(JSON.stringify(await pageSteps(tab)) === JSON.stringify(before), "bad JSON: the last good walk was replaced");
  check(!/input=/.test(await evaluate(tab, "location.hash")), "bad JSON: it went into the fragment");
  // A cell of the table edited: recomputed with the new number.
  await setControl(tab, `#aw-controls .emb input[data-row="0"][data-col="0"]`, "0.5");
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "edited cell: an error shows");
  compareSteps("edited cell", await pageSteps(tab), cli({opts: {stage: "dot-product"}, input: journeyWith(0, 0, 0.5)}));

  // 8. The controls a learner sees: the options of the chosen stage in their groups (input,
  //    the model, what to show), plain labels with the flag beside them, the rest under
  //    "more", nothing that means nothing in a browser.
  const where = `(function () {
    function where(n) { var e = document.querySelector('#aw-controls [name="' + n + '"]');
      if (!e) return "none"; if (e.closest("details.more")) return "more";
      var g = e.closest("fieldset.group"); return g ? g.getAttribute("data-group") : "?"; }
    var out = {};
    ["stage", "text", "query", "d-out", "kv-groups", "window", "lang", "text-file", "max-input-mb"].forEach(function (n) { out[n] = where(n); });
    var dout = document.querySelector('#aw-controls [name="d-out"]').closest("label");
    out.label = dout.querySelector(".lbl").textContent; out.box = document.querySelector('#aw-controls [name="text"]').tagName;
    return out; })()`;
  await open(tab, "#stage=gqa");
  let seen = await evaluate(tab, where);
  const wantGqa = {stage: "stage", text: "input", query: "more", "d-out": "model", "kv-groups": "model", window: "more",
                   lang: "show", "text-file": "none", "max-input-mb": "none", label: "Output width --d-out", box: "TEXTAREA"};
  check(JSON.stringify(seen) === JSON.stringify(wantGqa), `controls on gqa: ${JSON.stringify(seen)}`);
  await setControl(tab, `#aw-controls select[name="stage"]`, "dot-product", "change");
  seen = await evaluate(tab, where);
  check(seen.query === "input" && seen["d-out"] === "more" && seen["kv-groups"] === "more" && seen.window === "more",
        `controls after choosing dot-product: ${JSON.stringify(seen)}`);
  // Your own text in its box: the walk is the CLI's, the table gives way to the text's pieces.
  await setControl(tab, `#aw-controls textarea[name="text"]`, "注意力");
  compareSteps("text box", await pageSteps(tab), cli({opts: {stage: "dot-product", text: "注意力"}, input: null}));
  const pieces = await evaluate(tab, `({pieces: Array.from(document.querySelectorAll("#aw-controls .emb ol.pieces li")).map(function (l) { return l.textContent; }),
    note: (document.querySelector("#aw-controls .emb .text-note") || {}).textContent, table: !!document.querySelector("#aw-controls .emb table")})`);
  check(JSON.stringify(pieces.pieces) === JSON.stringify(["注", "↳", "意", "↳", "力", "↳"]),
        `text box: the pieces shown are ${JSON.stringify(pieces.pieces)}`);
  check(!pieces.table && /replaces the table/.test(pieces.note || ""), `text box: the table is still there (${JSON.stringify(pieces)})`);
  await setControl(tab, `#aw-controls textarea[name="text"]`, "");
  check(await evaluate(tab, `!!document.querySelector("#aw-controls .emb table")`), "text box emptied: the table did not come back");
  // A bad cell: the message in the table's terms, the cell marked, the walk kept.
  await open(tab, "#stage=causal");
  const kept = await pageSteps(tab);
  await setControl(tab, `#aw-controls .emb input[data-row="2"][data-col="1"]`, "abc");
  const bad = await evaluate(tab, `({msg: document.getElementById("aw-error").textContent,
    marked: document.querySelector('#aw-controls .emb input[data-row="2"][data-col="1"]').getAttribute("aria-invalid")})`);
  check(bad.msg.startsWith("row 3, column 2: 'abc' is not a number"), `bad cell: the message is ${JSON.stringify(bad.msg)}`);
  check(bad.marked === "true", "bad cell: the cell is not marked");
  check(JSON.stringify(await pageSteps(tab)) === JSON.stringify(kept), "bad cell: the walk was replaced");
  // ".5" is a number to a learner: it is read as 0.5.
  await setControl(tab, `#aw-controls .emb input[data-row="2"][data-col="1"]`, ".5");
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "cell .5: an error shows");
  compareSteps("cell .5", await pageSteps(tab), cli({opts: {stage: "causal"}, input: journeyWith(2, 1, 0.5)}));
  // A number large enough to overflow float32 in the scores: the walk is the CLI's, and the
  // page says where its numbers stop being finite.
  await setControl(tab, `#aw-controls .emb input[data-row="1"][data-col="0"]`, "3e38");
  const overflowNote = await evaluate(tab, `Array.from(document.querySelectorAll("#aw-walk ul.notes li")).map(function (l) { return l.textContent; }).join("|")`);
  check(/step \[3\] attn_scores is the first whose numbers are not all finite/.test(overflowNote), `cell 3e38: the notes are ${JSON.stringify(overflowNote)}`);
  const overflowing = journeyWith(2, 1, 0.5);
  overflowing.embeddings[1][0] = 3e38;
  compareSteps("cell 3e38", await pageSteps(tab), cli({opts: {stage: "causal"}, input: overflowing}));
  await setControl(tab, `#aw-controls .emb input[data-row="1"][data-col="0"]`, "0.55");
  check(await evaluate(tab, `document.querySelectorAll("#aw-walk ul.notes li").length`) === 0, "cell back to 0.55: a note stays");
  // The table's buttons, clicked as a learner clicks: a token added (x7, zeros), a dimension
  // added, the first token removed (its ×), the last dimension removed, then the chapter's
  // table back. Each time the table is drawn anew with its new shape and the walk is the CLI's
  // on the same embeddings.
  const edited = journeyWith(2, 1, 0.5);
  const tableShape = `(function () { var rows = document.querySelectorAll("#aw-controls .emb table tr");
    return [rows.length - 1, rows.length > 1 ? rows[1].querySelectorAll("input").length - 1 : 0]; })()`;
  const clickAndWait = async (selector) => {
    await click(tab, selector);
    await waitFor(tab, `!window.attnWalk.busy()`, 120000);
  };
  const buttons = [
    ["button.add-token", (e) => { e.tokens.push("x7"); e.embeddings.push([0, 0, 0]); }],
    ["button.add-dim", (e) => e.embeddings.forEach((r) => r.push(0))],
    ["tr:nth-child(2) button.del", (e) => { e.tokens.shift(); e.embeddings.shift(); }],
    ["button.remove-dim", (e) => e.embeddings.forEach((r) => r.pop())],
  ];
  for (const [button, edit] of buttons) {
    edit(edited);
    await clickAndWait(`#aw-controls .emb ${button}`);
    check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", `${button}: an error shows`);
    const shape = await evaluate(tab, tableShape);
    check(JSON.stringify(shape) === JSON.stringify([edited.tokens.length, edited.embeddings[0].length]),
          `${button}: the table is ${JSON.stringify(shape)} (tokens, dimensions) after it`);
    compareSteps(button, await pageSteps(tab), cli({opts: {stage: "causal"}, input: edited}));
  }
  await clickAndWait(`#aw-controls .emb button.reset`);
  check(JSON.stringify(await evaluate(tab, tableShape)) === "[6,3]", "reset: the chapter's table is not back");
  check(!/input=/.test(await evaluate(tab, "location.hash")), "reset: the input stays in the fragment");
  compareSteps("reset", await pageSteps(tab), cli({opts: {stage: "causal"}, input: null}));

  // 7. A phone (390 px, a mobile viewport): the settings start folded, and nothing scrolls
  //    the page sideways (wide tensors and heatmaps scroll inside their own boxes), in both
  //    languages, on the default walk and on a wide one.
  await tab.send("Emulation.setDeviceMetricsOverride", {width: 390, height: 844, deviceScaleFactor: 2, mobile: true});
  for (const lang of ["en", "zh"]) {
    for (const hash of ["#lang=" + lang, "#stage=multi-head&d-out=8&lang=" + lang, "#stage=all&lang=" + lang]) {
      await open(tab, hash);
      // Every step laid out, as a learner scrolling down sees them (content-visibility
      // skips the steps off screen, and its containment would hide what sticks out).
      const m = await evaluate(tab, `(function () {
        var st = document.createElement("style");
        st.textContent = "section.step{content-visibility:visible!important;contain:none!important}";
        document.head.appendChild(st);
        var stuck = Array.from(document.querySelectorAll("#aw-walk pre.tensor, #aw-walk .hm-row")).filter(function (p) {
          return p.scrollWidth > p.clientWidth + 1 && getComputedStyle(p).overflowX !== "auto";
        }).length;
        return {scroll: document.scrollingElement.scrollWidth, inner: window.innerWidth, stuck: stuck,
                open: document.querySelector("#aw-controls details").open,
                err: document.getElementById("aw-error").textContent}; })()`);
      check(m.stuck === 0, `phone ${hash}: ${m.stuck} tensors or heatmaps wider than their box and not scrollable`);
      check(m.err === "", `phone ${hash}: an error shows: ${m.err}`);
      // A phone's browser widens its layout viewport to content that does not fit: then
      // innerWidth is above 390 too.
      check(m.inner === 390 && m.scroll <= m.inner,
            `phone ${hash}: the page scrolls sideways (${m.scroll} px of content, a window ${m.inner} px wide)`);
      check(m.open === false, `phone ${hash}: the settings start open`);
      // Opened, the settings fit too.
      const opened = await evaluate(tab, `(function () { var d = document.querySelector("#aw-controls details");
        d.open = true; return document.scrollingElement.scrollWidth; })()`);
      check(opened <= 390, `phone ${hash}: the open settings scroll the page sideways (${opened} px in ${m.inner} px)`);
    }
  }
  if (shots) {
    await open(tab, "#stage=multi-head&d-out=8&lang=zh");
    const {data} = await tab.send("Page.captureScreenshot", {format: "png"});
    fs.mkdirSync(shots, {recursive: true});
    fs.writeFileSync(path.join(shots, "web-phone-zh.png"), Buffer.from(data, "base64"));
  }
  await tab.send("Emulation.setDeviceMetricsOverride", {width: 1280, height: 900, deviceScaleFactor: 1, mobile: false});
  await open(tab, "#stage=causal");
  check(await evaluate(tab, `document.querySelector("#aw-controls details").open`) === true,
        "desktop: the settings start folded");

  // Chinese is drawn with a Chinese font (Noto Sans CJK SC, from Debian's fonts-noto-cjk,
  // through the page's font stack), not with boxes or a stray fallback.
  await open(tab, fragment({opts: {stage: "causal", lang: "zh"}, input: four}));  // token 4 is 还
  await tab.send("DOM.enable");
  await tab.send("CSS.enable");
  for (const sel of ["h2 .stage-desc", "section.step .explanation", ".hm-title", "svg.heatmap .rows text:nth-child(4)"]) {
    const {root} = await tab.send("DOM.getDocument", {depth: -1});
    const {nodeId} = await tab.send("DOM.querySelector", {nodeId: root.nodeId, selector: sel});
    const {fonts} = await tab.send("CSS.getPlatformFontsForNode", {nodeId});
    const families = fonts.map((f) => f.familyName);
    check(families.includes("Noto Sans CJK SC"), `lang=zh: ${sel} is drawn in ${JSON.stringify(families)}, not Noto Sans CJK SC`);
  }

  if (shots) {
    fs.mkdirSync(shots, {recursive: true});
    await open(tab, "#stage=causal&lang=zh");
    const {data} = await tab.send("Page.captureScreenshot", {format: "png"});
    fs.writeFileSync(path.join(shots, "web-causal-zh.png"), Buffer.from(data, "base64"));
  }

  // One self-contained file, under issue 11's budget of 2 MB (GPT-2's vocabulary for --text
  // included: the engine's wasm is in it gzip-compressed).
  const size = fs.statSync(page).size;
  console.log(`page size: ${size} bytes (budget 2 MB)`);
  check(size < 2e6, `the page is ${size} bytes, more than 2 MB`);

  // --text works in the page: its tokens stage is the CLI's.
  const textOpts = {stage: "tokens", text: "Hello, world! 你好 attention", seed: "3"};
  await open(tab, fragment({opts: textOpts, input: null}));
  compareSteps("--text", await pageSteps(tab), cli({opts: textOpts, input: null}));
  // Chapter 2's steps link to chapter 2's notebook.
  const links = await evaluate(tab, `Array.from(document.querySelectorAll("section.step h3 a.chapter")).map(function (a) { return a.href; })`);
  check(links.length > 0 && links.every((h) => h.includes("/ch02/01_main-chapter-code/ch02.ipynb#2")),
        `--text, stage tokens: the § links are ${JSON.stringify(links.slice(0, 3))}`);

  // 9. The engine runs in a worker. A walk of a few seconds (multi-head at GPT-2's width on a
  //    text of some 440 tokens): while it runs the page handles a timer and a click and
  //    shows the walk's progress, which advances; the walk it shows is the CLI's.
  await open(tab, "#stage=causal");
  const walksShown = () => evaluate(tab, `Number(document.body.getAttribute("data-walks"))`);
  const shown0 = await walksShown();
  const busyVisible = `!document.getElementById("aw-busy").hidden`;
  await evaluate(tab, `window.ticks = 0; setInterval(function () { window.ticks++; }, 50);
    location.hash = ${JSON.stringify(fragment({opts: longOpts, input: null}))}; 0`);
  const tStart = Date.now();
  await waitFor(tab, busyVisible, 10000);
  const samples = [];
  let clickSeen = null;
  for (;;) {
    const smp = await evaluate(tab, `({busy: window.attnWalk.busy(), ticks: window.ticks, at: performance.now(),
      done: Number(document.getElementById("aw-busy").getAttribute("data-done")),
      text: document.querySelector("#aw-busy .busy-text").textContent})`);
    if (!smp.busy) break;
    samples.push(smp);
    if (samples.length === 3) {
      // A real click on the settings' summary folds them, while the walk runs.
      const before = await evaluate(tab, `document.querySelector("#aw-controls details").open`);
      await click(tab, "#aw-controls details > summary");
      clickSeen = {before, after: await evaluate(tab, `document.querySelector("#aw-controls details").open`),
                   busy: await evaluate(tab, `window.attnWalk.busy()`)};
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const longMs = Date.now() - tStart;
  console.log(`the long walk (${longOpts.text.split(" ").length} words, D = 768): ${longMs} ms in the page, ${samples.length} samples`);
  check(samples.length >= 4, `long walk: ${samples.length} samples while it ran (the page did not answer while it computed?)`);
  if (samples.length >= 2) {
    const first = samples[0], last = samples[samples.length - 1];
    const expected = (last.at - first.at) / 50;
    check(last.ticks - first.ticks >= expected / 3,
          `long walk: a 50 ms timer fired ${last.ticks - first.ticks} times in ${(last.at - first.at).toFixed(0)} ms`);
    check(samples.every((x) => /^Computing… /.test(x.text)), `long walk: the progress line is ${JSON.stringify(first.text)}`);
    const secs = samples.map((x) => Number(/([\d.]+) s$/.exec(x.text)[1]));
    check(secs[secs.length - 1] > secs[0], `long walk: the seconds shown do not advance: ${secs.join(" ")}`);
    const dones = samples.map((x) => x.done);
    check(dones.every((d, i) => i === 0 || d >= dones[i - 1]) && dones[dones.length - 1] > dones[0],
          `long walk: the steps done do not advance: ${dones.join(" ")}`);
    check(samples.some((x) => /step \d+ of \d+, the last \S+/.test(x.text)),
          `long walk: no step named in ${JSON.stringify(samples.map((x) => x.text))}`);
    // The wrapper's step, most of the walk, shows its heads as they are done, in order.
    const heads = samples.map((x) => /, now wrapper_context_vecs \((\d+) of 12\); /.exec(x.text))
                         .filter((m) => m).map((m) => Number(m[1]));
    check(new Set(heads).size >= 3 && heads.every((h, i) => i === 0 || h >= heads[i - 1]),
          `long walk: the wrapper's heads shown while it ran: ${heads.join(" ")} in ${JSON.stringify(samples.map((x) => x.text))}`);
  }
  check(clickSeen && clickSeen.after === !clickSeen.before && clickSeen.busy,
        `long walk: a click while it ran: ${JSON.stringify(clickSeen)}`);
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "long walk: an error shows");
  check(await evaluate(tab, busyVisible) === false, "long walk: the progress line stays after the walk");
  check(await walksShown() === shown0 + 1, "long walk: not shown once");
  compareSteps("long walk", await pageSteps(tab), await cliStepsFromHtml(browser, longOpts));

  // A newer request while a long walk runs (on the page in Chinese: so is its progress line):
  // the long walk is stopped once it has run for a second, and only the newer walk is shown.
  await open(tab, "#stage=causal&lang=zh");
  const shown1 = await walksShown();
  await evaluate(tab, `location.hash = ${JSON.stringify(fragment({opts: Object.assign({}, longOpts, {seed: "5", lang: "zh"}), input: null}))}; 0`);
  await waitFor(tab, busyVisible, 10000);
  const zhLine = await evaluate(tab, `document.querySelector("#aw-busy .busy-text").textContent`);
  check(/^正在计算……/.test(zhLine), `lang=zh: the progress line is ${JSON.stringify(zhLine)}`);
  const tNewer = Date.now();
  await evaluate(tab, `location.hash = "#stage=dot-product"; 0`);
  await waitFor(tab, `!window.attnWalk.busy()`, 60000);
  const newerMs = Date.now() - tNewer;
  check(newerMs < Math.max(3000, longMs / 2), `a newer request waited ${newerMs} ms (the long walk takes ${longMs} ms)`);
  check(await walksShown() === shown1 + 1, "a newer request: the stopped walk was shown, or the newer one was not");
  compareSteps("a newer request", await pageSteps(tab), cli({opts: {stage: "dot-product"}, input: null}));
  check(await evaluate(tab, `document.documentElement.lang`) === "en", "a newer request: the page is not the newer walk's");

  // Stop: the walk shown before stays, the page says so, the fragment is the shown walk's;
  // the next change computes as before (a new worker).
  const beforeStop = await pageSteps(tab);
  await evaluate(tab, `location.hash = ${JSON.stringify(fragment({opts: longOpts, input: null}))}; 0`);
  await waitFor(tab, busyVisible, 10000);
  await click(tab, "#aw-busy button.stop");
  await waitFor(tab, `!window.attnWalk.busy()`, 5000);
  const stopped = await evaluate(tab, `document.getElementById("aw-error").textContent`);
  check(stopped === "Stopped before the walk was done: the settings are back to those of the walk below.",
        `Stop: the message is ${JSON.stringify(stopped)}`);
  check(JSON.stringify(await pageSteps(tab)) === JSON.stringify(beforeStop), "Stop: the walk shown before was replaced");
  // (The walk shown is the default one: an empty fragment.)
  check(await evaluate(tab, "location.hash") === "", "Stop: the fragment is not the shown walk's");
  await act(tab, `window.attnWalk.set("seed", "9"); 0`);
  compareSteps("after Stop", await pageSteps(tab), cli({opts: {stage: "dot-product", seed: "9"}, input: null}));
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "after Stop: an error shows");

  // 6. Nothing but the page itself was requested.
  // (blob:null/...: the worker's script, made by the page from its own script tags.)
  const outside = tab.requests.filter((u) => !(u.startsWith(pageUrl) || u.startsWith("data:") || u.startsWith("blob:null/") ||
                                                u === "about:blank"));
  check(outside.length === 0, "requests left the page: " + outside.slice(0, 5).join(" "));
  check(tab.console.length === 0, "script errors in the page: " + tab.console.slice(0, 3).join("\n"));

  if (bench) {
    const median = (xs) => { const s = xs.slice().sort((a, b) => a - b); return s[(s.length - 1) >> 1]; };
    // From the start of navigation to the first walk (the default one) laid out in the page,
    // with the page's own marks (page.js: the script starts, the wasm is inflated and compiled
    // (the worker starts meanwhile), the first walk is laid out).
    const loads = [];
    for (let k = 0; k < 9; k++) {
      await tab.send("Page.navigate", {url: "about:blank"});
      await waitFor(tab, `location.href === "about:blank"`);
      await tab.send("Page.navigate", {url: pageUrl});
      await waitFor(tab, `document.body && document.body.getAttribute("data-ready") === "1"`, 30000);
      loads.push(await evaluate(tab, `window.attnWalk.timings`));
    }
    const phase = (name) => median(loads.map((t) => t[name]));
    // A recompute: the engine's walk, its HTML put into the page, and the page laid out.
    // The request goes to the worker and its answer comes back as a message. 50 ms apart, as a
    // learner's changes are, so that the page paints in between: an answer that arrives while
    // a frame is due waits for it, and back to back the loop would time frames.
    const recompute = async (stage, seed0) => evaluate(tab, `(async function () {
      await window.attnWalk.set("stage", ${JSON.stringify(stage)});
      var times = [];
      for (var k = 0; k < 21; k++) {
        await new Promise(function (r) { setTimeout(r, 50); });
        var t0 = performance.now();
        await window.attnWalk.set("seed", String(${seed0} + k));
        void document.body.offsetHeight;
        times.push(performance.now() - t0);
      }
      return times.sort(function (a, b) { return a - b; })[10]; })()`);
    // What the worker adds: the same walk (stage all, 268 KB of HTML) asked of the worker (a
    // message each way, the HTML copied) and of the engine on the page's thread.
    const roundTrip = await evaluate(tab, `(async function () {
      var worker = [], here = [], a = ["--stage", "all"];
      window.attnWalk.run(a, "", false);
      for (var k = 0; k < 11; k++) {
        var t0 = performance.now();
        var w = await window.attnWalk.walk(a, "", false);
        worker.push(performance.now() - t0);
        t0 = performance.now();
        window.attnWalk.run(a, "", false);
        here.push(performance.now() - t0);
      }
      function med(x) { return x.sort(function (p, q) { return p - q; })[5]; }
      return {html_bytes: w.html.length, worker_ms_median: +med(worker).toFixed(1), page_thread_ms_median: +med(here).toFixed(1)}; })()`);
    const report = {page_bytes: size, loads: loads.length,
      script_start_ms_median: phase("script"), wasm_compiled_ms_median: phase("engine"), first_walk_ms_median: phase("first_walk")};
    for (const stage of ["dot-product", "causal", "multi-head", "all"])
      report[`recompute_${stage}_ms_median`] = +(await recompute(stage, 100)).toFixed(1);
    report.recompute_tokens_text_ms_median = +(await (async () => {
      await evaluate(tab, `window.attnWalk.set("text", "Your journey starts with one step")`);
      return recompute("tokens", 300);
    })()).toFixed(1);
    console.log(JSON.stringify(report));
    console.log(JSON.stringify({stage_all_worker_round_trip: roundTrip}));
    // `attn-walk bench` in the page's engine (one thread, portable kernels) beside the native
    // one on one thread and on all cores: the page's speed as a fraction of the native.
    for (const [T, repeat] of [[128, 5], [1024, 2]]) {
      const web = await evaluate(tab, `window.attnWalk.bench(${T}, 768, 12, ${repeat})`);
      if (!web || !web.ok) { check(false, `bench in the page: ${JSON.stringify(web)}`); continue; }
      const native = (threads) => JSON.parse(execFileSync(binary, ["bench", "--tokens", String(T), "--d-model", "768",
        "--heads", "12", "--repeat", String(repeat), "--threads", String(threads), "--no-probe", "--format", "json"]).toString());
      const n1 = native(1), n0 = native(0);
      const ms = (b) => b.median_ms;
      console.log(JSON.stringify({bench_tokens: T, web_ms: ms(web.bench), native_1_thread_ms: ms(n1),
        native_all_threads_ms: ms(n0), native_isa: n1.isa, web_over_native_1_thread: +(ms(n1) / ms(web.bench)).toFixed(3),
        web_over_native_all_threads: +(ms(n0) / ms(web.bench)).toFixed(3)}));
      const bits = (b) => JSON.stringify([b.sum, b.abs_sum, b.first, b.shape]);
      check(bits(web.bench) === bits(n1), `bench T=${T}: the page's output differs from the native one`);
    }
  }
}

runInBrowser("the web page in chromium", main);
