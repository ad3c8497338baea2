"""What attn_walk.check returns: the grade as data, shown formatted in a notebook."""
import json
import re

# The line before each stage's report in a whole notebook's text (src/render/check_notebook.cpp).
_STAGE_RULE = re.compile(r"^── (\S+) ─+$", re.M)


def _stage_part(document, fmt, stage):
    """Stage `stage`'s own report, cut from a whole notebook's document in `fmt`: its text
    after its rule, or its HTML fragment (the stage's <div class="attn-walk-check">)."""
    if fmt == "text":
        rules = list(_STAGE_RULE.finditer(document))
        for i, rule in enumerate(rules):
            if rule.group(1) == stage:
                end = rules[i + 1].start() if i + 1 < len(rules) else len(document)
                return document[rule.end() + 1:end].rstrip("\n") + "\n"
    elif fmt == "html":
        starts = [m.start() for m in re.finditer(r'<div class="attn-walk-check" ', document)]
        for i, start in enumerate(starts):
            if f'data-stage="{stage}"' in document[start:document.index(">", start)]:
                end = starts[i + 1] if i + 1 < len(starts) else document.rindex("</div>")
                return document[start:end]
    raise ValueError(f"stage {stage} is not in the notebook's {fmt} report")


class Step:
    """One graded step: its name, status ("equal", "close", "differs"), its mark (✓ ≈ ✗),
    the largest difference (None when the shapes differ) and, if given, the shapes."""
    MARKS = {"equal": "✓", "close": "≈", "differs": "✗", "not given": "·"}

    def __init__(self, row):
        self.name = row["name"]
        self.status = row["status"]
        self.mark = self.MARKS.get(self.status, "?")
        d = row.get("max_abs_diff")
        self.max_abs_diff = float(d) if d is not None else None
        self.shape = tuple(row["shape"]) if "shape" in row else None
        self.expected_shape = tuple(row["expected_shape"]) if "expected_shape" in row else None

    def __repr__(self):
        diff = "" if self.max_abs_diff is None else f", largest difference {self.max_abs_diff:.3g}"
        return f"<{self.mark} {self.name}: {self.status}{diff}>"


class Report:
    """attn-walk check's report on the tensors given.

    .ok          True when every tensor given is equal or close to the chapter's
    .first_step  the first step that differs, or None
    .causes      the ids of the known mistakes that reproduce it (docs/check.md)
    .steps       the graded steps, in the stage's order (Step: .name .mark .status .max_abs_diff)
    .stage       the stage graded (of a whole notebook: the first stage that differs, else the last)
    .stages      every stage graded, in the chapter's order (a whole notebook: each stage it reaches)
    .reports     {stage: Report} of each stage graded, each showing that stage's report alone
    .sources     {step: the variable it was read from}
    .data        attn-walk check --format json's whole document
    str(report) is the text report; in a notebook it shows as HTML (check --format html).
    """

    def __init__(self, data, render, sources=None):
        self.data = data
        self._render = render  # format -> the report in that format (runs the binary again)
        self._text = self._html = None
        self.stage = data["stage"]
        self.steps = [Step(r) for r in data["results"] if r["status"] != "not given"]
        first = data.get("first_difference")
        self.first_step = first["name"] if first else None
        self.ok = first is None
        self.causes = [d["id"] for d in data.get("diagnoses", [])]
        self.messages = [d["message"] for d in data.get("diagnoses", [])]
        self.sources = dict(sources or {})
        graded = data.get("stage_reports")
        self.stages = [r["stage"] for r in graded] if graded else [self.stage]
        # Each stage's own report shows that stage alone: its part of the whole document.
        self.reports = ({r["stage"]: Report(r, self._stage_render(r["stage"]), sources) for r in graded}
                        if graded else {self.stage: self})

    def _stage_render(self, stage):
        def render(fmt):
            return _stage_part(self._document(fmt), fmt, stage)
        return render

    def _document(self, fmt):
        """The whole report in `fmt`, rendered once."""
        if fmt == "text":
            return str(self)
        if fmt == "html":
            return self._repr_html_()
        return self._render(fmt)

    def __bool__(self):
        return self.ok

    def __str__(self):
        if self._text is None:
            self._text = self._render("text")
        return self._text

    def _repr_html_(self):
        if self._html is None:
            self._html = self._render("html")
        return self._html

    def __repr__(self):
        verdict = "ok" if self.ok else f"first difference {self.first_step}, causes {self.causes}"
        stages = f" (stages graded: {', '.join(self.stages)})" if len(self.stages) > 1 else ""
        return f"<attn_walk.Report stage {self.stage}: {verdict}{stages}>"

    def to_json(self):
        return json.dumps(self.data)
