"""%attn_walk: the CLI's words in a notebook cell, the report shown inline.

    %load_ext attn_walk
    %attn_walk check --stage causal --seed 789      # the notebook's variables, graded (HTML)
    %attn_walk walk --stage causal --heatmap        # the chapter's walk as attn-walk's page
"""
import html
import shlex

from ._errors import AttnWalkError

USAGE = ("%attn_walk check [--stage S] [the walk's options]   grade this notebook's variables\n"
         "%attn_walk walk --stage S [the walk's options]       show the chapter's walk")


def parse_options(words):
    """["--stage", "causal", "--qkv-bias", "--seed", "7"] -> {"stage": "causal", "qkv_bias": True, "seed": "7"}."""
    options, i = {}, 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--") or len(word) < 3:
            raise AttnWalkError(f"%attn_walk: {word!r} is not an option (--name or --name value)\n{USAGE}")
        name = word[2:].replace("-", "_")
        if "=" in name:
            name, value = name.split("=", 1)
            options[name] = value
            i += 1
        elif i + 1 < len(words) and not words[i + 1].startswith("--"):
            options[name] = words[i + 1]
            i += 2
        else:
            options[name] = True
            i += 1
    return options


class WalkPage:
    """attn-walk's HTML page, shown in the notebook in a frame of its own (its styles and
    scripts stay inside it)."""

    def __init__(self, page):
        self.page = page

    def _repr_html_(self):
        return ('<iframe class="attn-walk-page" style="width:100%;height:640px;border:1px solid #ccc" '
                f'sandbox="allow-scripts" srcdoc="{html.escape(self.page, quote=True)}"></iframe>')

    def __repr__(self):
        return f"<attn-walk page, {len(self.page)} characters>"


def run_magic(line, namespace):
    from . import _binary, _binary_path, _option_args, check  # the package's own functions
    words = shlex.split(line)
    if not words or words[0] not in ("check", "walk"):
        raise AttnWalkError(f"%attn_walk: say check or walk first\n{USAGE}")
    options = parse_options(words[1:])
    stage = options.pop("stage", None)
    if words[0] == "check":
        return check(stage, namespace=namespace, **options)
    # The page draws the heatmaps itself; --heatmap is the terminal's.
    options.pop("heatmap", None)
    args = ["--stage", stage or "dot-product", "--format", "html"] + _option_args(options, check=False)
    return WalkPage(_binary.run(_binary_path(), args)[1])


def register(ipython):
    def attn_walk(line):
        return run_magic(line, ipython.user_ns)

    attn_walk.__doc__ = USAGE
    ipython.register_magic_function(attn_walk, magic_kind="line", magic_name="attn_walk")
