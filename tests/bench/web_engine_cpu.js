// CPU time of the web page's engine per walk, in Node (immune to a busy machine's scheduling):
//   NODE_PATH=/usr/share/nodejs node tests/bench/web_engine_cpu.js build/wasm/attn-walk-engine.js
"use strict";
const path = require("path");
const engineJs = path.resolve(process.argv[2] || "build/wasm/attn-walk-engine.js");
const create = require(engineJs);
// The wasm beside the loader, given to it directly: emscripten 3.1.6's loader would try to
// fetch() a plain path under Node 20.
const wasmBinary = require("fs").readFileSync(engineJs.replace(/\.js$/, ".wasm"));
const c0 = process.cpuUsage();
create({wasmBinary}).then(m => {
  const c1 = process.cpuUsage(c0);
  console.log("instantiate cpu ms", ((c1.user + c1.system) / 1000).toFixed(1));
  for (const st of ["dot-product","softmax","trainable","causal","dropout","multi-head","all"]) {
    const times = [];
    for (let k = 0; k < 15; k++) {
      const a = process.cpuUsage();
      m.ccall("attn_walk_run","string",["string","string","number"],[JSON.stringify(["--stage",st,"--seed",String(k)]),"",0]);
      const d = process.cpuUsage(a); times.push((d.user + d.system) / 1000);
    }
    times.sort((a,b)=>a-b);
    console.log(st, "median cpu ms", times[7].toFixed(1), "min", times[0].toFixed(1));
  }
});
