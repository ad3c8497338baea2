// A learner's GPT-2 weights in the web page of `make web`, in headless chromium (issue 41, "The
// page"), on the small GPT-2-shaped models of tests/data/gpt/ (tests/golden/make_gpt_models.py):
//
//   node tests/browser/test_web_gpt.js PAGE.html ATTN-WALK-BINARY
//
// 1. Before a file is open the stage select offers no gpt, and the --weights control (a file
//    picker and drop zone) is on the page, as are no --layer, --head or --max-new-tokens yet.
// 2. Hugging Face's model.safetensors and its config.json (which gives the heads) chosen with
//    the file picker (DevTools' DOM.setFileInputFiles): the page says what it read (blocks,
//    heads, width), offers and walks --stage gpt, and every step's printed text is the CLI's for
//    the same file and text; --layer, --head and --max-new-tokens are controls from the option
//    table, and set through them, the walk is again the CLI's.
// 3. The book's .pth dropped on the page (a drop event carrying the File), with --heads 2 from
//    the link (the book's file does not record its heads), and a --text: the CLI's steps again.
// 4. The progress: a walk in the worker reports the file being read, then each block as it
//    begins, 1 to n_layers in order.
// 5. A truncated file: the page shows the reader's own message, the CLI's stderr word for word,
//    and the file opened before stays open (the walk still works).
// 6. The book's .safetensors with no --heads: read, the count asked for beside --heads (the
//    reader's words), then given there: the CLI's walk.
// 7. Nothing the page requested left it (the file is read in the worker, never sent anywhere).
// 8. The file is read once: the engine keeps the model while the same files stay open. Opening
//    reads it, the walks that follow (the page's own, a control's change, another --heads) read
//    nothing, and the steps are still the CLI's; the same files picked again are not read again; another file is,
//    and switching back and forth holds one model at a time (malloc's bytes do not grow).
// 9. Beside the picker, the open file's name, in the page's language, agreeing with the status
//    line after the controls are rebuilt (the browser's own input, which forgets the file and says
//    "No file chosen", is hidden); en and zh.
// 10. The walk's header gives the model's own sizes (as the engine read them) and --layer/--head,
//    not chapter 3's settings line.
"use strict";
const {execFileSync, spawnSync} = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const {evaluate, waitFor} = require("./cdp");
const {check, openPage, pageArgs, runInBrowser, setControl} = require("./harness");

const args = pageArgs("node test_web_gpt.js PAGE.html ATTN-WALK-BINARY");
const pageUrl = args.pageUrl, binary = path.resolve(args.binary);  // the CLI runs in the files' folders
const gptDir = path.resolve(__dirname, "../data/gpt");
const hfDir = path.join(gptDir, "hf");

function cliArgs(opts) {
  return [].concat(...Object.entries(opts).map(([k, v]) => ["--" + k, v]));
}
// The CLI on the same file, named as the page names it (its own name, in its folder), with the
// page's sgemm order: the page has no x86 OpenBLAS to follow and sums as Cooperlake's kernel with
// two threads do (src/torch/openblas_choice.cpp), while the CLI follows this CPU's; from K = 8
// (the feed-forward's first Linear here) Haswell's order gives other bits.
const pageOrder = Object.assign({}, process.env, {ATTN_WALK_BLAS_KERNEL: "cooperlake", ATTN_WALK_BLAS_THREADS: "2"});
function cliSteps(dir, opts) {
  const out = execFileSync(binary, cliArgs(opts).concat(["--format", "json"]),
                           {cwd: dir, env: pageOrder, maxBuffer: 1 << 28}).toString();
  const j = JSON.parse(out);
  return (j.walks || [j]).reduce((all, w) => all.concat(w.steps), []);
}

async function pageSteps(tab) {
  return evaluate(tab, `Array.from(document.querySelectorAll("#aw-walk section.step")).map(function (s) {
    var pre = s.querySelector("pre.tensor"); return [s.getAttribute("data-step"), pre ? pre.textContent : null]; })`);
}

function compareSteps(label, got, want) {
  check(got.length === want.length, `${label}: ${got.length} steps on the page, the CLI has ${want.length}`);
  let differ = 0;
  want.forEach((s, i) => {
    if (!got[i]) return;
    if (got[i][0] !== s.name) { if (differ++ < 3) check(false, `${label}: step ${i + 1} is ${got[i][0]}, the CLI's is ${s.name}`); return; }
    if (got[i][1] !== s.printed && differ++ < 3) check(false, `${label}: ${s.name} printed differently from the CLI:\n${got[i][1]}\n--- the CLI:\n${s.printed}`);
  });
  check(differ === 0, `${label}: ${differ} step(s) differ from the CLI's`);
}

// The files at `paths` given to the page's --weights file input, as a learner picks them.
async function pick(tab, paths) {
  const {result} = await tab.send("Runtime.evaluate", {expression: `document.querySelector('input[type=file][name="weights"]')`});
  check(result && result.objectId, "no --weights file input on the page");
  if (!result || !result.objectId) return;
  await tab.send("DOM.setFileInputFiles", {objectId: result.objectId, files: paths});
}

// The files at `paths` dropped on the page: a hidden input of the test's own turns them into File
// objects, and a drop event carries them (a DataTransfer), as the browser's own drop does.
async function drop(tab, paths) {
  await evaluate(tab, `(function () { var i = document.createElement("input"); i.type = "file"; i.multiple = true;
    i.id = "test-drop-files"; i.hidden = true; document.body.appendChild(i); })()`);
  const {result} = await tab.send("Runtime.evaluate", {expression: `document.getElementById("test-drop-files")`});
  await tab.send("DOM.setFileInputFiles", {objectId: result.objectId, files: paths});
  await evaluate(tab, `(function () {
    var files = document.getElementById("test-drop-files").files, dt = new DataTransfer();
    for (var k = 0; k < files.length; k++) dt.items.add(files[k]);
    document.getElementById("test-drop-files").remove();
    var target = document.querySelector(".weights") || document.body;
    var over = new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt});
    target.dispatchEvent(over);
    target.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt}));
    return over.defaultPrevented; })()`);
}

// The engine's reading of the open file `name` (the kept model: no read), with what it holds:
// {ok, weights_reads, malloc_bytes, emb_dim, n_layers ...}.
function held(tab, name, heads) {
  return evaluate(tab, `window.attnWalk.weights(${JSON.stringify(["--weights", name].concat(heads ? ["--heads", heads] : []))})`);
}

// The picker says which file is open, in the page's words, and so does the status line; the
// browser's own file input (which says "No file chosen" once the controls are rebuilt) is hidden.
async function pickerAgrees(tab, name, openText, chooseText) {
  const p = await evaluate(tab, `(function () { var w = document.querySelector(".weights"), i = w.querySelector('input[type=file]');
    var r = i.getBoundingClientRect(), c = w.querySelector(".choose"), cr = c.getBoundingClientRect();
    return {open: w.querySelector(".open-file").textContent, choose: c.textContent, status: w.querySelector(".weights-status").textContent,
            hidden: r.width <= 1 && r.height <= 1 && getComputedStyle(i).opacity === "0", chooseShown: cr.width > 20 && cr.height > 10,
            inLabel: !!i.closest("label") && i.closest("label").contains(c), files: i.files.length}; })()`);
  check(p.open === openText, `beside the picker: ${JSON.stringify(p.open)}, expected ${JSON.stringify(openText)}`);
  check(p.choose === chooseText && p.chooseShown, `the picker's button: ${JSON.stringify(p.choose)} (shown: ${p.chooseShown})`);
  check(p.status.startsWith(name), `the status line names another file: ${p.status}`);
  check(p.hidden && p.inLabel, "the browser's own file input shows, or the button does not open it: " + JSON.stringify(p));
}

// The walk's header: the model's own sizes (as the engine read them: `model`), then `extra`
// (--layer ...), and nothing of chapter 3's settings; chapter 4.
async function headerShows(tab, model, extra) {
  const h = await evaluate(tab, `(function () { var h = document.querySelector("#aw-walk header");
    var m = h && h.querySelector("p.meta.model"); return {model: m ? m.textContent : null, all: h ? h.textContent : ""}; })()`);
  const sizes = `emb_dim ${model.emb_dim} · n_layers ${model.n_layers} · n_heads ${model.n_heads} · head_dim ${model.emb_dim / model.n_heads}` +
                ` · context_length ${model.context_length} · vocab_size ${model.vocab_size}`;
  check(h.model !== null && h.model.endsWith(": " + sizes + extra), `the header's model line: ${h.model}, expected …${sizes + extra}`);
  check(!/d_out|seed|dropout/.test(h.all), "the gpt walk's header has chapter 3's settings: " + h.all);
  check(/chapter 4/.test(h.all), "the gpt walk's header does not say chapter 4: " + h.all);
}

// Each control's plain label (its first words, before the flag), by option name.
function plainLabels(tab) {
  return evaluate(tab, `(function () { var out = {};
    document.querySelectorAll("#aw-controls label").forEach(function (l) {
      var f = l.querySelector("[name]"), p = l.querySelector(".lbl > span, :scope > span");
      if (f && p) out[f.getAttribute("name")] = p.textContent; });
    return out; })()`);
}

// Waits until the weights control has said how the file went, then for the walk it started.
async function settled(tab, kind) {
  await waitFor(tab, `(function () { var w = document.querySelector(".weights");
    return w && (w.getAttribute("data-weights") === "loaded" || w.getAttribute("data-weights") === "bad"); })()`, 60000);
  await waitFor(tab, `!window.attnWalk.busy()`, 120000);
  const got = await evaluate(tab, `document.querySelector(".weights").getAttribute("data-weights")`);
  check(got === kind, `the weights control says ${got}, expected ${kind}: ` +
        (await evaluate(tab, `document.querySelector(".weights").textContent`)));
}

function stageChoices(tab) {
  return evaluate(tab, `Array.from(document.querySelectorAll('select[name="stage"] option')).map(function (o) { return o.value; })`);
}

// Drops the first half of the book's safetensors file on the page, as cut.safetensors in a new
// folder, and waits for the page's refusal; then runs the CLI on the same file with --lang `lang`.
// Returns the CLI's run, its message without its prefix, what the page shows, and the folder
// (the caller removes it).
async function dropTruncated(tab, lang) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "attn-walk-gpt-"));
  const whole = fs.readFileSync(path.join(gptDir, "book.safetensors"));
  fs.writeFileSync(path.join(dir, "cut.safetensors"), whole.subarray(0, whole.length >> 1));
  await drop(tab, [path.join(dir, "cut.safetensors")]);
  await settled(tab, "bad");
  const cli = spawnSync(binary, ["--stage", "gpt", "--weights", "cut.safetensors", "--heads", "2", "--lang", lang], {cwd: dir});
  const want = cli.stderr.toString().trim().replace(lang === "zh" ? /^attn-walk：错误：/ : /^attn-walk: (error: )?/, "");
  const shown = await evaluate(tab, `(function () { var e = document.querySelector(".weights .reader-error");
    return e ? e.textContent : null; })()`);
  return {cli, want, shown, dir};
}

async function main(browser) {
  const tab = await browser.newTab();
  await tab.send("Emulation.setDeviceMetricsOverride", {width: 1280, height: 900, deviceScaleFactor: 1, mobile: false});

  // 1. No file yet.
  await openPage(tab, pageUrl);
  check(!(await stageChoices(tab)).includes("gpt"), "gpt is offered before a weights file is open");
  const before = await evaluate(tab, `(function () { var w = document.querySelector(".weights");
    return {picker: !!document.querySelector('input[type=file][name="weights"]'), hint: w ? w.textContent : "",
            layer: !!document.querySelector('[name="layer"]')}; })()`);
  check(before.picker, "the --weights file picker is not on the page");
  check(/never leaves your machine/.test(before.hint), "the drop zone does not say the file stays here: " + before.hint);
  check(!before.layer, "--layer shows before --stage gpt can be chosen");

  // 2. Hugging Face's files through the picker.
  await pick(tab, [path.join(hfDir, "model.safetensors"), path.join(hfDir, "config.json")]);
  await settled(tab, "loaded");
  const said = await evaluate(tab, `document.querySelector(".weights-status").textContent`);
  check(/^model\.safetensors: 2 blocks, 2 heads, width 8, vocabulary 50257, context 16 tokens\.$/.test(said),
        "the page says of the file: " + said);
  check((await stageChoices(tab)).includes("gpt"), "gpt is not offered once the file is open");
  const st = await evaluate(tab, `window.attnWalk.state()`);
  check(st.stage === "gpt" && st.weights === "model.safetensors", "the state after opening: " + JSON.stringify(st));
  check(!/weights=/.test(await evaluate(tab, `location.hash`)), "the file's name went into the link");
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "an error shows after opening the file");
  compareSteps("HF file, picked", await pageSteps(tab), cliSteps(hfDir, {stage: "gpt", weights: "model.safetensors"}));
  const read0 = await held(tab, "model.safetensors");
  check(read0 && read0.ok && read0.weights_reads === 1, "opening the file and walking it read it " +
        (read0 && read0.weights_reads) + " times, not once");
  await pickerAgrees(tab, "model.safetensors", "Open: model.safetensors", "Choose a file…");
  await headerShows(tab, read0, "");
  const enLabels = await plainLabels(tab);
  const enDefaults = await evaluate(tab, `["layer", "head"].map(function (n) { var d = document.getElementById("aw-default-" + n); return d ? d.textContent : null; })`);
  check(/^none/.test(enDefaults[0] || "") && /^none/.test(enDefaults[1] || ""), "no default said beside the empty --layer and --head: " + JSON.stringify(enDefaults));

  // The gpt stage's controls come from the option table; set through them, the CLI's walk.
  const controls = await evaluate(tab, `["layer", "head", "max-new-tokens"].map(function (n) {
    var e = document.querySelector('input[name="' + n + '"]'); return e ? e.closest("label").textContent : null; })`);
  check(controls.every((c) => c !== null), "the gpt stage's controls: " + JSON.stringify(controls));
  check(controls[0] && controls[0].includes("--layer"), "the --layer control: " + controls[0]);
  await setControl(tab, 'input[name="layer"]', "1");
  await setControl(tab, 'input[name="head"]', "0");
  await setControl(tab, 'input[name="max-new-tokens"]', "3");
  check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "an error shows after --layer 1 --head 0");
  compareSteps("HF file, --layer 1 --head 0 --max-new-tokens 3", await pageSteps(tab),
               cliSteps(hfDir, {stage: "gpt", weights: "model.safetensors", layer: "1", head: "0", "max-new-tokens": "3"}));
  const read1 = await held(tab, "model.safetensors");
  check(read1 && read1.weights_reads === 1, "three control changes read the file again: " + (read1 && read1.weights_reads) + " reads");
  await headerShows(tab, read0, " · --layer 1 · --head 0 · --max-new-tokens 3");
  await pickerAgrees(tab, "model.safetensors", "Open: model.safetensors", "Choose a file…");

  // 3. The book's .pth dropped on the page, with --heads 2 from the link and a text of its own.
  const text = "Every effort moves you forward";
  await openPage(tab, pageUrl + "#heads=2&text=" + encodeURIComponent(text));
  await drop(tab, [path.join(gptDir, "book.pth")]);
  await settled(tab, "loaded");
  compareSteps("book .pth, dropped", await pageSteps(tab), cliSteps(gptDir, {stage: "gpt", weights: "book.pth", heads: "2", text}));

  // 4. The blocks go by: each reported as it begins, in order.
  const blocks = await evaluate(tab, `(function () {
    var seen = [], first = null;
    return window.attnWalk.walk(["--stage", "gpt", "--weights", "book.pth", "--heads", "2"], "", false, function (p) {
      if (!first) first = p.phase + " " + p.step;
      if (p.block > 0 && seen[seen.length - 1] !== p.block) seen.push(p.block);
    }).then(function (r) { return {ok: r && r.ok, seen: seen, first: first}; }); })()`);
  check(blocks.ok, "the walk with progress failed");
  // The page read the file when it was dropped: this walk walks the model kept since (no read).
  check(blocks.first !== "read book.pth", "the kept model was read again: " + blocks.first);
  check(JSON.stringify(blocks.seen) === "[1,2]", "the blocks reported: " + JSON.stringify(blocks.seen));

  // 5. A truncated file: the reader's own message, the CLI's.
  const {cli, want, shown, dir: tmp} = await dropTruncated(tab, "en");
  try {
    check(cli.status === 1 && want.length > 0, "the CLI on the truncated file: exit " + cli.status + ", " + want);
    check(shown !== null && want.includes(shown), `the page shows ${JSON.stringify(shown)}, the CLI says ${JSON.stringify(want)}`);
    check(/cut\.safetensors cannot be read as a GPT-2 model/.test(await evaluate(tab, `document.querySelector(".weights").textContent`)),
          "the page does not say the file cannot be read");
    // The book's file opened before is still open: a change walks it.
    await setControl(tab, 'input[name="layer"]', "0");
    check(await evaluate(tab, `document.getElementById("aw-error").textContent`) === "", "after the bad file, an error shows");
    compareSteps("book .pth after a bad file", await pageSteps(tab),
                 cliSteps(gptDir, {stage: "gpt", weights: "book.pth", heads: "2", text, layer: "0"}));
  } finally {
    fs.rmSync(tmp, {recursive: true, force: true});
  }

  // 6. The book's .safetensors without --heads: read, the head count asked for beside --heads (the
  // reader's words), then given there: the CLI's walk, and the control says what it read.
  await openPage(tab, pageUrl);
  await pick(tab, [path.join(gptDir, "book.safetensors")]);
  await waitFor(tab, `document.querySelector(".weights").getAttribute("data-weights") === "heads"`, 60000);
  const asked = await evaluate(tab, `(function () { var h = document.querySelector('input[name="heads"]'), l = h && h.closest("label");
    var note = l && l.querySelector(".field-error"); return note ? note.textContent : null; })()`);
  check(asked !== null && /give --heads/.test(asked), "no request for --heads beside its box: " + asked);
  await setControl(tab, 'input[name="heads"]', "2");
  compareSteps("book .safetensors, --heads given after", await pageSteps(tab),
               cliSteps(gptDir, {stage: "gpt", weights: "book.safetensors", heads: "2"}));
  await waitFor(tab, `document.querySelector(".weights").getAttribute("data-weights") === "loaded"`, 60000);

  // 8. Read once, kept; the same files picked again are not read again; one model at a time.
  await openPage(tab, pageUrl + "#heads=2");
  const hfFiles = [path.join(hfDir, "model.safetensors"), path.join(hfDir, "config.json")];
  await pick(tab, hfFiles);
  await settled(tab, "loaded");
  check((await held(tab, "model.safetensors", "2")).weights_reads === 1, "a new page's worker read the file other than once");
  await setControl(tab, 'input[name="layer"]', "0");
  await setControl(tab, 'textarea[name="text"]', "Every effort moves");
  compareSteps("HF file, kept, --layer 0 and a text", await pageSteps(tab),
               cliSteps(hfDir, {stage: "gpt", weights: "model.safetensors", heads: "2", layer: "0", text: "Every effort moves"}));
  check((await held(tab, "model.safetensors", "2")).weights_reads === 1, "a control's change read the file again");
  // Another --heads walks the kept parameters with that head count: the CLI's steps, no read.
  await setControl(tab, 'input[name="heads"]', "4");
  compareSteps("HF file, kept, --heads 4", await pageSteps(tab),
               cliSteps(hfDir, {stage: "gpt", weights: "model.safetensors", heads: "4", layer: "0", text: "Every effort moves"}));
  check((await held(tab, "model.safetensors", "4")).weights_reads === 1, "another --heads read the file again");
  await setControl(tab, 'input[name="heads"]', "2");
  await pick(tab, hfFiles);
  await settled(tab, "loaded");
  check((await held(tab, "model.safetensors", "2")).weights_reads === 1, "the same files picked again were read again");
  // Another file is read (once); back and forth, malloc holds one model, not one per file read.
  const inUse = [];
  for (let k = 0; k < 3; k++) {
    await drop(tab, [path.join(gptDir, "book.pth")]);
    await settled(tab, "loaded");
    await pick(tab, hfFiles);
    await settled(tab, "loaded");
    inUse.push((await held(tab, "model.safetensors", "2")).malloc_bytes);
  }
  const reads = (await held(tab, "model.safetensors", "2")).weights_reads;
  check(reads === 7, `three switches between two files: ${reads} reads, expected 7 (1 + 2 each)`);
  const bookBytes = fs.statSync(path.join(gptDir, "book.pth")).size;
  check(inUse[2] - inUse[0] < bookBytes / 2, `malloc's bytes grow with the files read: ${inUse.join(", ")}`);

  // 9. The picker in Chinese: the open file's name beside a button of the page's language.
  await openPage(tab, pageUrl + "#lang=zh");
  await pick(tab, hfFiles);
  await settled(tab, "loaded");
  await pickerAgrees(tab, "model.safetensors", "已打开：model.safetensors", "选择文件…");
  const zhHeader = await evaluate(tab, `document.querySelector("#aw-walk header").textContent`);
  check(/第 4 章/.test(zhHeader) && /模型/.test(zhHeader) && !/d_out/.test(zhHeader), "the zh gpt header: " + zhHeader);
  // The reader's notes, the controls' labels, the defaults beside the empty boxes and an error
  // of --layer: Chinese on a Chinese page.
  const zhNotes = await evaluate(tab, `Array.from(document.querySelectorAll(".weights .weights-note")).map(function (n) { return n.textContent; })`);
  check(zhNotes.length > 0 && zhNotes.every((t) => /[\u4e00-\u9fff]/.test(t)), "the file's notes on a zh page: " + JSON.stringify(zhNotes));
  const zhLabels = await plainLabels(tab);
  const same = Object.keys(zhLabels).filter((k) => enLabels[k] !== undefined && zhLabels[k] === enLabels[k] && /[a-z]{3}/i.test(zhLabels[k]));
  check(Object.keys(zhLabels).length >= 20 && same.length === 0, "controls labelled in English on a zh page: " + same.join(", "));
  const zhDefaults = await evaluate(tab, `["layer", "head"].map(function (n) { var d = document.getElementById("aw-default-" + n); return d ? d.textContent : null; })`);
  check(zhDefaults.every((t) => /^不填/.test(t || "")), "the defaults beside --layer and --head on a zh page: " + JSON.stringify(zhDefaults));
  await setControl(tab, 'input[name="layer"]', String(read0.n_layers + 3));
  const bad = await evaluate(tab, `(function () { var f = document.querySelector('input[name="layer"]'), n = f.closest("label").querySelector(".field-error");
    var r = n ? n.getBoundingClientRect() : null;
    return {invalid: f.getAttribute("aria-invalid"), note: n ? n.textContent : null, on: !!r && r.top >= 0 && r.bottom <= innerHeight}; })()`);
  check(bad.invalid === "true" && bad.on && bad.note === `--layer：模型有 ${read0.n_layers} 个块，编号 0 到 ${read0.n_layers - 1}，没有 ${read0.n_layers + 3}`,
        "--layer past the blocks on a zh page: " + JSON.stringify(bad));
  // A truncated file on a zh page: the reader's error in Chinese, as the CLI says it with --lang zh.
  const zh = await dropTruncated(tab, "zh");
  fs.rmSync(zh.dir, {recursive: true, force: true});
  check(zh.cli.status === 1 && /[\u4e00-\u9fff]/.test(zh.want) && !/cannot|truncated|header/.test(zh.want),
        "the CLI on the truncated file with --lang zh: exit " + zh.cli.status + ", " + zh.want);
  check(zh.shown !== null && zh.shown.length > 0 && zh.want.includes(zh.shown),
        `on a zh page the page shows ${JSON.stringify(zh.shown)}, the CLI with --lang zh says ${JSON.stringify(zh.want)}`);

  // 7. Nothing left the page.
  const outside = tab.requests.filter((u) => !(u.startsWith(pageUrl.split("#")[0]) || u.startsWith("data:") ||
                                                u.startsWith("blob:null/") || u === "about:blank"));
  check(outside.length === 0, "requests left the page: " + outside.slice(0, 5).join(" "));
  check(tab.console.length === 0, "script errors in the page: " + tab.console.slice(0, 3).join("\n"));
}

runInBrowser("a learner's GPT-2 weights in the web page", main);
