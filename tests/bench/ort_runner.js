// ONNX Runtime (npm's onnxruntime-node, CPU) timing the exported MultiHeadAttention, for
// tests/bench/bench_compare.py. Usage: node ort_runner.js MODEL.onnx X.bin B T D THREADS REPEAT Y.bin
// X.bin is the input as raw little-endian float32; Y.bin receives the output the same way.
// Prints {"median_ms", "min_ms", "peak_rss_mib"} as JSON.
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

async function main() {
  const [model, xPath, B, T, D, threads, repeat, yPath] = process.argv.slice(2);
  const dims = [Number(B), Number(T), Number(D)];
  const raw = fs.readFileSync(xPath);
  const x = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threads),
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  const feeds = { [session.inputNames[0]]: new ort.Tensor("float32", x, dims) };
  let out = await session.run(feeds);  // warm-up
  const ms = [];
  for (let r = 0; r < Number(repeat); ++r) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const y = out[session.outputNames[0]].data;
  fs.writeFileSync(yPath, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
  ms.sort((a, b) => a - b);
  const n = ms.length;
  const median = n % 2 ? ms[(n - 1) / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  console.log(JSON.stringify({ median_ms: median, min_ms: ms[0],
                               peak_rss_mib: process.resourceUsage().maxRSS / 1024 }));
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
