// The learner's GPT-2 weights on the page (issue 41, "The page"): the --weights control, a file
// picker that is also a drop zone, and what the page has read from the file. Dropping a file
// anywhere on the page opens it too (and never navigates the tab away to the file). The files
// go to the engine's worker as File objects (worker.js mounts them; nothing is uploaded, nothing
// leaves the machine); page.js asks the engine to read them and tells this control how it went.
var AttnWalkWeights = function (page) {
  "use strict";
  // page: {el, text, textWith, open(files)}: open is page.js's (worker.js, then the engine).
  var el = page.el;
  // What the control says: null (no file yet), {kind: "reading", name}, {kind: "loaded", name,
  // info (the engine's attn_walk_weights answer)}, {kind: "bad", name, message (the reader's)},
  // {kind: "heads", name, message} (read, but its head count must be given) or {kind: "none"}.
  var status = null;
  var box = null;  // the control on the page (rebuilt with the controls)
  // The file the page walks: the last one read as a model (a file that could not be read leaves
  // it open). Shown beside the picker: the browser's own file input is hidden, since it forgets
  // the file when the controls are rebuilt ("No file chosen", in the browser's language, beside a
  // status line that names the file).
  var openName = null;

  function statusLines() {
    if (!status) return [];
    if (status.kind === "reading") return [el("p", {"class": "weights-status", text: page.textWith("web.weights_reading", status.name)})];
    if (status.kind === "none") return [el("p", {"class": "weights-status bad", role: "alert", text: page.text("web.weights_none")})];
    if (status.kind === "bad" || status.kind === "heads")
      return [el("p", {"class": "weights-status bad", role: "alert"}, [
        el("span", {text: page.textWith(status.kind === "bad" ? "web.weights_bad" : "web.weights_heads", status.name)}),
        el("code", {"class": "reader-error", text: status.message})])];
    var m = status.info;
    var lines = [el("p", {"class": "weights-status loaded", text: page.textWith("web.weights_loaded", status.name,
      m.n_layers, m.n_heads, m.emb_dim, m.vocab_size, m.context_length)})];
    (m.notes || []).forEach(function (n) { lines.push(el("p", {"class": "weights-note", text: n})); });
    return lines;
  }
  function redraw() {
    if (!box) return;
    box.querySelector(".open-file").textContent = openName ? page.textWith("web.weights_open", openName)
                                                           : page.text("web.weights_no_file");
    box.setAttribute("data-open", openName || "");
    box.querySelectorAll(".weights-status, .weights-note").forEach(function (e) { e.remove(); });
    statusLines().forEach(function (e) { box.appendChild(e); });
    box.setAttribute("data-weights", status ? status.kind : "");
  }

  // The control for the option table's --weights row `o`: its label and hint, a file input
  // (several files: the weights and a config.json beside them) shown as a button in the page's
  // language with the open file's name beside it, and the drop hint.
  function control(o, label, hint) {
    var input = el("input", {type: "file", name: o.name, multiple: true, "class": "file-input",
                             accept: ".safetensors,.pth,.bin,.pt,.json,application/octet-stream"});
    input.addEventListener("change", function () {
      if (input.files && input.files.length) page.open(Array.prototype.slice.call(input.files));
    });
    box = el("div", {"class": "weights", title: o.help}, [
      el("label", {}, [el("span", {"class": "lbl"}, [el("span", {text: label}), document.createTextNode(" "), hint]),
                       el("span", {"class": "picker"}, [input, el("span", {"class": "choose", text: page.text("web.weights_choose")}),
                                                       el("span", {"class": "open-file"})])]),
      el("p", {"class": "drop-hint", text: page.text("web.weights_drop")})]);
    redraw();
    return box;
  }

  // A file dragged over the page: the drop zone lights up, and the drop opens it.
  function hasFiles(e) {
    return e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types || [], "Files") >= 0;
  }
  window.addEventListener("dragover", function (e) {
    if (!hasFiles(e)) return;
    e.preventDefault();  // else the browser opens the file in place of the page
    e.dataTransfer.dropEffect = "copy";
    if (box) box.classList.add("dragging");
  });
  window.addEventListener("dragleave", function (e) {
    if (box && e.target === document.documentElement) box.classList.remove("dragging");
  });
  window.addEventListener("drop", function (e) {
    if (!hasFiles(e)) return;
    e.preventDefault();
    if (box) box.classList.remove("dragging");
    var files = Array.prototype.slice.call(e.dataTransfer.files || []);
    if (files.length) page.open(files);
  });

  return {
    control: control,
    set: function (s) {
      status = s;
      if (s && (s.kind === "loaded" || s.kind === "heads")) openName = s.name;
      redraw();
    },
    // The model read from the file (its blocks, heads ...), or null.
    info: function () { return status && status.kind === "loaded" ? status.info : null; },
    // True while the open file waits for its head count (--heads).
    waiting: function () { return !!status && status.kind === "heads"; }
  };
};
