// The page's engine computes the CLI's bits at GPT-2 size. Its products run WebAssembly SIMD128
// tiles (src/kernels/gemm_simd128.cpp): fused with f32x4.relaxed_madd where the browser's fuses
// (checked once at start), else an exact emulation of the fused multiply-add. Both are checked:
//
//   node tests/browser/test_web_simd.js PAGE.html ATTN-WALK-BINARY [--bench]
//
// 1. `attn-walk bench` in the page (one thread) at GPT-2's width, D = 768 with 12 heads, and at
//    sizes that leave edge tiles (T, D not multiples of the tile): y's sum, abs_sum and first
//    values are the native binary's, bit for bit; and on an x86-64 CPU with FMA, Chromium's
//    relaxed multiply-add fuses, so the bench must report the fused kernel.
// 2. A multi-head walk of --text at GPT-2's width (--embed-dim 768 --d-out 768 --heads 12):
//    every step's float32 values are the CLI's (a hash of each step's values, computed in the
//    page, against the same hash of the CLI's JSON).
// 3. The fma tie walk (tests/golden/walks/fma_tie.json) and the small default walk: the CLI's
//    values.
// 4. The exact route: the engine (PAGE's folder/../wasm/attn-walk-engine.js) in Node with
//    relaxed SIMD off (--no-experimental-wasm-relaxed-simd: the relaxed module is rejected); on
//    (--experimental-wasm-relaxed-simd) but createAttnWalk({attnWalkExactFma: true}); and on
//    alone (fused, where the CPU has FMA): the bench and the D = 768 walk are the native
//    binary's bits, and each reports its kernel.
// --bench: also `attn-walk bench` at T = 128 and 1024 in the page beside the native binary on
//    one thread, several interleaved runs, minima printed as JSON.
"use strict";
const {execFileSync} = require("child_process");
const fs = require("fs");
const path = require("path");
const {evaluate} = require("./cdp");
const {check, openPage, pageArgs, runInBrowser} = require("./harness");

const child = process.argv[2] === "--node-engine";  // part 4's child: ENGINE.js JOB
const {page, binary, pageUrl} = child ? {} : pageArgs("node test_web_simd.js PAGE.html ATTN-WALK-BINARY [--bench]");
const bench = process.argv.includes("--bench");
// Chromium's relaxed multiply-add is a fused one where the CPU has FMA (x86-64 here).
const cpuHasFma = process.arch === "x64" && fs.existsSync("/proc/cpuinfo") &&
                  / fma /.test(fs.readFileSync("/proc/cpuinfo", "utf8").replace(/\n/g, " "));
const fused = "simd128_relaxed_madd", exact = "simd128_exact_emulation";

// FNV-1a over a string's UTF-16 code units: the same function in the page and here.
const hashSource = `function (s) { var h = 2166136261; for (var i = 0; i < s.length; i++) {
  h ^= s.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; } return h; }`;
const hash = eval("(" + hashSource + ")");

function nativeBench(T, D, H, repeat) {
  return JSON.parse(execFileSync(binary, ["bench", "--tokens", String(T), "--d-model", String(D), "--heads", String(H),
    "--repeat", String(repeat), "--threads", "1", "--no-probe", "--format", "json"]).toString());
}
const benchBits = (b) => JSON.stringify([b.sum, b.abs_sum, b.first, b.shape]);

// The walk's steps as [name, shape, hash of the values' JSON], in the page and from the CLI.
async function pageWalk(tab, args, input) {
  return evaluate(tab, `(function () { var hash = ${hashSource};
    var r = window.attnWalk.run(${JSON.stringify(args)}, ${JSON.stringify(input)}, true);
    if (!r || !r.json) return null;
    return JSON.parse(r.json).steps.map(function (s) { return [s.name, JSON.stringify(s.shape), hash(JSON.stringify(s.data))]; });
  })()`);
}
function cliWalk(args, input) {
  const all = args.concat(["--format", "json"]).concat(input ? ["--input", "-"] : []);
  const out = JSON.parse(execFileSync(binary, all, {input: input || "", maxBuffer: 1 << 30}).toString());
  return out.steps.map((s) => [s.name, JSON.stringify(s.shape), hash(JSON.stringify(s.data))]);
}
function compareWalks(label, got, want) {
  check(Array.isArray(got), `${label}: the page's engine gave no walk`);
  if (!Array.isArray(got)) return;
  check(got.length === want.length, `${label}: ${got.length} steps in the page, the CLI has ${want.length}`);
  want.forEach((w, i) => check(JSON.stringify(got[i]) === JSON.stringify(w),
                               `${label}: step ${w[0]}: the page's values differ from the CLI's`));
}

const benchSizes = [[128, 768, 12], [37, 48, 4], [5, 12, 3], [67, 100, 5]];
// Node 20 has relaxed SIMD behind this flag; --no-experimental-wasm-relaxed-simd turns it off
// (in a Node where it is on by default too).
const relaxedFlag = "--experimental-wasm-relaxed-simd";

// The child of part 4: the engine in this Node, its bench at `benches` and the walk `walk`'s
// steps as pageWalk gives them, printed as JSON.
function nodeEngine(engineJs, job) {
  const wasmBinary = fs.readFileSync(engineJs.replace(/\.js$/, ".wasm"));
  require(engineJs)({wasmBinary, attnWalkExactFma: job.exactHook}).then((m) => {
    const benches = job.benches.map(([T, D, H]) =>
      JSON.parse(m.ccall("attn_walk_bench", "string", ["number", "number", "number", "number"], [T, D, H, 1])));
    const answer = m.ccall("attn_walk_run", "string", ["string", "string", "number"], [JSON.stringify(job.walk), "", 1]);
    const meta = JSON.parse(answer.slice(0, answer.indexOf("\n") < 0 ? answer.length : answer.indexOf("\n")));
    const walk = meta.json ? JSON.parse(meta.json).steps.map((s) => [s.name, JSON.stringify(s.shape), hash(JSON.stringify(s.data))]) : null;
    process.stdout.write(JSON.stringify({benches, walk}));
  });
}

async function main(browser) {
  const tab = await browser.newTab();
  await openPage(tab, pageUrl);

  // 1. Products at GPT-2's width, and with edge tiles.
  for (const [T, D, H] of benchSizes) {
    const web = await evaluate(tab, `window.attnWalk.bench(${T}, ${D}, ${H}, 1)`);
    check(web && web.ok, `bench ${T} ${D} ${H} in the page: ${JSON.stringify(web)}`);
    if (!web || !web.ok) continue;
    check(benchBits(web.bench) === benchBits(nativeBench(T, D, H, 1)),
          `bench T=${T} D=${D} heads=${H}: the page's y differs from the native one`);
    check(web.bench.isa === fused || (!cpuHasFma && web.bench.isa === exact),
          `bench in Chromium: the products ran ${web.bench.isa}, not ${fused}`);
  }

  // 2. A multi-head walk of text at GPT-2's width.
  const text = "Every effort moves you forward, and the attention of a model looks back at the words before it.";
  const wide = ["--stage", "multi-head", "--text", text, "--embed-dim", "768", "--d-out", "768", "--heads", "12"];
  compareWalks("multi-head at D = 768", await pageWalk(tab, wide, ""), cliWalk(wide, null));

  // 3. The small walks: the fma tie and the chapter's default, every stage.
  const tie = JSON.parse(fs.readFileSync(path.join(__dirname, "../golden/walks/fma_tie.json"), "utf8"));
  const tieInput = JSON.stringify({tokens: tie.tokens, embeddings: tie.embeddings});
  compareWalks("fma tie", await pageWalk(tab, ["--stage", "all"], tieInput), cliWalk(["--stage", "all"], tieInput));
  compareWalks("default", await pageWalk(tab, ["--stage", "all"], ""), cliWalk(["--stage", "all"], null));

  // 4. The exact route, and the fused one, in Node.
  const engine = path.join(path.dirname(path.resolve(page)), "../wasm/attn-walk-engine.js");
  const runs = [["no relaxed SIMD", ["--no" + relaxedFlag.slice(1)], false, exact],
                ["attnWalkExactFma", [relaxedFlag], true, exact],
                ["relaxed SIMD", [relaxedFlag], false, cpuHasFma ? fused : null]];
  for (const [label, flags, exactHook, kernel] of runs) {
    const out = execFileSync(process.execPath, flags.concat([__filename, "--node-engine", engine,
      JSON.stringify({exactHook, benches: benchSizes, walk: wide})]), {maxBuffer: 1 << 30}).toString();
    const got = JSON.parse(out);
    got.benches.forEach((b, i) => {
      const [T, D, H] = benchSizes[i];
      check(b.ok && benchBits(b.bench) === benchBits(nativeBench(T, D, H, 1)),
            `Node, ${label}: bench T=${T} D=${D} heads=${H} differs from the native one`);
      check(!kernel || (b.ok && b.bench.isa === kernel), `Node, ${label}: the products ran ${b.ok && b.bench.isa}, not ${kernel}`);
    });
    compareWalks(`Node, ${label}: multi-head at D = 768`, got.walk, cliWalk(wide, null));
  }

  if (bench) {
    // Interleaved: the page, then the native binary, `rounds` times; minima (the machine is shared).
    const rounds = 3;
    for (const [T, repeat] of [[128, 3], [1024, 1]]) {
      const web = [], native = [];
      for (let r = 0; r < rounds; r++) {
        const w = await evaluate(tab, `window.attnWalk.bench(${T}, 768, 12, ${repeat})`);
        web.push(w.bench.median_ms);
        native.push(nativeBench(T, 768, 12, repeat).median_ms);
      }
      const min = (xs) => Math.min.apply(null, xs);
      console.log(JSON.stringify({bench_tokens: T, web_ms: web, native_1_thread_ms: native, web_min_ms: min(web),
        native_min_ms: min(native), web_over_native_1_thread: +(min(native) / min(web)).toFixed(4)}));
    }
  }
}

if (child) nodeEngine(path.resolve(process.argv[3]), JSON.parse(process.argv[4]));
else runInBrowser("the page's engine gives the CLI's bits at GPT-2 size", main);
