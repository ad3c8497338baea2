// The page's script. It computes nothing: the walk (every number, printed tensor, text and
// heatmap) comes from the C++ engine (`make web`: WebAssembly in this page) or was written
// by `attn-walk --format html`. This script builds the controls from the options the C++
// binding exports, keeps the state in the URL fragment (the CLI's long option names; flags
// as =1; input as URL-encoded JSON), puts the engine's HTML into the page, and highlights
// what a hovered attention weight connects.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("aw-data").textContent);
  var form = document.getElementById("aw-controls");
  var errorBox = document.getElementById("aw-error");
  var walkBox = document.getElementById("aw-walk");
  var state = copy(data.state);  // option long name -> string; "input" -> JSON text
  if (data.input) state.input = JSON.stringify(data.input);
  var engine = null;
  var shownLang = null;
  var status = null;
  var foldOpen = null;  // the settings' <details>: null until first shown

  function copy(o) { var c = {}; for (var k in o) c[k] = o[k]; return c; }
  function el(tag, attrs, kids) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") e.textContent = attrs[k];
      else if (k in e && typeof attrs[k] !== "string") e[k] = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    (kids || []).forEach(function (kid) { e.appendChild(kid); });
    return e;
  }
  function lang() { return state.lang || "en"; }
  function text(key) { return (data.texts[lang()] || {})[key] || data.texts.en[key] || key; }

  // ---- the URL fragment: #stage=causal&seed=7&qkv-bias=1&input=... ----
  var known = {input: true};
  data.options.forEach(function (o) { known[o.name] = o; });
  function readHash() {
    var s = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var eq = kv.indexOf("=");
      if (eq < 1) return;
      var k = decodeURIComponent(kv.slice(0, eq)), v = decodeURIComponent(kv.slice(eq + 1).replace(/\+/g, " "));
      if (known[k]) s[k] = v;
    });
    return s;
  }
  function writeHash() {
    var parts = [];
    data.options.forEach(function (o) {
      var v = state[o.name];
      if (v === undefined || v === "" || v === (o.flag ? "0" : o["default"])) return;
      parts.push(encodeURIComponent(o.name) + "=" + encodeURIComponent(v));
    });
    if (state.input) parts.push("input=" + encodeURIComponent(state.input));
    var h = parts.length ? "#" + parts.join("&") : "";
    if (location.hash !== h) history.replaceState(null, "", h || location.pathname + location.search);
  }

  // The CLI's arguments for a state.
  function args(s) {
    var a = [];
    data.options.forEach(function (o) {
      var v = s[o.name];
      if (v === undefined || v === "") return;
      if (o.flag) { if (v === "1") a.push("--" + o.name); }
      else a.push("--" + o.name, v);
    });
    return a;
  }

  // ---- computing: the engine renders; a failure leaves the last good walk standing ----
  function run(argList, input, withJson) {
    // The engine answers with JSON, then (if it walked) a newline and the walk's HTML.
    var answer = engine.ccall("attn_walk_run", "string", ["string", "string", "number"],
                              [JSON.stringify(argList), input || "", withJson ? 1 : 0]);
    var nl = answer.indexOf("\n"), r = JSON.parse(nl < 0 ? answer : answer.slice(0, nl));
    if (nl >= 0) r.html = answer.slice(nl + 1);
    return r;
  }
  function compute(next) {
    if (!engine) return false;
    var t0 = performance.now();
    var r = run(args(next), next.input, false);
    if (!r.ok) {
      errorBox.textContent = r.message + "\n" + text("web.kept");
      return false;
    }
    errorBox.textContent = "";
    walkBox.innerHTML = r.html;
    var ms = performance.now() - t0;
    document.title = r.title;
    document.documentElement.lang = r.lang;
    state = next;
    writeHash();
    decorate();
    if (shownLang !== lang()) buildControls();
    else refreshPieces();
    if (status) status.textContent = text("web.timing").replace("{}", ms.toFixed(1));
    document.body.setAttribute("data-walks", String(Number(document.body.getAttribute("data-walks") || 0) + 1));
    return true;
  }
  function change(name, value) {
    var next = copy(state);
    if (value === undefined) delete next[name]; else next[name] = value;
    return compute(next);
  }

  // ---- controls, one per option the C++ binding exports ----
  // Every option comes with its row of the options table (src/request/option_table.cpp): its
  // group (input, model, show, more) and the stages whose numbers it changes ("*": every
  // stage), which tests/test_request.cpp holds to what each stage computes. The page shows the
  // options of the chosen stage in their group and the rest under "more". Two things are the
  // page's own: options that mean nothing in a browser (a file to read, a size limit on files),
  // and options that matter only beside another one.
  var CHAPTER = ["dot-product", "softmax", "trainable", "causal", "dropout", "multi-head"];
  var BONUS = ["efficient", "kv-cache", "gqa", "swa", "rope", "flash", "mla"];
  var NEEDS = {"embed-dim": "text", "max-tokens": "text", "torch-threads": "softmax-dim"};
  var DROPPED = {"text-file": true, "max-input-mb": true};
  var GROUPS = ["input", "model", "show"];
  function stageName() { return state.stage || "dot-product"; }
  // True when the option changes the chosen stage's walk (all and bonus: any of theirs).
  function changesStage(o) {
    if (!o.stages || GROUPS.indexOf(o.group) < 0) return false;
    if (NEEDS[o.name] && !state[NEEDS[o.name]]) return false;
    if (o.stages === "*") return true;
    var named = o.stages.split(" ");
    var st = stageName(), list = st === "all" ? CHAPTER.concat(["tokens"]) : st === "bonus" ? BONUS : [st];
    return list.some(function (s) { return named.indexOf(s) >= 0; });
  }
  function optionText(o) { var t = text("web.opt." + o.name); return t === "web.opt." + o.name ? o.name : t; }
  function optionControl(o) {
    var v = state[o.name], input;
    var hint = el("code", {"class": "hint", text: "--" + o.name});
    if (o.flag) {
      input = el("input", {type: "checkbox", name: o.name, checked: v === "1"});
      input.addEventListener("change", function () { change(o.name, input.checked ? "1" : undefined); });
      return el("label", {"class": "flag", title: o.help}, [input, el("span", {text: optionText(o)}), hint]);
    }
    if (o.name === "text") {
      // The learner's own sentence: a box of several lines.
      input = el("textarea", {name: o.name, rows: 3, spellcheck: false, placeholder: text("web.text_placeholder")});
      input.value = v !== undefined ? v : "";
      input.addEventListener("input", function () {
        var had = !!state.text;
        if (change(o.name, input.value.trim() ? input.value : undefined) && had !== !!state.text) redrawTable();
      });
    } else if (o.choices.length) {
      input = el("select", {name: o.name});
      o.choices.forEach(function (c) { input.appendChild(el("option", {value: c, text: c})); });
      input.value = v !== undefined ? v : o["default"];
      input.addEventListener("change", function () {
        // Another stage shows other options: sort the controls again.
        if (change(o.name, input.value) && o.name === "stage") buildControls();
      });
    } else {
      input = el("input", {type: "text", name: o.name, inputMode: "decimal", size: 8,
                           placeholder: o["default"], value: v !== undefined ? v : ""});
      input.addEventListener("input", function () { change(o.name, input.value.trim() || undefined); });
    }
    return el("label", {title: o.help, "class": o.name === "text" ? "wide" : ""},
              [el("span", {"class": "lbl"}, [el("span", {text: optionText(o)}), document.createTextNode(" "), hint]), input]);
  }
  // The controls of the chosen stage in their groups, the others under "more".
  function optionGroups() {
    var box = el("div", {"class": "groups"});
    var more = el("div", {"class": "opts"}), byGroup = {};
    GROUPS.forEach(function (g) { byGroup[g] = el("div", {"class": "opts"}); });
    data.options.forEach(function (o) {
      if (DROPPED[o.name]) return;
      (changesStage(o) ? byGroup[o.group] : more).appendChild(optionControl(o));
    });
    GROUPS.forEach(function (g) {
      if (!byGroup[g].childNodes.length) return;
      box.appendChild(el("fieldset", {"class": "group", "data-group": g},
                         [el("legend", {text: text("web.group." + g)}), byGroup[g]]));
    });
    if (more.childNodes.length)
      box.appendChild(el("details", {"class": "more"}, [el("summary", {text: text("web.more")}), more]));
    return box;
  }

  // The embeddings as rows of text cells; sent to the engine as JSON text, so the engine
  // (not this script) reads the numbers and reports what is wrong with them.
  function tableRows() {
    var src = data.default_input;
    if (state.input) { try { src = JSON.parse(state.input); } catch (e) { /* the engine said why */ } }
    var emb = Array.isArray(src) ? src : src.embeddings || [];
    return emb.map(function (row, i) {
      var tok = !Array.isArray(src) && src.tokens ? src.tokens[i] : "x" + (i + 1);
      return {token: String(tok), values: row.map(function (x) { return String(x); })};
    });
  }
  // A cell as a JSON number, or null if it is none: "+1", ".5" and "2." are numbers to a
  // learner, so they are written as JSON writes them; an empty cell is 0.
  function cellNumber(x) {
    x = x.trim();
    if (x === "") return "0";
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(x)) return null;
    x = x.replace(/^\+/, "").replace(/^(-?)\./, "$10.").replace(/\.(?=$|[eE])/, ".0").replace(/^(-?)0+(?=\d)/, "$1");
    return x;
  }
  // The first cell that is not a number, in the table's own terms (rows and columns from 1).
  function badCell(rows) {
    for (var i = 0; i < rows.length; i++)
      for (var j = 0; j < rows[i].values.length; j++)
        if (cellNumber(rows[i].values[j]) === null)
          return {row: i, col: j, message: text("web.cell_not_number").replace("{}", i + 1).replace("{}", j + 1)
                                             .replace("{}", function () { return rows[i].values[j].trim(); })};
    return null;
  }
  function inputText(rows) {
    return JSON.stringify({tokens: rows.map(function (r) { return r.token; })}).slice(0, -1) +
      ", \"embeddings\": [" + rows.map(function (r) {
        return "[" + r.values.map(cellNumber).join(", ") + "]";
      }).join(", ") + "]}";
  }
  var tableBox = null;
  function redrawTable() {
    var old = tableBox;  // embeddingsEditor() makes tableBox the new one
    if (old) old.replaceWith(embeddingsEditor());
  }
  // With --text the tokens and their vectors come from the text: the pieces, read-only.
  function piecesView() {
    var list = el("ol", {"class": "tokens pieces"});
    walkBox.querySelectorAll("header ol.tokens li").forEach(function (li) {
      list.appendChild(el("li", {text: li.lastChild ? li.lastChild.textContent : li.textContent}));
    });
    return list;
  }
  function refreshPieces() {
    var old = form.querySelector(".emb ol.pieces");
    if (old) old.replaceWith(piecesView());
  }
  function embeddingsEditor() {
    var box = el("div", {"class": "emb"});
    tableBox = box;
    if (state.text) {
      // The text replaces the table: say so, and show the tokens it gives.
      box.appendChild(el("p", {"class": "text-note", text: text("web.text_replaces")}));
      box.appendChild(piecesView());
      return box;
    }
    var rows = tableRows();
    function redraw() { var fresh = embeddingsEditor(); box.replaceWith(fresh); }
    function send(structural) {
      box.querySelectorAll("input.bad").forEach(function (c) { c.classList.remove("bad"); c.removeAttribute("aria-invalid"); });
      var bad = badCell(rows);
      if (bad) {
        var cell = box.querySelector('input[data-row="' + bad.row + '"][data-col="' + bad.col + '"]');
        if (cell) { cell.classList.add("bad"); cell.setAttribute("aria-invalid", "true"); }
        errorBox.textContent = bad.message + "\n" + text("web.kept");
        return;
      }
      var ok = change("input", inputText(rows));
      if (structural && ok) redraw();
    }
    var table = el("table", {"class": "emb-table"});
    var head = el("tr", {}, [el("th", {text: "#"}), el("th", {text: text("web.token")})]);
    var D = rows.length ? rows[0].values.length : 0;
    for (var j = 0; j < D; j++) head.appendChild(el("th", {text: String(j + 1)}));
    table.appendChild(head);
    rows.forEach(function (r, i) {
      var tr = el("tr", {}, [el("th", {text: String(i + 1)})]);
      var tok = el("input", {"class": "tok", value: r.token, "aria-label": text("web.token") + " " + (i + 1)});
      tok.addEventListener("input", function () { r.token = tok.value; send(false); });
      tr.appendChild(el("td", {}, [tok]));
      r.values.forEach(function (x, j) {
        var cell = el("input", {value: x, inputMode: "decimal", "data-row": String(i), "data-col": String(j)});
        cell.addEventListener("input", function () { r.values[j] = cell.value; send(false); });
        tr.appendChild(el("td", {}, [cell]));
      });
      var del = el("button", {type: "button", text: "\u00d7", title: text("web.remove_token"), "class": "del"});
      del.addEventListener("click", function () { rows.splice(i, 1); send(true); });
      tr.appendChild(el("td", {}, [del]));
      table.appendChild(tr);
    });
    function button(key, cls, fn) {
      var b = el("button", {type: "button", text: text(key), "class": cls});
      b.addEventListener("click", fn);
      return b;
    }
    var paste = el("textarea", {"class": "paste", spellcheck: false, "aria-label": text("web.paste")});
    paste.value = state.input || "";
    box.appendChild(el("p", {text: text("web.embeddings")}));
    box.appendChild(table);
    box.appendChild(el("p", {}, [
      button("web.add_token", "add-token", function () {
        rows.push({token: "x" + (rows.length + 1), values: rows.length ? rows[0].values.map(function () { return "0"; }) : ["0"]});
        send(true);
      }),
      button("web.add_dim", "add-dim", function () { rows.forEach(function (r) { r.values.push("0"); }); send(true); }),
      button("web.remove_dim", "remove-dim", function () {
        if (D > 1) { rows.forEach(function (r) { r.values.pop(); }); send(true); }
      }),
      button("web.reset", "reset", function () { if (change("input", undefined)) redraw(); })]));
    box.appendChild(el("label", {}, [el("span", {text: text("web.paste")}), paste]));
    box.appendChild(button("web.apply", "apply", function () { if (change("input", paste.value)) redraw(); }));
    return box;
  }

  function buildControls() {
    shownLang = lang();
    form.textContent = "";
    // A page written by the CLI shows its settings folded away and fixed; the engine's page
    // shows them open, except on a phone, where they would fill screens before the walk.
    // Once the learner opens or closes them, rebuilding (another language) keeps that.
    if (foldOpen === null) foldOpen = !!data.engine && !window.matchMedia("(max-width: 40rem)").matches;
    var fold = el("details", {open: foldOpen}, [el("summary", {text: text("web.controls")})]);
    fold.addEventListener("toggle", function () { foldOpen = fold.open; });
    var fields = el("fieldset", {disabled: !data.engine});
    fields.appendChild(optionGroups());
    fields.appendChild(embeddingsEditor());
    status = el("p", {"class": "status"});
    if (!data.engine) status.textContent = text("web.static");
    fold.appendChild(status);
    fold.appendChild(fields);
    form.appendChild(fold);
    form.hidden = false;
  }

  // ---- hovering a weight: its query row, key column, value row and context entry ----
  // Which steps of a walk hold the queries, keys, values and context vectors whose rows a
  // weight connects; the first name the walk has is used.
  var ROLES = {query: ["queries", "inputs"], key: ["keys", "inputs"], value: ["values", "inputs"],
               context: ["all_context_vecs", "context_vecs"]};
  var SVGNS = "http://www.w3.org/2000/svg";

  // The line ranges of the rows of a 2-D tensor as PyTorch prints it (rows may wrap over
  // several lines); null when the print is not a plain 2-D matrix.
  function printedRows(textContent) {
    var lines = textContent.split("\n"), start = -1, rows = [];
    for (var i = 0; i < lines.length; i++) if (lines[i].indexOf("tensor(") >= 0) { start = i; break; }
    if (start < 0 || lines[start].indexOf("tensor([[") < 0 || lines[start].indexOf("[[[") >= 0 ||
        textContent.indexOf("...") >= 0) return null;
    for (i = start; i < lines.length; i++) {
      var t = lines[i].replace(/^\s+/, "");
      if (i === start || t.charAt(0) === "[") rows.push([i, i]);
      else if (rows.length) rows[rows.length - 1][1] = i;
    }
    return {lines: lines, rows: rows};
  }
  function markRows(pre, wanted) {
    var p = printedRows(pre.getAttribute("data-text"));
    if (!p) return;
    var marked = {};
    wanted.forEach(function (k) {
      if (k < p.rows.length) for (var l = p.rows[k][0]; l <= p.rows[k][1]; l++) marked[l] = true;
    });
    pre.textContent = "";
    p.lines.forEach(function (line, l) {
      var s = line + (l < p.lines.length - 1 ? "\n" : "");
      pre.appendChild(marked[l] ? el("span", {"class": "hl", text: s}) : document.createTextNode(s));
    });
  }
  function clearMarks() {
    walkBox.querySelectorAll("pre.tensor[data-text]").forEach(function (pre) {
      if (pre.querySelector(".hl")) pre.textContent = pre.getAttribute("data-text");
    });
    walkBox.querySelectorAll("svg.heatmap .hl").forEach(function (r) { r.remove(); });
  }
  function hover(svg, evt) {
    var g = svg.getAttribute("data-grid").split(" ").map(Number), left = g[0], top = g[1], cell = g[2];
    var index = svg.getAttribute("data-index").split(" ").map(Number), n = index.length;
    var pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    var p = pt.matrixTransform(svg.getScreenCTM().inverse());
    var r = Math.floor((p.y - top) / cell), c = Math.floor((p.x - left) / cell);
    clearMarks();
    if (r < 0 || c < 0 || r >= n || c >= n) return;
    [[left, top + r * cell, n * cell, cell], [left + c * cell, top, cell, n * cell]].forEach(function (b) {
      var rect = document.createElementNS(SVGNS, "rect");
      rect.setAttribute("class", "hl");
      rect.setAttribute("x", b[0]); rect.setAttribute("y", b[1]);
      rect.setAttribute("width", b[2]); rect.setAttribute("height", b[3]);
      svg.appendChild(rect);
    });
    var i = index[r], j = index[c];
    var walk = svg.closest("section.walk"), step = svg.closest("section.step");
    var isWeight = /weight|norm/.test(step.getAttribute("data-step"));
    var rowsOf = new Map();
    function want(role, row) {
      for (var k = 0; k < ROLES[role].length; k++) {
        var s = walk.querySelector('section.step[data-step="' + ROLES[role][k] + '"] pre.tensor');
        if (s) { if (!rowsOf.has(s)) rowsOf.set(s, []); rowsOf.get(s).push(row); return; }
      }
    }
    want("query", i);
    want("key", j);
    if (isWeight) { want("value", j); want("context", i); }
    rowsOf.forEach(function (rows, pre) { markRows(pre, rows); });
    svg.setAttribute("data-hover", i + " " + j);
  }
  function decorate() {
    walkBox.querySelectorAll("pre.tensor").forEach(function (pre) { pre.setAttribute("data-text", pre.textContent); });
    walkBox.querySelectorAll("svg.heatmap[data-grid]").forEach(function (svg) {
      svg.addEventListener("mousemove", function (e) { hover(svg, e); });
      svg.addEventListener("mouseleave", function () { clearMarks(); svg.removeAttribute("data-hover"); });
    });
  }

  // For tests and the curious: the engine's own answer for any CLI arguments.
  window.attnWalk = {
    run: function (argList, input, withJson) { return engine ? run(argList, input, withJson) : null; },
    state: function () { return copy(state); },
    set: function (name, value) { return change(name, value); },
    // `attn-walk bench` in the engine (tests/browser/test_web.js --bench): its JSON report.
    bench: function (tokens, dModel, heads, repeat) {
      return engine ? JSON.parse(engine.ccall("attn_walk_bench", "string", ["number", "number", "number", "number"],
                                              [tokens, dModel, heads, repeat])) : null;
    }
  };

  decorate();
  if (!data.engine || typeof createAttnWalk !== "function") {
    buildControls();
    return;
  }
  walkBox.textContent = text("web.loading");
  var timings = window.attnWalk.timings = {};
  function mark(name) { timings[name] = Math.round(performance.now() * 10) / 10; }
  // The engine's WebAssembly is in the page gzip-compressed, as base64 (cmake/build_web.sh);
  // the browser's own DecompressionStream inflates it, so nothing is fetched.
  function engineBinary() {
    var b64 = document.getElementById("aw-wasm").textContent.trim();
    if (!b64) return Promise.resolve(undefined);  // an engine with its wasm inside (-sSINGLE_FILE)
    var raw = atob(b64), bytes = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    var inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(inflated).arrayBuffer();
  }
  // Each stage computed once when the page is idle, the answers dropped: the browser compiles
  // the engine's code for a stage the first time it runs (and --text builds its tables), which
  // made the first walk of each stage several times slower than the next. Done one stage per
  // idle moment, so it never holds up a learner's change.
  function warmUp(stages) {
    var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 20); };
    (function next() {
      if (!stages.length) { mark("warm"); document.body.setAttribute("data-warm", "1"); return; }
      idle(function () { run(["--stage", stages.shift()], "", false); next(); });
    })();
  }
  mark("script");
  engineBinary().then(function (wasm) {
    mark("inflated");
    return createAttnWalk(wasm ? {wasmBinary: wasm} : {});
  }).then(function (m) {
    mark("engine");
    engine = m;
    var fromLink = readHash();
    if (!compute(Object.keys(fromLink).length ? fromLink : state)) {
      // A link with a bad setting: show why, and the chapter's walk below it.
      var message = errorBox.textContent;
      compute({});
      errorBox.textContent = message;
    }
    buildControls();
    void document.body.offsetHeight;  // laid out: the first walk is on screen from here
    mark("first_walk");
    window.addEventListener("hashchange", function () {
      var s = readHash();
      if (location.hash && JSON.stringify(s) !== JSON.stringify(state)) { compute(s); buildControls(); }
    });
    document.body.setAttribute("data-ready", "1");
    warmUp(data.stages.map(function (s) { return s.name; }));
  }, function (e) {
    errorBox.textContent = "The engine did not start: " + e;
  });
})();
