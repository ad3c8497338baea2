// The page's engine in a Web Worker, so that the page keeps answering while a walk runs (a walk
// at GPT-2's size takes minutes in WebAssembly). page.js (after this file, hover.js and
// embeddings.js, in the same script element) asks it for walks; neither computes anything. The
// worker is made from a Blob (a page opened from a file may not load a script file): the
// emscripten loader (the page's #aw-engine script) and workerMain below, given the engine's wasm
// compiled once here, so that a new worker starts without compiling it again. Also here: the wasm inflated from the
// page, and the engine on the page's own thread for window.attnWalk.run.
var AttnWalkWorker = (function () {
  "use strict";

  // One request to an engine (the loader's module object): {kind: "walk", args, input, json},
  // {kind: "bench", args}, {kind: "files", files}, {kind: "weights", args} or {kind: "data"};
  // the engine's answer, its text. The worker's and window.attnWalk.run's (the worker's copy of
  // it goes into its Blob, below).
  function engineAnswer(engine, m) {
    if (m.kind === "walk")
      return engine.ccall("attn_walk_run", "string", ["string", "string", "number"],
                          [JSON.stringify(m.args), m.input || "", m.json ? 1 : 0]);
    if (m.kind === "bench")
      return engine.ccall("attn_walk_bench", "string", ["number", "number", "number", "number"], m.args);
    if (m.kind === "files") {
      // The files the learner opened (File objects: handles, not bytes), in emscripten's WORKERFS
      // at /weights, the engine's working directory, so that --weights names a file by its own
      // name (and config.json, opened beside it, is beside it). WORKERFS reads a File slice by
      // slice where it lies; the engine reads it once into its own memory (src/weights/
      // mapped_file.cpp), the only copy, and keeps the model for the walks that follow
      // (engine.cpp, gpt_model). MEMFS would first need the whole file in JavaScript.
      // Only in a worker: WORKERFS reads with FileReaderSync.
      var FS = engine.FS, dir = "/weights";
      FS.chdir("/");
      try { FS.unmount(dir); } catch (e) { /* nothing mounted yet */ }
      try { FS.mkdir(dir); } catch (e) { /* made before */ }
      FS.mount(FS.filesystems.WORKERFS, {files: m.files}, dir);
      FS.chdir(dir);
      // The engine keeps the model it reads from them while the same files stay open (their names,
      // sizes and lastModified: the same file picked again is not read again; an edited one is).
      engine.ccall("attn_walk_files", null, ["string"], [JSON.stringify(m.files.map(function (f) {
        return [f.name, f.size, f.lastModified];
      }))]);
      return JSON.stringify({ok: true});
    }
    if (m.kind === "weights")
      return engine.ccall("attn_walk_weights", "string", ["string"], [JSON.stringify(m.args)]);
    return engine.ccall("attn_walk_data", "string", [], []);
  }

  // ---- in the worker: the engine, one request at a time ----
  function workerMain() {
    var engine = null, queue = [], current = null, lastPost = 0, lastBlock = 0;
    // The engine's progress (src/web/wasm/engine.cpp: each step as it is recorded, the parts
    // of a long step as they are done, then the rendering; with the steps the walk will
    // record, or 0 if not known, and the GPT block of the step, or 0), passed on at most every
    // 40 ms (a small walk records dozens of steps in a few milliseconds), and whenever a new
    // block of --stage gpt begins: the page shows the blocks go by, each of them.
    function progress(phase, step, done, part, parts, total, block) {
      var now = performance.now(), newBlock = block > 0 && block !== lastBlock;
      if (current === null || (phase !== "render" && phase !== "read" && !newBlock && now - lastPost < 40)) return;
      lastPost = now;
      if (block > 0) lastBlock = block;
      postMessage({id: current, phase: phase, step: step, done: done, part: part, parts: parts, total: total,
                   block: block});
    }
    function drain() {
      while (engine && queue.length) {
        var m = queue.shift(), out, broken = false;
        current = m.id;
        lastPost = performance.now();
        lastBlock = 0;
        try {
          out = engineAnswer(engine, m);
        } catch (e) {
          // The engine aborted (a trap, memory it could not get): it cannot be trusted after
          // that, so the page starts a new worker.
          out = JSON.stringify({ok: false, kind: "internal", message: String(e)});
          broken = true;
        }
        current = null;
        postMessage({id: m.id, answer: out, broken: broken});
      }
    }
    self.onmessage = function (e) {
      var m = e.data;
      if (m.kind !== "init") { queue.push(m); drain(); return; }
      var options = {onProgress: progress};
      if (m.module) options.instantiateWasm = function (imports, receive) {
        WebAssembly.instantiate(m.module, imports).then(function (instance) { receive(instance, m.module); });
        return {};
      };
      createAttnWalk(options).then(function (mod) { engine = mod; drain(); }, function (err) {
        postMessage({failed: String(err)});
      });
    };
  }

  // ---- in the page: the worker, the calls waiting for it, and a new worker when asked ----
  // The worker starts at once (while the page inflates and compiles the wasm); init(module) hands
  // it the compiled wasm (null: the loader has it inside), and calls made before wait in it.
  // onFail(message): the worker could not start or run; its calls resolve to null, and the next
  // call starts a new worker (one try per call, so a worker that cannot start does not loop).
  function Client(onFail) {
    var loader = document.getElementById("aw-engine").textContent;
    var source = [loader, "\n", engineAnswer.toString(), "\n(", workerMain.toString(), ")();\n"];
    var url = URL.createObjectURL(new Blob(source, {type: "text/javascript"}));
    var worker = null, calls = {}, nextId = 1, module, given = false, dead = false;
    var files = null;  // the weights files the learner opened: every new worker mounts them again
    function init(m) {
      module = m;
      given = true;
      worker.postMessage({kind: "init", module: module});
    }
    function start() {
      worker = new Worker(url);
      var own = worker;
      worker.onmessage = function (e) {
        var m = e.data, c = calls[m.id];
        if (m.failed) { fail(m.failed); return; }
        if (!c) return;
        if (m.phase) { if (c.progress) c.progress(m); return; }
        delete calls[m.id];
        if (m.broken && own === worker) restart();
        c.resolve(m.answer);
      };
      worker.onerror = function (e) {
        e.preventDefault();
        if (own === worker) fail(e.message || "the worker stopped");
      };
      if (given) worker.postMessage({kind: "init", module: module});
      if (files) worker.postMessage({kind: "files", files: files, id: 0});  // answered to no call
    }
    // Stops the worker: whatever it computes is dropped (its calls resolve to null).
    function drop() {
      worker.terminate();
      var dropped = calls;
      calls = {};
      for (var id in dropped) dropped[id].resolve(null);
    }
    function fail(message) {
      dead = true;
      drop();
      onFail(message);
    }
    // Stops the worker and starts a new one from the same compiled wasm.
    function restart() {
      drop();
      start();
    }
    // A request ({kind: "walk", args, input, json} | {kind: "bench", args} | {kind: "files", files}
    // | {kind: "weights", args} | {kind: "data"}; files are kept for the workers started later):
    // a promise of the engine's answer (its text), or null if the worker was stopped first.
    // progress(message) is called with {phase, step, done, part, parts} while it runs.
    function call(request, progress) {
      var id = nextId++;
      request.id = id;
      if (request.kind === "files") files = request.files;
      if (dead) { dead = false; start(); }
      return new Promise(function (resolve) {
        calls[id] = {resolve: resolve, progress: progress};
        worker.postMessage(request);
      });
    }
    start();
    return {init: init, call: call, restart: restart};
  }

  // ---- the page's walks: the newest request wins ----
  // A request made while another walk runs waits for it, and only the newest waiting one is
  // sent: the page shows the newest request's walk only (an older one finished meanwhile is
  // dropped). A small walk takes milliseconds, less than a new worker takes to start, so it is
  // left to finish; a walk that has run for LONG_MS when a newer request waits is stopped (its
  // worker terminated, a new one started) rather than waited for, as is one the learner stops.
  var LONG_MS = 1000;
  function Walks(client, hooks) {
    // hooks.started(job), hooks.ended(job): a walk is sent / done or dropped (the page shows
    // its progress in between); job.resolve(answer or null) settles the request's promise.
    var running = null, waiting = null;
    function startWaiting() {
      var job = running = waiting;
      waiting = null;
      job.t0 = performance.now();
      job.progress = null;
      hooks.started(job);
      client.call(job.request, function (p) { job.progress = p; }).then(function (answer) {
        if (job !== running) return;  // stopped: settled already
        running = null;
        hooks.ended(job);
        if (waiting) { job.resolve(null); startWaiting(); return; }
        job.resolve(answer);
      });
    }
    function stopRunning() {
      var job = running;
      running = null;
      hooks.ended(job);
      client.restart();
      job.resolve(null);
    }
    function stopIfLong() {
      if (!running || !waiting) return;
      var left = running.t0 + LONG_MS - performance.now();
      // (A timer may fire a little before performance.now() says it is due: look again then.)
      if (left > 0) { setTimeout(stopIfLong, left + 1); return; }
      stopRunning();
      startWaiting();
    }
    // A promise of the engine's answer to `request`, or null if a newer request superseded it.
    function request(req) {
      return new Promise(function (resolve) {
        if (waiting) waiting.resolve(null);
        waiting = {request: req, resolve: resolve};
        if (!running) startWaiting();
        else stopIfLong();
      });
    }
    // The learner's Stop: the running walk is dropped; true if there was one.
    function stop() {
      if (waiting) { waiting.resolve(null); waiting = null; }
      if (!running) return false;
      stopRunning();
      return true;
    }
    return {request: request, stop: stop, busy: function () { return !!(running || waiting); }};
  }

  // ---- the engine's wasm, and the engine on the page's own thread ----
  // The wasm is in the page gzip-compressed, as base64 (cmake/build_web.sh); the browser's own
  // DecompressionStream inflates it, so nothing is fetched, and compiles it as it comes. A
  // promise of the WebAssembly.Module (null: an engine with its wasm inside, -sSINGLE_FILE).
  function compile() {
    var b64 = document.getElementById("aw-wasm").textContent.trim();
    if (!b64) return Promise.resolve(null);
    var raw = atob(b64), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return WebAssembly.compileStreaming(new Response(inflated, {headers: {"Content-Type": "application/wasm"}}));
  }
  // The engine on this thread, made on first use from the compiled wasm: it answers at once and
  // blocks the page while it runs (window.attnWalk.run, for tests and the console; the page's
  // own walks go to the worker). Instantiated synchronously, so the loader's module object is
  // the engine when createAttnWalk returns; null if this loader does not allow that.
  var here = null;
  function hereEngine(module) {
    if (!here) {
      var m = {instantiateWasm: function (imports, receive) {
        receive(new WebAssembly.Instance(module, imports), module);
        return {};
      }};
      createAttnWalk(m);
      if (typeof m.ccall === "function") here = m;
    }
    return here;
  }

  return {Client: Client, Walks: Walks, compile: compile, here: hereEngine, answer: engineAnswer};
})();
