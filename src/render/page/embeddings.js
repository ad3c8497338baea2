// The page's embeddings editor: the input's tokens and vectors as a table of text cells (a token
// or a dimension added or removed, JSON pasted, the chapter's table back), or, with --text, the
// pieces the text gave, read-only. It reads no numbers: the table goes to the engine as JSON
// text, and the engine says what is wrong with it. Only a cell that is no number at all is
// caught here, to point at it. page.js makes one, giving what it needs of the page.
var AttnWalkEmbeddings = function (page) {
  "use strict";
  var el = page.el, text = page.text, textWith = page.textWith;

  // The embeddings as rows of text cells; sent to the engine as JSON text, so the engine
  // (not this script) reads the numbers and reports what is wrong with them.
  function tableRows() {
    var src = page.data.default_input, input = page.state().input;
    if (input) { try { src = JSON.parse(input); } catch (e) { /* the engine said why */ } }
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
          return {row: i, col: j, message: textWith("web.cell_not_number", i + 1, j + 1, rows[i].values[j].trim())};
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
    page.walkBox.querySelectorAll("header ol.tokens li").forEach(function (li) {
      list.appendChild(el("li", {text: li.lastChild ? li.lastChild.textContent : li.textContent}));
    });
    return list;
  }
  function refreshPieces() {
    var old = page.form.querySelector(".emb ol.pieces");
    if (old) old.replaceWith(piecesView());
  }
  function embeddingsEditor() {
    var box = el("div", {"class": "emb"});
    tableBox = box;
    if (page.state().text) {
      // The text replaces the table: say so, and show the tokens it gives.
      box.appendChild(el("p", {"class": "text-note", text: text("web.text_replaces")}));
      box.appendChild(piecesView());
      return box;
    }
    var rows = tableRows();
    function redraw() { var fresh = embeddingsEditor(); box.replaceWith(fresh); }
    function send(structural) {
      box.querySelectorAll("input.bad").forEach(function (c) { c.classList.remove("bad"); c.removeAttribute("aria-invalid"); });
      box.querySelectorAll(".field-error").forEach(function (e) { e.remove(); });
      var bad = badCell(rows);
      if (bad) {
        var cell = box.querySelector('input[data-row="' + bad.row + '"][data-col="' + bad.col + '"]');
        if (cell) { cell.classList.add("bad"); cell.setAttribute("aria-invalid", "true"); }
        page.errorBox.classList.remove("stopped");
        page.errorBox.textContent = bad.message + "\n" + text("web.kept");
        page.fieldError(scroller, bad.message);  // under the table, where the learner typed
        return;
      }
      page.change("input", inputText(rows)).then(function (ok) { if (structural && ok) redraw(); });
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
        // Named for a screen reader by its row (and token) and column, as an error names it.
        var cell = el("input", {value: x, inputMode: "decimal", "data-row": String(i), "data-col": String(j),
                                "aria-label": textWith("web.cell_name", i + 1, r.token, j + 1)});
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
    paste.value = page.state().input || "";
    box.appendChild(el("p", {text: text("web.embeddings")}));
    // The table scrolls inside its own box; where it is wider than that box (a phone, many
    // dimensions), a line above it says so.
    var scroller = el("div", {"class": "emb-scroll"}, [table]);
    var scrollHint = el("p", {"class": "scroll-hint", text: text("web.table_scrolls"), hidden: true});
    box.appendChild(scrollHint);
    box.appendChild(scroller);
    function checkScroll() {
      if (!scroller.isConnected) { window.removeEventListener("resize", checkScroll); return; }
      scrollHint.hidden = scroller.scrollWidth <= scroller.clientWidth + 1;
    }
    window.addEventListener("resize", checkScroll);
    requestAnimationFrame(checkScroll);
    box.checkScroll = checkScroll;
    box.appendChild(el("p", {}, [
      button("web.add_token", "add-token", function () {
        rows.push({token: "x" + (rows.length + 1), values: rows.length ? rows[0].values.map(function () { return "0"; }) : ["0"]});
        send(true);
      }),
      button("web.add_dim", "add-dim", function () { rows.forEach(function (r) { r.values.push("0"); }); send(true); }),
      button("web.remove_dim", "remove-dim", function () {
        if (D > 1) { rows.forEach(function (r) { r.values.pop(); }); send(true); }
      }),
      button("web.reset", "reset", function () {
        page.change("input", undefined).then(function (ok) { if (ok) redraw(); });
      })]));
    box.appendChild(el("label", {}, [el("span", {text: text("web.paste")}), paste]));
    box.appendChild(button("web.apply", "apply", function () {
      page.change("input", paste.value).then(function (ok) { if (ok) redraw(); });
    }));
    return box;
  }

  return {editor: embeddingsEditor, redraw: redrawTable, refreshPieces: refreshPieces};
};
