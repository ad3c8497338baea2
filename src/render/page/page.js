// The page's script. It computes nothing: the walk (every number, printed tensor, text and
// heatmap) comes from the C++ engine (`make web`: WebAssembly in this page, run in a Web Worker
// by worker.js) or was written by `attn-walk --format html`. This script builds the controls
// from the options the C++ binding exports, keeps the state in the URL fragment (the CLI's long
// option names; flags as =1; input as URL-encoded JSON), sends each change to the engine and puts
// its HTML into the page, shows how far a long walk has come, and has hover.js highlight what a
// hovered attention weight connects. The embeddings' table is embeddings.js's; the learner's
// GPT-2 weights file, its picker and drop zone, weights.js's (read in the worker: worker.js).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("aw-data").textContent);
  var form = document.getElementById("aw-controls");
  var errorBox = document.getElementById("aw-error");
  var introBox = document.getElementById("aw-intro");
  var walkBox = document.getElementById("aw-walk");
  var busyBox = document.getElementById("aw-busy");
  var state = copy(data.state);  // option long name -> string; "input" -> JSON text
  if (data.input) state.input = JSON.stringify(data.input);
  var latest = state;  // the state of the newest request: a change while a walk runs builds on it
  var wasm = null;     // the engine's wasm, compiled (a WebAssembly.Module)
  var client = null;   // the worker (worker.js)
  var walks = null;    // the page's walks through it: the newest request wins
  var shownLang = null;
  var status = null;
  var foldOpen = null;  // the settings' <details>: null until first shown
  // What the engine said of the walk on the page (src/web/walk_values.h): the values it used
  // ({"d-out": "8", ...}), the defaults where they are not the option table's (the bonus
  // stages' sizes), and its number of tokens. A --format html page has none.
  var walkValues = {used: {}, defaults: {}, tokens: 0};
  if (data.values && data.values.used) walkValues = data.values;
  var changed = null;   // the option the learner changed last: an error is shown beside it
  var stoppedNow = false;  // the learner's Stop ended the walk being waited for
  // The embeddings' table (embeddings.js), given what it needs of the page.
  var embeddings = AttnWalkEmbeddings({el: el, text: text, textWith: textWith, data: data, form: form,
                                       errorBox: errorBox, walkBox: walkBox, change: change, fieldError: fieldError,
                                       state: function () { return state; }});
  // The learner's weights file (weights.js): its control, and openWeights below when one is chosen.
  var weights = AttnWalkWeights({el: el, text: text, textWith: textWith, open: openWeights});

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
  // text(key) with its {} filled by the values in order, as they are (a "$" in one stays a "$").
  function textWith(key) {
    var values = Array.prototype.slice.call(arguments, 1), i = 0;
    return text(key).replace(/\{\}/g, function () { return String(values[i++]); });
  }

  // ---- the URL fragment: #stage=causal&seed=7&qkv-bias=1&input=... ----
  // A stage that needs a file (data.stages' "needs": gpt, --weights) is offered once the learner
  // has opened one; the file's option is no link's: a link cannot carry the file.
  var NEEDED = {};
  data.stages.forEach(function (s) { if (s.needs) NEEDED[s.needs] = true; });
  var known = {input: true};
  data.options.forEach(function (o) { if (!NEEDED[o.name]) known[o.name] = o; });
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
      if (v === undefined || v === "" || v === (o.flag ? "0" : stageDefault(o)) || NEEDED[o.name]) return;
      parts.push(encodeURIComponent(o.name) + "=" + encodeURIComponent(v));
    });
    if (state.input) parts.push("input=" + encodeURIComponent(state.input));
    var h = parts.length ? "#" + parts.join("&") : "";
    if (location.hash !== h) history.replaceState(null, "", h || location.pathname + location.search);
  }

  // An option's default for the walk on the page: the bonus stages' own sizes, else the table's.
  function stageDefault(o) { return walkValues.defaults[o.name] !== undefined ? walkValues.defaults[o.name] : o["default"]; }

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
  // The engine answers with JSON, then (if it walked) a newline and the walk's HTML.
  function parseAnswer(answer) {
    var nl = answer.indexOf("\n"), r = JSON.parse(nl < 0 ? answer : answer.slice(0, nl));
    if (nl >= 0) r.html = answer.slice(nl + 1);
    return r;
  }
  // A promise of true once the walk of `next` is on the page; false if it failed (the message
  // shows, the last good walk stays) or a newer request superseded it.
  function compute(next) {
    if (!walks) return Promise.resolve(false);
    latest = next;
    stoppedNow = false;
    var t0 = performance.now();
    return walks.request({kind: "walk", args: args(next), input: next.input || "", json: 0}).then(function (answer) {
      if (answer === null) return false;
      return show(next, parseAnswer(answer), t0);
    });
  }
  function show(next, r, t0) {
    clearFieldErrors();
    if (!r.ok) {
      var said = r.shown || r.message;
      errorBox.textContent = said + "\n" + text("web.kept");
      markFields([changed, r.option], said);
      latest = state;
      return false;
    }
    errorBox.textContent = "";
    if (weights.waiting() && next.heads && next.weights) readWeights(next.weights, next.heads);  // --heads given at last
    walkBox.innerHTML = r.html;
    walkValues = {used: r.used || {}, defaults: r.defaults || {}, tokens: r.tokens || 0};
    var ms = performance.now() - t0;
    document.title = r.title;
    document.documentElement.lang = r.lang;
    state = next;
    writeHash();
    AttnWalkHover.decorate(walkBox);
    scaleHint();
    if (shownLang !== lang()) buildControls();
    else { embeddings.refreshPieces(); showUsed(); }
    if (status) status.textContent = textWith("web.timing", ms.toFixed(1));
    document.body.setAttribute("data-walks", String(Number(document.body.getAttribute("data-walks") || 0) + 1));
    return true;
  }
  function change(name, value) {
    changed = name;
    var next = copy(latest);
    if (value === undefined) delete next[name]; else next[name] = value;
    return compute(next);
  }

  // ---- an error where the learner looks: beside the field it is about ----
  // The option the learner just changed, and the one the message names (d_out 2 with 3 heads
  // names --heads whichever was typed), are marked; the message goes under the first of them
  // that is on the page, and is scrolled into view if it is not.
  function fieldOf(name) {
    if (!name) return null;
    if (name === "input") return form.querySelector(".emb textarea.paste");
    return form.querySelector('[name="' + name + '"]');
  }
  function clearFieldErrors() {
    errorBox.classList.remove("stopped");
    form.querySelectorAll(".field-error").forEach(function (e) { e.remove(); });
    form.querySelectorAll(".controls .bad, [aria-invalid]").forEach(function (e) {
      if (e.closest(".emb table")) return;  // a bad cell is embeddings.js's
      e.classList.remove("bad"); e.removeAttribute("aria-invalid");
    });
  }
  function fieldError(after, message) {
    var note = el("span", {"class": "field-error", role: "alert", text: message});
    after.parentNode.insertBefore(note, after.nextSibling);
    var fold = form.querySelector("details");
    if (fold && !fold.open) { fold.open = true; foldOpen = true; }
    var more = note.closest("details.more");
    if (more) more.open = true;
    var r = note.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) note.scrollIntoView({block: "center"});
    return note;
  }
  function markFields(names, message) {
    var placed = false;
    names.forEach(function (name) {
      var f = fieldOf(name);
      if (!f) return;
      f.classList.add("bad");
      f.setAttribute("aria-invalid", "true");
      if (!placed) { fieldError(f, message); placed = true; }  // under the box, in its label
    });
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
  // --layer means something only with a weights file (gpt's block, or multi-head's trained one).
  var NEEDS = {"embed-dim": "text", "max-tokens": "text", "torch-threads": "softmax-dim", "layer": "weights"};
  var DROPPED = {"text-file": true, "max-input-mb": true};
  var GROUPS = ["input", "model", "show"];
  var FIRST = "stage";  // where a learner starts: above the groups, in a group of its own
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
  // The option's plain name: the page's words, else the option table's plain label.
  function optionText(o) {
    var t = text("web.opt." + o.name);
    if (t !== "web.opt." + o.name) return t;
    return o.label ? o.label.charAt(0).toUpperCase() + o.label.slice(1) : o.name;
  }
  // A choice in plain words: the stage's section and name, the language's own name, or the
  // page's words for a value (heatmap colours), else the value as the CLI takes it.
  function choiceText(o, c) {
    if (o.name === "stage") {
      var st = data.stages.filter(function (s) { return s.name === c; })[0];
      var name = text("web.stage." + c);
      if (name === "web.stage." + c) name = c;
      var sec = st && /^\d/.test(st.section) ? st.section + " " : c === "all" ? "3 " : "";
      return sec + name;
    }
    if (o.name === "lang") return ((data.texts[c] || {})["web.lang_name"]) || c;
    var t = text("web.choice." + o.name + "." + c);
    return t === "web.choice." + o.name + "." + c ? c : t;
  }
  // The stages in the chapter's groups: chapter 3 (with all), chapter 2, the bonus stages, training.
  function stageOptions(select, o) {
    var groups = [["ch3", CHAPTER.concat(["all"])], ["ch2", ["tokens"]], ["bonus", BONUS.concat(["bonus"])],
                  ["ch4", ["gpt"]], ["training", ["backward"]]];
    var placed = {};
    groups.forEach(function (g) {
      var og = el("optgroup", {label: text("web.stages." + g[0])});
      g[1].forEach(function (c) {
        if (o.choices.indexOf(c) < 0 || !offered(c)) return;
        placed[c] = true;
        og.appendChild(el("option", {value: c, text: choiceText(o, c)}));
      });
      if (og.childNodes.length) select.appendChild(og);
    });
    // A stage of the page's data that no group names yet: at the end, by name.
    o.choices.forEach(function (c) {
      var known = data.stages.some(function (s) { return s.name === c; });
      if (!placed[c] && known && offered(c)) select.appendChild(el("option", {value: c, text: choiceText(o, c)}));
    });
  }
  // A stage that needs a file is offered once the file is open (or when it is the stage shown).
  function offered(c) {
    var st = data.stages.filter(function (s) { return s.name === c; })[0];
    return !st || !st.needs || !!state[st.needs] || stageName() === c;
  }
  // The value a box shows: the learner's, else the one the walk on the page used.
  function shownValue(o) {
    var v = state[o.name];
    if (v !== undefined) return v;
    if (walkValues.used[o.name] !== undefined) return walkValues.used[o.name];
    return stageDefault(o);
  }
  // After a walk: the boxes the learner left alone show the values it used.
  function showUsed() {
    data.options.forEach(function (o) {
      if (o.flag || o.choices.length || o.name === "text" || state[o.name] !== undefined) return;
      var box = form.querySelector('input[name="' + o.name + '"]');
      if (box && document.activeElement !== box) box.value = shownValue(o) || "";
    });
  }
  function optionControl(o) {
    var v = state[o.name], input;
    var hint = el("code", {"class": "hint", text: "--" + o.name});
    if (o.name === "weights") return weights.control(o, optionText(o), hint);
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
        change(o.name, input.value.trim() ? input.value : undefined).then(function (ok) {
          if (ok && had !== !!state.text) embeddings.redraw();
        });
      });
    } else if (o.choices.length) {
      input = el("select", {name: o.name});
      if (o.name === "stage") stageOptions(input, o);
      else o.choices.forEach(function (c) { input.appendChild(el("option", {value: c, text: choiceText(o, c)})); });
      input.value = v !== undefined ? v : o["default"];
      input.addEventListener("change", function () {
        // Another stage shows other options: sort the controls again.
        change(o.name, input.value).then(function (ok) { if (ok && o.name === "stage") buildControls(); });
      });
    } else {
      // The default is a value in the box (the one the walk used); a default that is no one
      // value (the chapter's two seeds) is said beside it.
      input = el("input", {type: "text", name: o.name, inputMode: "decimal", size: 8, value: shownValue(o) || ""});
      input.addEventListener("input", function () { change(o.name, input.value.trim() || undefined); });
      var dflt = text("web.default." + o.name);
      if (dflt !== "web.default." + o.name && !input.value) input.setAttribute("aria-describedby", "aw-default-" + o.name);
      if (dflt !== "web.default." + o.name)
        return el("label", {title: o.help}, [el("span", {"class": "lbl"}, [el("span", {text: optionText(o)}), document.createTextNode(" "), hint]),
                  input, el("span", {"class": "default", id: "aw-default-" + o.name, text: dflt})]);
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
      // An option beside a file (--layer beside --weights): not shown until the file is open.
      if (NEEDS[o.name] && NEEDED[NEEDS[o.name]] && !state[NEEDS[o.name]]) return;
      // Only for a stage not offered yet (gpt before a file is open): not shown until it is.
      if (!NEEDED[o.name] && o.stages && o.stages !== "*" && !o.stages.split(" ").some(offered)) return;
      if (o.name === FIRST) {
        box.appendChild(el("fieldset", {"class": "group first", "data-group": "stage"},
                           [el("legend", {text: text("web.group.stage")}), el("div", {"class": "opts"}, [optionControl(o)])]));
        return;
      }
      // A file a stage needs is where the learner looks for it whatever the stage (opening one
      // is how that stage is reached).
      (changesStage(o) || NEEDED[o.name] ? byGroup[o.group] : more).appendChild(optionControl(o));
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

  // The two lines the page opens with: what it is, and what to try first.
  function buildIntro() {
    introBox.textContent = "";
    introBox.appendChild(el("p", {"class": "what", text: text("web.intro.what")}));
    if (data.engine) introBox.appendChild(el("p", {"class": "try", text: text("web.intro.try")}));
  }

  function buildControls() {
    shownLang = lang();
    buildIntro();
    form.textContent = "";
    // A page written by the CLI shows its settings folded away and fixed; the engine's page
    // shows them open, except on a phone, where they would fill screens before the walk.
    // Once the learner opens or closes them, rebuilding (another language) keeps that.
    if (foldOpen === null) foldOpen = !!data.engine && !window.matchMedia("(max-width: 40rem)").matches;
    var fold = el("details", {open: foldOpen}, [el("summary", {text: text("web.controls")})]);
    fold.addEventListener("toggle", function () {
      foldOpen = fold.open;
      var emb = form.querySelector(".emb");
      if (emb && emb.checkScroll) emb.checkScroll();
    });
    var fields = el("fieldset", {disabled: !data.engine});
    fields.appendChild(optionGroups());
    // A stage that walks a file of its own (gpt: its model embeds the text's ids itself, and
    // refuses embeddings) has no table.
    var shown = data.stages.filter(function (st) { return st.name === stageName(); })[0];
    if (!(shown && shown.needs)) fields.appendChild(embeddings.editor());
    var said = status ? status.textContent : "";  // the last walk's time stays
    status = el("p", {"class": "status", text: data.engine ? said : text("web.static")});
    fold.appendChild(status);
    fold.appendChild(fields);
    form.appendChild(fold);
    form.hidden = false;
  }

  // ---- while a walk runs: how far it has come, how long it has run, and a way to stop it ----
  // Shown once a walk has run for 300 ms: a small walk is on the page before, nothing flickers.
  var busyTimer = null, busyJob = null;
  function busyShow() {
    var job = busyJob, s = (performance.now() - job.t0) / 1000;
    if (s < 0.3) return;
    var p = job.progress, secs = s.toFixed(1), line;
    if (p && p.total && p.done >= p.total + (p.phase === "part" ? 0 : 1)) p.total = 0;  // a plan that was wrong: no total
    var model = weights.info();
    if (!p) line = textWith("web.progress_wait", secs);
    // --stage gpt: the blocks go by ("block 3 of 12").
    else if (p.phase === "step" && p.block > 0 && model) line = textWith("web.progress_block", p.block, model.n_layers, p.step, secs);
    else if (p.phase === "read") line = textWith("web.progress_read", p.step, secs);
    else if (p.phase === "render") line = textWith("web.progress_render", p.done, secs);
    // With the number of steps the walk will record (engine.cpp plans a long --text walk): "step 3 of 12".
    else if (p.phase === "part" && p.total > 0) line = textWith("web.progress_part_of", p.done + 1, p.total, p.step, p.part, p.parts, secs);
    else if (p.phase === "part") line = textWith("web.progress_part", p.done, p.step, p.part, p.parts, secs);
    else if (p.total > 0) line = textWith("web.progress_of", p.done, p.total, p.step, secs);
    else line = textWith("web.progress", p.done, p.step, secs);
    busyBox.querySelector(".busy-text").textContent = line;
    busyBox.querySelector("button.stop").textContent = text("web.stop");
    busyBox.setAttribute("data-done", String(p ? p.done : 0));
    busyBox.setAttribute("data-total", String(p && p.total ? p.total : 0));
    busyBox.setAttribute("data-block", String(p && p.block ? p.block : 0));
    busyBox.hidden = false;
    walkBox.classList.add("stale");
  }
  var walkHooks = {
    started: function (job) { busyJob = job; clearInterval(busyTimer); busyTimer = setInterval(busyShow, 100); },
    ended: function () {
      clearInterval(busyTimer);
      busyJob = busyTimer = null;
      busyBox.hidden = true;
      walkBox.classList.remove("stale");
    }
  };
  // Stop: the walk on the page, the settings and the fragment agree again: a value typed while
  // the stopped walk ran goes back to the one the walk on the page used.
  busyBox.querySelector("button.stop").addEventListener("click", function () {
    if (!walks) return;
    stoppedNow = true;
    if (!walks.stop()) { stoppedNow = false; return; }
    latest = state;
    if (!firstShown) return;  // the first walk of the page: see start() below
    writeHash();  // the fragment names the walk on the page, not the one stopped
    buildControls();
    errorBox.textContent = text("web.stopped");
    errorBox.classList.add("stopped");  // the learner's doing, not an error: said plainly
    inView(errorBox);
  });
  // The learner's Stop is answered where they look: below the settings, which may fill the
  // screen, the line is scrolled into view.
  function inView(e) {
    var r = e.getBoundingClientRect();
    if (r.top < 0 || r.bottom > window.innerHeight) e.scrollIntoView({block: "nearest"});
  }

  // ---- the learner's weights file: read in the worker, never sent anywhere ----
  // The files (the weights, and a config.json beside them if the learner chose one) go to the
  // worker as File objects; the engine reads the weights as --weights reads a path (the reader's
  // own message if it cannot), and the stage that needs them is offered and walked.
  var weightsTries = 0, goodFiles = null;
  function optionNamed(name) { return data.options.filter(function (o) { return o.name === name; })[0]; }
  function openWeights(files) {
    if (!client) return;  // a page written by the CLI computes nothing
    var file = files.filter(function (f) { return f.name !== "config.json"; })[0];
    if (!file) { weights.set({kind: "none"}); return; }
    var tryNo = ++weightsTries;
    weights.set({kind: "reading", name: file.name});
    client.call({kind: "files", files: files}).then(function () {
      return weightsAnswer(file.name, latest.heads);  // a book's file does not record its heads
    }).then(function (answer) {
      if (tryNo !== weightsTries) return;  // another file was chosen meanwhile
      if (answer === null) { weights.set(null); return; }  // the worker was stopped
      var r = JSON.parse(answer), next = copy(latest);
      if (!r.ok && r.kind !== "usage") {
        // Not a GPT-2 model: the reader's own words; the file opened before stays open.
        weights.set({kind: "bad", name: file.name, message: r.message});
        if (goodFiles) client.call({kind: "files", files: goodFiles});
        return;
      }
      goodFiles = files;
      next.weights = file.name;
      var o = optionNamed("weights"), needer = data.stages.filter(function (st) { return st.needs === "weights"; })[0];
      if (o && needer && o.stages.split(" ").indexOf(next.stage || "dot-product") < 0) next.stage = needer.name;
      if (!r.ok) {
        // The head count cannot be told (the book's files do not record it): the stage is
        // offered with the message beside --heads, and the walk comes when the learner gives it.
        weights.set({kind: "heads", name: file.name, message: r.message});
        state = latest = next;
        buildControls();
        markFields(["heads"], r.shown || r.message);
        return;
      }
      weights.set({kind: "loaded", name: file.name, info: r});
      changed = "weights";
      return compute(next).then(function () { buildControls(); });
    });
  }

  // The engine's reading of the open file `name` (with --heads `heads`, if given): its answer's text.
  function weightsAnswer(name, heads) {
    var a = ["--weights", name, "--lang", lang()];
    if (heads) a.push("--heads", heads);
    return client.call({kind: "weights", args: a});
  }
  // The file read again once --heads is given, for what the control says and the blocks' count.
  function readWeights(name, heads) {
    weightsAnswer(name, heads).then(function (answer) {
      var r = answer && JSON.parse(answer);
      if (r && r.ok && weights.waiting()) weights.set({kind: "loaded", name: name, info: r});
    });
  }

  function engineCall(request) {
    return client ? client.call(request).then(function (a) { return a === null ? null : JSON.parse(a); })
                  : Promise.resolve(null);
  }

  // The scale of the heatmaps for many tokens: with 15 or more, weights near 1/T all look alike
  // on the fixed 0 to 1 scale, so the page suggests each matrix's own scale (one click).
  function scaleHint() {
    // Above the first heatmap of weights (the hint speaks of them), else the first heatmap.
    var first = walkBox.querySelector('section.step[data-step*="weight"] .heatmaps') || walkBox.querySelector(".heatmaps");
    if (!data.engine || !first || walkValues.tokens < 15 || state["heatmap-scale"] === "matrix") return;
    var use = el("button", {type: "button", "class": "use-scale", text: text("web.scale_use")});
    use.addEventListener("click", function () {
      change("heatmap-scale", "matrix").then(function (ok) { if (ok) buildControls(); });
    });
    first.parentNode.insertBefore(el("p", {"class": "scale-hint"}, [
      el("span", {text: textWith("web.scale_hint", walkValues.tokens) + " "}), use]), first);
  }

  // For tests and the curious.
  window.attnWalk = {
    // The engine's own answer for any CLI arguments, at once (on this thread).
    run: function (argList, input, withJson) {
      var e = wasm && AttnWalkWorker.here(wasm);
      return e ? parseAnswer(AttnWalkWorker.answer(e, {kind: "walk", args: argList, input: input, json: withJson}))
               : null;
    },
    // The same from the page's worker: a promise (null if the worker was stopped meanwhile);
    // onProgress(message) is given the worker's progress messages ({phase, step, done, block ...}).
    walk: function (argList, input, withJson, onProgress) {
      if (!client) return Promise.resolve(null);
      return client.call({kind: "walk", args: argList, input: input || "", json: withJson ? 1 : 0}, onProgress).then(function (a) {
        return a === null ? null : parseAnswer(a);
      });
    },
    // The engine's reading of the open file `argList` names (["--weights", name, ...]) in the
    // page's worker: a promise of its answer, with what the engine holds (weights_reads,
    // malloc_bytes: tests/browser/test_web_gpt.js counts the file's reads).
    weights: function (argList) { return engineCall({kind: "weights", args: argList}); },
    state: function () { return copy(state); },
    // A control changed: a promise of true once its walk is on the page (as compute()).
    set: function (name, value) { return change(name, value); },
    // True while a walk of the page runs or waits.
    busy: function () { return !!walks && walks.busy(); },
    // `attn-walk bench` in the worker's engine (tests/browser/test_web.js --bench): a promise
    // of its JSON report.
    bench: function (tokens, dModel, heads, repeat) {
      return engineCall({kind: "bench", args: [tokens, dModel, heads, repeat]});
    }
  };

  AttnWalkHover.decorate(walkBox);
  if (!data.engine || typeof createAttnWalk !== "function") {
    buildControls();
    return;
  }
  walkBox.textContent = text("web.loading");
  var timings = window.attnWalk.timings = {};
  function mark(name) { timings[name] = Math.round(performance.now() * 10) / 10; }
  // Each stage computed once in the worker when the page is idle, the answers dropped: the
  // browser compiles the engine's code for a stage the first time it runs (and --text builds its
  // tables), which made the first walk of each stage several times slower than the next. One
  // stage at a time, and none while a walk of the page runs or waits.
  function warmUp(stages) {
    var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 20); };
    (function next() {
      if (!stages.length) { mark("warm"); document.body.setAttribute("data-warm", "1"); return; }
      idle(function () {
        if (walks.busy()) { setTimeout(next, 200); return; }
        client.call({kind: "walk", args: ["--stage", stages.shift()], input: "", json: 0}).then(next);
      });
    })();
  }
  var firstShown = false;
  function stoppedAtStart() {
    errorBox.textContent = text("web.stopped_link") + " ";
    errorBox.classList.add("stopped");
    var again = el("button", {type: "button", "class": "walk-again", text: text("web.walk_again")});
    again.addEventListener("click", function () { compute(copy(state)); });
    errorBox.appendChild(again);
  }
  function engineFailed(message) {
    errorBox.classList.remove("stopped");
    errorBox.textContent = textWith("web.engine_failed", message) + "\n" + text("web.kept");
  }
  mark("script");
  client = AttnWalkWorker.Client(engineFailed);  // it starts while the wasm is inflated and compiled
  AttnWalkWorker.compile().then(function (module) {
    mark("engine");  // inflated and compiled
    wasm = module;
    client.init(module);
    walks = AttnWalkWorker.Walks(client, walkHooks);
    var fromLink = readHash();
    var first = Object.keys(fromLink).length ? fromLink : state;
    return compute(first).then(function (ok) {
      if (ok) return true;
      if (stoppedNow) {
        // The learner stopped the link's first walk: its settings stay (the fragment, the text),
        // nothing is walked until they change one or walk again.
        state = latest = first;
        walkBox.textContent = "";
        stoppedAtStart();
        return true;
      }
      // A link with a bad setting: show why, and the chapter's walk below it.
      var message = errorBox.textContent;
      return compute({}).then(function () { errorBox.textContent = message; });
    });
  }).then(function () {
    firstShown = true;
    buildControls();
    if (errorBox.classList.contains("stopped")) inView(errorBox);  // the link's first walk, stopped
    void document.body.offsetHeight;  // laid out: the first walk is on screen from here
    mark("first_walk");
    window.addEventListener("hashchange", function () {
      var s = readHash();
      if (location.hash && JSON.stringify(s) !== JSON.stringify(latest)) compute(s).then(buildControls);
    });
    document.body.setAttribute("data-ready", "1");
    warmUp(data.stages.filter(function (s) { return !s.needs; }).map(function (s) { return s.name; }));
  }, function (e) {
    errorBox.classList.remove("stopped");
    errorBox.textContent = "The engine did not start: " + e;
  });
})();
