#!/usr/bin/env python3
"""Execute one of tests/notebook/*.ipynb with a real kernel, and check its outputs against
what its metadata ("attn_walk_expect", written by make_notebooks.py) says it must show.

    run_notebook.py NOTEBOOK.ipynb BINARY REPO

The kernel imports attn_walk from REPO/python and runs BINARY ($ATTN_WALK). It runs in an
empty directory with an empty TMPDIR, both of which must still be empty afterwards: attn_walk
writes no file. Exit 0 when every expectation holds, 1 with the reasons otherwise, 77 (skipped)
without PyTorch: the ordinary test run needs none (`make torch-deps` installs it).
"""
import json
import os
import re
import sys
import tempfile

import nbclient
import nbformat

# OpenBLAS's kernel is chosen before PyTorch loads it (tests/golden/torch_env.py): set here, in
# this process's environment, it reaches the kernel that runs the notebook's `import torch`.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden"))
import torch_env  # noqa: E402,F401


def outputs_of(cell):
    """(the cell's stdout text, its text/html displays)."""
    text, htmls = "", []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            text += out.get("text", "")
        elif out.get("output_type") in ("execute_result", "display_data"):
            html = out.get("data", {}).get("text/html")
            if html:
                htmls.append(html if isinstance(html, str) else "".join(html))
        elif out.get("output_type") == "error":
            text += f"ERROR {out.get('ename')}: {out.get('evalue')}\n"
    return text, htmls


def check_ids(repo):
    """check's own diagnosis ids: the keys check.mistake.<id> of its English texts."""
    with open(os.path.join(repo, "src", "lang", "check_en.cpp"), encoding="utf-8") as f:
        return set(re.findall(r'"check\.mistake\.([a-z0-9_]+)"', f.read()))


def main(path, binary, repo):
    try:
        import torch  # noqa: F401  the learner's cells are PyTorch code
    except ImportError:
        print(f"{path}: skipped: the notebooks need python3-torch (make torch-deps)")
        return 77
    nb = nbformat.read(path, as_version=4)
    expect = nb.metadata["attn_walk_expect"]
    problems = []
    with tempfile.TemporaryDirectory(prefix="attn_walk_nb.") as scratch:
        work, tmp = os.path.join(scratch, "work"), os.path.join(scratch, "tmp")
        os.mkdir(work)
        os.mkdir(tmp)
        env = dict(os.environ, ATTN_WALK=binary, TMPDIR=tmp, PYDEVD_DISABLE_FILE_VALIDATION="1",
                   PYTHONPATH=os.path.join(repo, "python") + os.pathsep + os.environ.get("PYTHONPATH", ""))
        old_env = dict(os.environ)
        os.environ.update(env)  # the kernel inherits this environment
        try:
            client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                             resources={"metadata": {"path": work}})
            client.execute(cwd=work)
        except nbclient.exceptions.CellExecutionError as e:
            print(f"{path}: a cell raised:\n{e}")
            return 1
        finally:
            os.environ.clear()
            os.environ.update(old_env)
        for where in (work, tmp):
            left = os.listdir(where)
            if left:
                problems.append(f"files left behind in {where}: {left}")

    cells = [c for c in nb.cells if c.cell_type == "code"]
    fields = None
    for c in cells:
        text, _ = outputs_of(c)
        for line in text.splitlines():
            if line.startswith("ATTN_WALK_FIELDS "):
                fields = json.loads(line[len("ATTN_WALK_FIELDS "):])
    print(f"{os.path.basename(path)}: {json.dumps(fields)}")
    if fields is None:
        problems.append("no ATTN_WALK_FIELDS line: the report's cell did not run")
        return report(path, problems)
    # The report's display: the cell that asked (the one before the fields).
    ask = next(i for i, c in enumerate(cells) if "ATTN_WALK_FIELDS" in c.source) - 1
    _, htmls = outputs_of(cells[ask])
    if len(htmls) != 1 or 'class="attn-walk-check"' not in htmls[0]:
        problems.append(f"the report did not display as attn-walk check's HTML: {htmls!r:.300}")
        htmls = [""]
    html = htmls[0]

    if fields["ok"] != expect["ok"]:
        problems.append(f"ok is {fields['ok']}, expected {expect['ok']} (first step {fields['first_step']}, "
                        f"causes {fields['causes']})")
    if "stage" in expect and fields["stage"] != expect["stage"]:
        problems.append(f"stage {fields['stage']}, expected {expect['stage']}")
    # A whole notebook: every stage it reaches graded, each with its verdict, and the display
    # names them.
    if "stages" in expect:
        if fields["stages"] != expect["stages"]:
            problems.append(f"stages graded {fields['stages']}, expected {expect['stages']}")
        if len(expect["stages"]) > 1 and f'data-stages="{" ".join(expect["stages"])}"' not in html:
            problems.append("the display does not name the stages graded")
    if "stages_ok" in expect and fields["stages_ok"] != expect["stages_ok"]:
        problems.append(f"each stage's verdict {fields['stages_ok']}, expected {expect['stages_ok']}")
    if expect["ok"] and not all(fields["stages_ok"].values()):
        problems.append(f"a stage differs in a correct notebook: {fields['stages_ok']}")
    if expect["ok"]:
        # A correct notebook: every step it gave is equal, bit for bit, and the display says so.
        if not fields["steps"]:
            problems.append("no step was graded")
        not_equal = [s for s in fields["steps"] if s[1] != "equal"]
        if not_equal:
            problems.append(f"steps not equal: {not_equal}")
        if fields["first_step"] is not None or fields["causes"]:
            problems.append(f"first_step {fields['first_step']}, causes {fields['causes']} for a correct notebook")
        if f'<p class="verdict ok">✓ All {len(fields["steps"])} tensors given match the chapter' not in html:
            problems.append("the display does not say every tensor given matches")
    else:
        cause = expect["cause"]
        if cause not in check_ids(repo):
            problems.append(f"{cause} is not one of check's diagnosis ids (src/lang/check_en.cpp)")
        if fields["first_step"] != expect["first_step"]:
            problems.append(f"first step {fields['first_step']}, expected {expect['first_step']}")
        if cause not in fields["causes"]:
            problems.append(f"causes {fields['causes']} do not include {cause}")
        if f'data-first-step="{expect["first_step"]}"' not in html:
            problems.append(f"the display does not show {expect['first_step']} as the first difference")
        if f'data-cause="{cause}"' not in html:
            problems.append(f"the display does not name {cause}")
    # One stage's report of a whole notebook (report.reports[stage]), displayed and printed: that
    # stage's report alone, not the whole notebook's.
    if "sub_report" in expect:
        stage = expect["sub_report"]
        shown = next((c for c in cells if c.source == f'report.reports["{stage}"]'), None)
        printed = next((c for c in cells if c.source == f'print(report.reports["{stage}"])'), None)
        if shown is None or printed is None:
            problems.append(f"no cell shows or prints report.reports[{stage!r}]")
        else:
            _, h = outputs_of(shown)
            text, _ = outputs_of(printed)
            if len(h) != 1 or h[0].count('class="attn-walk-check"') != 1 or f'data-stage="{stage}"' not in h[0] \
                    or "attn-walk-check-notebook" in h[0]:
                problems.append(f"report.reports[{stage!r}] did not display that stage's report alone: {h!r:.400}")
            others = [s for s in expect["stages"] if s != stage]
            if f"stage {stage} " not in text or any(f"stage {s} " in text for s in others) \
                    or "Your notebook reaches" in text or "──" in text:
                problems.append(f"print(report.reports[{stage!r}]) did not print that stage's report alone: "
                                f"{text!r:.600}")
    if "hooks_left" in expect:
        texts = "".join(outputs_of(c)[0] for c in cells)
        if f"ATTN_WALK_HOOKS {expect['hooks_left']}" not in texts:
            problems.append(f"hooks left on the module: {texts[-200:]!r}")
    # The magics, when the notebook uses them: the same report, and the walk's page in a frame.
    for i, c in enumerate(cells):
        if c.source.startswith("%attn_walk check"):
            _, h = outputs_of(c)
            if not h or 'class="verdict ok"' not in h[0]:
                problems.append(f"%attn_walk check did not show a passing report: {h!r:.300}")
        if c.source.startswith("%attn_walk walk"):
            _, h = outputs_of(c)
            if not h or not h[0].startswith('<iframe class="attn-walk-page"') or "srcdoc=" not in h[0]:
                problems.append(f"%attn_walk walk did not show the page: {h!r:.200}")
    return report(path, problems)


def report(path, problems):
    for p in problems:
        print(f"{os.path.basename(path)}: {p}")
    if not problems:
        print(f"{os.path.basename(path)}: as expected")
    return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
