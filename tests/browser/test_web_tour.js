// The page of `make web` for a learner who has never seen it (issue 42), in headless chromium at
// a phone's width (390 px) and a desktop's (1280 px), in English and Chinese where the words
// matter. Each check reads what is displayed or does what a learner does:
//
//   node tests/browser/test_web_tour.js PAGE.html ATTN-WALK-BINARY [--shots DIR]
//
// 1. Where to start: two lines above the settings say what this is and what to try; the stage
//    list shows the chapter's sections and plain names in groups; the languages by name.
// 2. Plain labels: every control of every stage has a plain label (the flag as a hint); the
//    defaults are values in the boxes; the bonus stages show the sizes they walk (d_out 8,
//    4 heads) in their boxes and header.
// 3. Errors where the learner looks: heads 3 with d_out 2 marks the field and says why beside
//    it, on screen; in Chinese on a Chinese page; bad JSON in plain words.
// 4. Stop: a value typed during a stopped walk goes back with the walk and the fragment; the
//    first walk of a shared link stopped keeps the link's settings and says so, on screen; the progress
//    line says "step N of M" and M is the walk's number of steps.
// 5. The losses' plot fits a phone and titles its axes.
// 6. The rest: the embeddings' cells are named by row and column; the flag hints and the
//    placeholders reach 4.5:1 contrast (light and dark); 15 tokens suggest each matrix's own
//    heatmap scale (one click); one-glyph heatmap labels are upright; on a phone a line says
//    the embeddings table scrolls sideways.
"use strict";
const {execFileSync} = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");
const {evaluate, waitFor} = require("./cdp");
const {act, check, click, openPage, pageArgs, runInBrowser, setControl} = require("./harness");

const {binary, pageUrl} = pageArgs("node test_web_tour.js PAGE.html ATTN-WALK-BINARY [--shots DIR]");
const shotsAt = process.argv.indexOf("--shots");
const shots = shotsAt > 0 ? process.argv[shotsAt + 1] : null;

const PHONE = {width: 390, height: 844, deviceScaleFactor: 2, mobile: true};
const DESKTOP = {width: 1280, height: 900, deviceScaleFactor: 1, mobile: false};
const open = (tab, hash) => openPage(tab, pageUrl + hash, 60000);
const text = (tab, sel) => evaluate(tab, `(document.querySelector(${JSON.stringify(sel)}) || {}).textContent`);
const errorText = (tab) => text(tab, "#aw-error");
// The settings folded on a phone: open them, as a learner taps "Settings".
const unfold = (tab) => evaluate(tab, `(function () { var d = document.querySelector("#aw-controls details"); d.open = true; return true; })()`);

async function shot(tab, name) {
  if (!shots) return;
  const {data} = await tab.send("Page.captureScreenshot", {format: "png"});
  fs.mkdirSync(shots, {recursive: true});
  fs.writeFileSync(path.join(shots, name + ".png"), Buffer.from(data, "base64"));
}

// A walk of some seconds (multi-head at GPT-2's width on a text of about 440 tokens).
const longText = Array(40).fill("Every effort moves you forward, and attention looks back.").join(" ");
const longHash = "#stage=multi-head&text=" + encodeURIComponent(longText) + "&embed-dim=768&d-out=768&heads=12";

// WCAG's contrast of two CSS colours "rgb(r, g, b)" / "rgba(...)" (an alpha below 1 is
// composed over the second, the background).
function contrast(fg, bg) {
  const parse = (c) => c.match(/[\d.]+/g).map(Number);
  const [r, g, b, a = 1] = parse(fg), [R, G, B] = parse(bg);
  const mix = [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)];
  const lum = (rgb) => {
    const [x, y, z] = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * x + 0.7152 * y + 0.0722 * z;
  };
  const l1 = lum(mix), l2 = lum([R, G, B]);
  return (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
}
// The colour of an element's text (or its ::placeholder) and of the first opaque background
// behind it, from computed styles.
const colours = (tab, sel, pseudo) => evaluate(tab, `(function () {
  var e = document.querySelector(${JSON.stringify(sel)});
  if (!e) return null;
  var fg = getComputedStyle(e, ${JSON.stringify(pseudo || null)}).color, bg = null;
  for (var p = e; p && !bg; p = p.parentElement) {
    var c = getComputedStyle(p).backgroundColor;
    if (c && c !== "transparent" && !/rgba\\(.*, 0\\)$/.test(c)) bg = c;
  }
  return {fg: fg, bg: bg || "rgb(255, 255, 255)", size: getComputedStyle(e).fontSize}; })()`);

// 1. Where to start.
async function whereToStart(tab, width) {
  for (const [lang, what, tryFirst] of [["en", /Chapter 3 of Build a Large Language Model/, /Try first: in Settings below, pick a stage/],
                                        ["zh", /第 3 章“编码注意力机制”/, /先试试：/]]) {
    await open(tab, lang === "zh" ? "#lang=zh" : "");
    const intro = await evaluate(tab, `(function () {
      var i = document.getElementById("aw-intro"), f = document.getElementById("aw-controls");
      var r = i.getBoundingClientRect();
      return {what: i.querySelector(".what").textContent, try: (i.querySelector(".try") || {}).textContent,
              top: r.top, bottom: r.bottom, formTop: f.getBoundingClientRect().top, visible: r.height > 0}; })()`);
    check(what.test(intro.what) && tryFirst.test(intro.try || ""), `${width} px ${lang}: the intro says ${JSON.stringify(intro)}`);
    check(intro.visible && intro.bottom <= intro.formTop && intro.top < 300,
          `${width} px ${lang}: the intro is not the first thing on the page (${JSON.stringify(intro)})`);
    if (width === 390) await shot(tab, `tour-start-${lang}-phone`);
    else await shot(tab, `tour-start-${lang}-desktop`);
  }
  await open(tab, "");
  await unfold(tab);
  const stages = await evaluate(tab, `(function () {
    var s = document.querySelector('#aw-controls select[name="stage"]');
    return {groups: Array.from(s.querySelectorAll("optgroup")).map(function (g) {
              return [g.label, Array.from(g.querySelectorAll("option")).map(function (o) { return [o.value, o.textContent]; })]; }),
            langs: Array.from(document.querySelectorAll('#aw-controls select[name="lang"] option')).map(function (o) { return o.textContent; })}; })()`);
  const all = [].concat(...stages.groups.map((g) => g[1]));
  const byValue = Object.fromEntries(all);
  check(byValue["dot-product"] === "3.3 Attention scores as dot products", `stage list: dot-product reads ${JSON.stringify(byValue["dot-product"])}`);
  check(byValue["causal"] === "3.5.1 Causal attention: hiding future tokens", `stage list: causal reads ${JSON.stringify(byValue.causal)}`);
  check(all.every(([v, t]) => t !== v), `stage list: a raw id shows: ${JSON.stringify(all.filter(([v, t]) => t === v))}`);
  const bonus = stages.groups.find((g) => /bonus/.test(g[0]));
  check(bonus && ["kv-cache", "mla", "flash", "bonus"].every((v) => bonus[1].some((o) => o[0] === v)),
        `stage list: the bonus stages are not grouped: ${JSON.stringify(stages.groups.map((g) => g[0]))}`);
  check(JSON.stringify(stages.langs) === JSON.stringify(["English", "中文"]), `languages shown as ${JSON.stringify(stages.langs)}`);
  await open(tab, "#lang=zh");
  await unfold(tab);
  const zh = await evaluate(tab, `(function () { var o = document.querySelector('#aw-controls select[name="stage"] option[value="kv-cache"]');
    return [o.textContent, o.parentNode.label]; })()`);
  check(zh[0] === "KV 缓存：一次一个词元" && /附加/.test(zh[1]), `zh stage list: kv-cache reads ${JSON.stringify(zh)}`);
}

// 2. Plain labels, defaults as values, the bonus stages' sizes.
async function labels(tab) {
  for (const lang of ["en", "zh"]) {
    for (const stage of ["causal", "flash", "backward", "multi-head"]) {
      await open(tab, `#stage=${stage}&lang=${lang}` + (stage === "backward" ? "&steps=3" : ""));
      const bare = await evaluate(tab, `Array.from(document.querySelectorAll("#aw-controls label")).filter(function (l) {
          var f = l.querySelector("[name]"), s = l.querySelector(".lbl > span, label.flag > span");
          if (!f || !s) return false;
          var t = s.textContent.trim();
          return t === f.name || t === "--" + f.name || t === ""; }).map(function (l) { return l.querySelector("[name]").name; })`);
      check(bare.length === 0, `${lang} ${stage}: controls labelled only by their flag: ${bare.join(", ")}`);
      const hinted = await evaluate(tab, `Array.from(document.querySelectorAll("#aw-controls label [name]")).filter(function (f) {
          return f.name !== "text" && !f.closest("label").querySelector("code.hint"); }).map(function (f) { return f.name; })`);
      check(hinted.length === 0, `${lang} ${stage}: controls without their flag as a hint: ${hinted.join(", ")}`);
    }
  }
  await open(tab, "#stage=backward&steps=3&lang=zh");
  const bw = await evaluate(tab, `["steps", "lr", "weight-decay", "optimizer"].map(function (n) {
    return document.querySelector('#aw-controls [name="' + n + '"]').closest("label").querySelector("span").textContent; })`);
  check(JSON.stringify(bw) === JSON.stringify(["训练步数 --steps", "学习率 --lr", "权重衰减 --weight-decay", "优化器 --optimizer"]),
        `zh backward labels: ${JSON.stringify(bw)}`);
  // Defaults are values; the seed's two are said beside its box.
  await open(tab, "#stage=causal");
  const boxes = await evaluate(tab, `(function () { function v(n) { return document.querySelector('#aw-controls [name="' + n + '"]').value; }
    var seed = document.querySelector('#aw-controls [name="seed"]').closest("label");
    return {dout: v("d-out"), dropout: v("dropout"), query: v("query"), seedNote: (seed.querySelector(".default") || {}).textContent || "",
            placeholders: Array.from(document.querySelectorAll('#aw-controls input[type="text"][placeholder]')).map(function (i) { return i.name; })}; })()`);
  check(boxes.dout === "2" && boxes.dropout === "0.5" && boxes.query === "2", `causal: the boxes show ${JSON.stringify(boxes)}`);
  check(/123 and 789/.test(boxes.seedNote), `causal: the seed's default is not shown: ${JSON.stringify(boxes.seedNote)}`);
  check(boxes.placeholders.length === 0, `causal: defaults as placeholders: ${boxes.placeholders.join(", ")}`);
  check(await evaluate(tab, "location.hash") === "#stage=causal", "causal: the defaults shown went into the fragment");
  // The bonus stages' own sizes, in the boxes and in the header.
  await open(tab, "#stage=flash");
  const flash = await evaluate(tab, `({dout: document.querySelector('#aw-controls [name="d-out"]').value,
    heads: document.querySelector('#aw-controls [name="heads"]').value,
    header: Array.from(document.querySelectorAll("#aw-walk header p.meta")).map(function (p) { return p.textContent; }).join(" | ")})`);
  check(flash.dout === "8" && flash.heads === "4", `flash: the boxes say d_out ${flash.dout}, heads ${flash.heads}`);
  check(/d_out 8 · heads 4/.test(flash.header), `flash: the header says ${JSON.stringify(flash.header)}`);
  // Typing the chapter's 2 on a bonus stage is a choice the link keeps.
  await setControl(tab, `#aw-controls input[name="heads"]`, "2");
  await setControl(tab, `#aw-controls input[name="d-out"]`, "2");
  check(/d-out=2/.test(await evaluate(tab, "location.hash")), "flash: d-out 2 typed is not in the fragment");
  check(/d_out 2 · heads 2/.test(await text(tab, "#aw-walk header")), "flash: d-out 2 heads 2 typed, the header says otherwise");
  await setControl(tab, `#aw-controls select[name="stage"]`, "causal", "change");
  // A page written by --format html (its walk fixed): the same sizes in its boxes.
  const file = path.join(os.tmpdir(), `attn-walk-tour-${process.pid}.html`);
  fs.writeFileSync(file, execFileSync(binary, ["--stage", "flash", "--format", "html"]));
  try {
    await tab.send("Page.navigate", {url: "file://" + file});
    await waitFor(tab, `document.readyState === "complete" && !!document.querySelector('#aw-controls [name="d-out"]')`, 30000);
    const fixed = await evaluate(tab, `[document.querySelector('#aw-controls [name="d-out"]').value,
      document.querySelector('#aw-controls [name="heads"]').value, document.querySelector("#aw-intro .what").textContent]`);
    check(fixed[0] === "8" && fixed[1] === "4" && /^Chapter 3 of/.test(fixed[2]), `--format html, flash: the boxes say ${JSON.stringify(fixed)}`);
  } finally {
    fs.unlinkSync(file);
  }
}

// Is the element on screen (its box inside the viewport)?
const onScreen = (tab, sel) => evaluate(tab, `(function () { var e = document.querySelector(${JSON.stringify(sel)});
  if (!e) return false; var r = e.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight && r.left >= 0 && r.right <= window.innerWidth; })()`);

// 3. Errors beside the field.
async function errors(tab, width) {
  for (const lang of ["en", "zh"]) {
    await open(tab, `#stage=multi-head&lang=${lang}`);
    await unfold(tab);
    await setControl(tab, `#aw-controls input[name="heads"]`, "3");
    const e = await evaluate(tab, `(function () { var f = document.querySelector('#aw-controls input[name="heads"]');
      var note = f.closest("label").querySelector(".field-error");
      return {invalid: f.getAttribute("aria-invalid"), note: note ? note.textContent : null}; })()`);
    check(e.invalid === "true", `${width} px ${lang}: heads 3: the field is not marked`);
    check(e.note !== null, `${width} px ${lang}: heads 3: no message beside the field`);
    check(await onScreen(tab, "#aw-controls .field-error"), `${width} px ${lang}: heads 3: the message is off screen`);
    if (lang === "en")
      check(/d_out 2 cannot be split into 3 heads/.test(e.note || ""), `${width} px en: heads 3 says ${JSON.stringify(e.note)}`);
    else
      check(/d_out 2 无法平均分成 3 个头/.test(e.note || "") && /下面仍是上一次成功计算的结果/.test(await errorText(tab)),
            `${width} px zh: heads 3 says ${JSON.stringify(e.note)}`);
    await shot(tab, `tour-error-${lang}-${width}`);
    // Fixed: the mark and the message go.
    await setControl(tab, `#aw-controls input[name="heads"]`, "2");
    check(await evaluate(tab, `document.querySelectorAll("#aw-controls .field-error, #aw-controls [aria-invalid]").length`) === 0,
          `${width} px ${lang}: heads back to 2: the error stays`);
  }
  // Bad JSON on a Chinese page: Chinese, plain words, beside the box.
  await open(tab, "#stage=causal&lang=zh");
  await unfold(tab);
  await act(tab, `(function () { var t = document.querySelector("#aw-controls textarea.paste");
    t.value = '{"tokens": ["a", "b"], "embeddings": [[1, 2], [3, hello]]}';
    document.querySelector("#aw-controls button.apply").click(); })()`);
  const json = await evaluate(tab, `(function () { var n = document.querySelector("#aw-controls .emb .field-error"); return n ? n.textContent : ""; })()`);
  check(/^嵌入向量：第 1 行第 \d+ 列：JSON 读不懂这里以 'h' 开头的内容/.test(json) && !/invalid literal|last read/.test(json),
        `${width} px zh: bad JSON says ${JSON.stringify(json)}`);
  check(await onScreen(tab, "#aw-controls .emb .field-error"), `${width} px zh: the JSON message is off screen`);
}

// 4. Stop, and the progress line's total.
async function stop(tab) {
  // A value typed while a long walk runs, then Stop: the box, the walk and the fragment agree.
  await open(tab, "#stage=causal&seed=5");
  await unfold(tab);
  await evaluate(tab, `location.hash = ${JSON.stringify(longHash)}; 0`);
  await waitFor(tab, `!document.getElementById("aw-busy").hidden`, 20000);
  await evaluate(tab, `(function () { var e = document.querySelector('#aw-controls input[name="seed"]');
    e.value = "77"; e.dispatchEvent(new Event("input")); })()`);
  await click(tab, "#aw-busy button.stop");
  await waitFor(tab, `!window.attnWalk.busy()`, 10000);
  const after = await evaluate(tab, `({seed: document.querySelector('#aw-controls input[name="seed"]').value, hash: location.hash,
    stage: document.querySelector('#aw-controls select[name="stage"]').value, walk: document.querySelector("#aw-walk section.walk").getAttribute("data-stage"),
    error: document.getElementById("aw-error").textContent})`);
  check(after.seed === "5" && after.hash === "#stage=causal&seed=5" && after.stage === "causal" && after.walk === "causal",
        `Stop with 77 typed: the box, the fragment and the walk disagree: ${JSON.stringify(after)}`);
  check(/^Stopped before the walk was done/.test(after.error), `Stop: the page says ${JSON.stringify(after.error)}`);
  check(await onScreen(tab, "#aw-error"), "Stop: the page says so off screen");

  // The first walk of a shared link, stopped: the link's settings stay, the page says so.
  await tab.send("Page.navigate", {url: "about:blank"});
  await waitFor(tab, `location.href === "about:blank"`);
  await tab.send("Page.navigate", {url: pageUrl + longHash});
  await waitFor(tab, `!!document.getElementById("aw-busy") && !document.getElementById("aw-busy").hidden`, 30000);
  await click(tab, "#aw-busy button.stop");
  await waitFor(tab, `document.body.getAttribute("data-ready") === "1"`, 10000);
  const link = await evaluate(tab, `({hash: location.hash, text: (document.querySelector('#aw-controls textarea[name="text"]') || {}).value,
    stage: document.querySelector('#aw-controls select[name="stage"]').value, error: document.getElementById("aw-error").textContent,
    again: !!document.querySelector("#aw-error button.walk-again")})`);
  check(link.hash === longHash, `a shared link stopped: the fragment became ${JSON.stringify(link.hash.slice(0, 80))}`);
  check(link.text === longText && link.stage === "multi-head", `a shared link stopped: the settings were lost (${link.stage}, ${(link.text || "").slice(0, 30)})`);
  check(/^Stopped before the walk was done: the settings of the link are kept/.test(link.error) && link.again,
        `a shared link stopped: the page says ${JSON.stringify(link.error)}`);
  check(await onScreen(tab, "#aw-error"), "a shared link stopped: the page says so off screen");
  check(await evaluate(tab, `getComputedStyle(document.getElementById("aw-error")).fontFamily.indexOf("mono") < 0 &&
    document.getElementById("aw-error").classList.contains("stopped")`), "a shared link stopped: said as an error, not as a notice");
  await shot(tab, "tour-stopped-link");

  // Walk again: the progress line gives the total, which is the walk's number of steps.
  await click(tab, "#aw-error button.walk-again");
  await waitFor(tab, `!document.getElementById("aw-busy").hidden`, 20000);
  const lines = [];
  let total = 0;
  for (;;) {
    const s = await evaluate(tab, `({busy: window.attnWalk.busy(), line: document.querySelector("#aw-busy .busy-text").textContent,
      total: Number(document.getElementById("aw-busy").getAttribute("data-total"))})`);
    if (!s.busy) break;
    lines.push(s.line);
    if (s.total) total = s.total;
    await new Promise((r) => setTimeout(r, 200));
  }
  const steps = await evaluate(tab, `document.querySelectorAll("#aw-walk section.step").length`);
  // The plan (engine.cpp: the same walk at small widths) against the walk itself, for every
  // stage, with d_in equal to d_out and not (their equality changes the steps of some stages).
  const stageNames = await evaluate(tab, `Array.from(document.querySelectorAll('#aw-controls select[name="stage"] option')).map(function (o) { return o.value; })`);
  // (backward with --text takes widths up to 64: it refuses the second, which is left out.)
  for (const [dIn, dOut, heads] of [["64", "64", "4"], ["64", "80", "8"]]) {
    const plans = await evaluate(tab, `${JSON.stringify(stageNames)}.map(function (s) {
      var r = window.attnWalk.run(["--stage", s, "--text", "Your journey starts with one step, and attention looks back", "--embed-dim", "${dIn}",
                                   "--d-out", "${dOut}", "--heads", "${heads}"], "", false);
      return [s, r.ok ? r.planned : null, r.ok ? (r.html.match(/<section class="step"/g) || []).length : 0]; })`);
    const walked = plans.filter(([, planned]) => planned !== null);
    check(walked.length >= plans.length - 1, `the plans: refused ${JSON.stringify(plans.filter(([, p]) => p === null))}`);
    const wrong = walked.filter(([, planned, actual]) => planned !== actual);
    check(wrong.length === 0, `the planned steps differ from the walk's (embed ${dIn}, d_out ${dOut}): ${JSON.stringify(wrong)}`);
  }
  // The same for large pasted embeddings (30 tokens x 80, over 20 kB of JSON): planned on zeros.
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return (seed / 2147483648 - 0.5).toFixed(6); };
  const pasted = JSON.stringify({tokens: Array.from({length: 30}, (_, i) => "t" + i),
                                 embeddings: Array.from({length: 30}, () => Array.from({length: 80}, () => Number(rnd())))});
  check(pasted.length >= 20000, `the pasted embeddings are only ${pasted.length} characters`);
  for (const [dOut, heads] of [["80", "8"], ["64", "4"]]) {
    const plans = await evaluate(tab, `${JSON.stringify(stageNames)}.filter(function (s) { return s !== "tokens"; }).map(function (s) {
      var r = window.attnWalk.run(["--stage", s, "--d-out", "${dOut}", "--heads", "${heads}"], ${JSON.stringify(pasted)}, false);
      return [s, r.ok ? r.planned : r.message, r.ok ? (r.html.match(/<section class="step"/g) || []).length : 0]; })`);
    const wrong = plans.filter(([, planned, actual]) => planned !== actual);
    check(wrong.length === 0, `pasted embeddings, d_out ${dOut}: the planned steps differ from the walk's: ${JSON.stringify(wrong)}`);
  }
  check(lines.some((l) => /step \d+ of \d+/.test(l)), `progress: no "step N of M" in ${JSON.stringify(lines.slice(0, 4))}`);
  check(total === steps, `progress: the total shown is ${total}, the walk has ${steps} steps`);
  check(await errorText(tab) === "", "walk again: an error shows");
}

// 5. The losses' plot at this width.
async function lossPlot(tab, width) {
  for (const [lang, x, y] of [["en", "training step", "loss"], ["zh", "训练步", "损失"]]) {
    await open(tab, `#stage=backward&steps=5&lang=${lang}`);
    const p = await evaluate(tab, `(function () { var svg = document.querySelector('section.step[data-step="losses"] svg.series');
      svg.scrollIntoView({block: "center"});
      var r = svg.getBoundingClientRect(), box = svg.closest("section.step").getBoundingClientRect();
      return {left: r.left, right: r.right, width: r.width, boxRight: box.right, inner: window.innerWidth,
              x: (svg.querySelector(".axis-x") || {}).textContent, y: (svg.querySelector(".axis-y") || {}).textContent,
              scroll: document.scrollingElement.scrollWidth}; })()`);
    check(p.right <= p.boxRight + 0.5 && p.right <= p.inner && p.width > 200, `${width} px ${lang}: the plot does not fit: ${JSON.stringify(p)}`);
    check(p.scroll <= p.inner, `${width} px ${lang}: the page scrolls sideways (${p.scroll} px)`);
    check(p.x === x && p.y === y, `${width} px ${lang}: the axes are titled ${JSON.stringify([p.x, p.y])}`);
    if (lang === "en") await shot(tab, `tour-losses-${width}`);
  }
}

// 6. The rest.
async function theRest(tab, width) {
  await open(tab, "#stage=causal");
  await unfold(tab);
  const names = await evaluate(tab, `[document.querySelector('#aw-controls .emb input[data-row="1"][data-col="2"]').getAttribute("aria-label"),
    document.querySelector('#aw-controls .emb input[data-row="0"][data-col="0"]').getAttribute("aria-label")]`);
  check(JSON.stringify(names) === JSON.stringify(["row 2 (journey), column 3", "row 1 (Your), column 1"]), `cells named ${JSON.stringify(names)}`);
  // The table scrolls sideways on a phone, and a line says so; on a desktop it fits.
  const table = await evaluate(tab, `(function () { var s = document.querySelector("#aw-controls .emb-scroll"), h = document.querySelector("#aw-controls .emb .scroll-hint");
    return {overflows: s.scrollWidth > s.clientWidth + 1, hint: !h.hidden && h.getBoundingClientRect().height > 0, text: h.textContent}; })()`);
  if (width === 390) check(table.overflows && table.hint && /sideways/.test(table.text), `phone: the table's scroll hint: ${JSON.stringify(table)}`);
  else check(!table.overflows && !table.hint, `desktop: ${JSON.stringify(table)}`);
  await open(tab, "#stage=causal&lang=zh");
  await unfold(tab);
  const zhName = await evaluate(tab, `document.querySelector('#aw-controls .emb input[data-row="1"][data-col="2"]').getAttribute("aria-label")`);
  check(zhName === "第 2 行（journey），第 3 列", `zh cell named ${JSON.stringify(zhName)}`);
  // Contrast of the flag hints and the placeholder, light and dark.
  for (const scheme of ["light", "dark"]) {
    await tab.send("Emulation.setEmulatedMedia", {features: [{name: "prefers-color-scheme", value: scheme}]});
    await open(tab, "#stage=causal");
    await unfold(tab);
    const hint = await colours(tab, "#aw-controls code.hint");
    const ph = await colours(tab, '#aw-controls textarea[name="text"]', "::placeholder");
    const dflt = await colours(tab, "#aw-controls .default");
    for (const [what, c] of [["flag hint", hint], ["placeholder", ph], ["seed's default", dflt]]) {
      const ratio = contrast(c.fg, c.bg);
      check(ratio >= 4.5, `${scheme}: the ${what} is ${c.fg} on ${c.bg}, contrast ${ratio.toFixed(2)} (4.5 wanted)`);
    }
    check(parseFloat(hint.size) >= 12.5, `${scheme}: the flag hint is ${hint.size}`);
  }
  await tab.send("Emulation.setEmulatedMedia", {features: [{name: "prefers-color-scheme", value: "light"}]});
  // 15 tokens or more: the page suggests each matrix's scale; one click picks it.
  const many = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen";
  await open(tab, "#stage=causal&text=" + encodeURIComponent(many));
  const hint = await evaluate(tab, `(function () { var h = document.querySelector("#aw-walk .scale-hint"); return h ? h.textContent : null; })()`);
  check(hint !== null && /16 tokens/.test(hint), `16 tokens: the scale hint is ${JSON.stringify(hint)}`);
  if (hint !== null) {
    await click(tab, "#aw-walk .scale-hint button.use-scale");
    await waitFor(tab, `!window.attnWalk.busy()`, 60000);
    const after = await evaluate(tab, `({hash: location.hash, hint: !!document.querySelector("#aw-walk .scale-hint"),
      select: document.querySelector('#aw-controls select[name="heatmap-scale"]').value,
      legend: document.querySelectorAll("#aw-walk .legend").length})`);
    check(/heatmap-scale=matrix/.test(after.hash) && !after.hint && after.select === "matrix",
          `16 tokens: after the click ${JSON.stringify(after)}`);
  }
  await open(tab, "#stage=causal&text=" + encodeURIComponent("one two three"));
  check(await evaluate(tab, `!document.querySelector("#aw-walk .scale-hint")`), "3 tokens: the scale hint shows");
  // zh: the ↳ of a character's continuing token reads upright in the heatmaps' columns.
  await open(tab, "#stage=causal&lang=zh&text=" + encodeURIComponent("注意力"));
  const arrows = await evaluate(tab, `Array.from(document.querySelectorAll("#aw-walk svg.heatmap .cols text")).filter(function (t) {
    return t.textContent === "↳"; }).map(function (t) { return t.getAttribute("transform") || "upright"; })`);
  check(arrows.length > 0 && arrows.every((t) => t === "upright"), `zh: the ↳ column labels are drawn ${JSON.stringify(arrows.slice(0, 3))}`);
}

async function main(browser) {
  const tab = await browser.newTab();
  for (const [width, metrics] of [[390, PHONE], [1280, DESKTOP]]) {
    await tab.send("Emulation.setDeviceMetricsOverride", metrics);
    await whereToStart(tab, width);
    await errors(tab, width);
    await lossPlot(tab, width);
    await theRest(tab, width);
  }
  await labels(tab);
  await stop(tab);
  check(tab.console.length === 0, "script errors in the page: " + tab.console.slice(0, 3).join("\n"));
}

runInBrowser("the page for a learner who has never seen it", main);
