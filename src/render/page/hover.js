// Hovering an attention weight in the page's walk (the engine's or --format html's): its row and
// column outlined in the heatmap, and the query row, key row, value row and context entry it
// connects marked in the printed tensors. page.js calls decorate() on each walk it shows.
var AttnWalkHover = (function () {
  "use strict";
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
      pre.appendChild(marked[l] ? span(s) : document.createTextNode(s));
    });
  }
  function span(s) {
    var e = document.createElement("span");
    e.className = "hl";
    e.textContent = s;
    return e;
  }
  function clearMarks(walkBox) {
    walkBox.querySelectorAll("pre.tensor[data-text]").forEach(function (pre) {
      if (pre.querySelector(".hl")) pre.textContent = pre.getAttribute("data-text");
    });
    walkBox.querySelectorAll("svg.heatmap .hl").forEach(function (r) { r.remove(); });
  }
  function hover(svg, evt, walkBox) {
    var g = svg.getAttribute("data-grid").split(" ").map(Number), left = g[0], top = g[1], cell = g[2];
    var index = svg.getAttribute("data-index").split(" ").map(Number), n = index.length;
    var pt = svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    var p = pt.matrixTransform(svg.getScreenCTM().inverse());
    var r = Math.floor((p.y - top) / cell), c = Math.floor((p.x - left) / cell);
    clearMarks(walkBox);
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
  function decorate(walkBox) {
    walkBox.querySelectorAll("pre.tensor").forEach(function (pre) { pre.setAttribute("data-text", pre.textContent); });
    walkBox.querySelectorAll("svg.heatmap[data-grid]").forEach(function (svg) {
      svg.addEventListener("mousemove", function (e) { hover(svg, e, walkBox); });
      svg.addEventListener("mouseleave", function () { clearMarks(walkBox); svg.removeAttribute("data-hover"); });
    });
  }

  return {decorate: decorate};
})();
