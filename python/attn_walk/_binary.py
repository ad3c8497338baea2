"""Finding the attn-walk binary and running it with the dump on standard input."""
import os
import shutil
import subprocess

from ._errors import AttnWalkError

# The repository's own build, when the package is used from its checkout (python/attn_walk/).
_REPO_BUILD = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                           "build", "attn-walk")


def find_binary(configured=None):
    """The binary, in this order: $ATTN_WALK, attn_walk.BINARY (`configured`), `attn-walk` on
    PATH, the repository's build/attn-walk. Raises AttnWalkError saying how to build it."""
    tried = []
    for where, path in (("the ATTN_WALK environment variable", os.environ.get("ATTN_WALK")),
                        ("attn_walk.BINARY", configured)):
        if path:
            if os.path.isfile(path) and os.access(path, os.X_OK):
                return os.path.abspath(path)  # "attn-walk" here, not the one on PATH
            raise AttnWalkError(f"{where} names {path!r}, which is not an executable file")
    on_path = shutil.which("attn-walk")
    if on_path:
        return on_path
    tried.append("attn-walk on PATH")
    if os.path.isfile(_REPO_BUILD) and os.access(_REPO_BUILD, os.X_OK):
        return _REPO_BUILD
    tried.append(_REPO_BUILD)
    raise AttnWalkError(
        "the attn-walk binary was not found (looked for " + " and ".join(tried) + "). "
        "Build it in the repository with `make build`, then set attn_walk.BINARY = "
        "'<repository>/build/attn-walk' or the ATTN_WALK environment variable to it.")


def run(binary, args, stdin_text=None, ok_codes=(0,)):
    """Run the binary; return its standard output. An exit code outside `ok_codes` raises
    AttnWalkError carrying the binary's own message (its standard error). No file is written."""
    try:
        proc = subprocess.run([binary] + list(args), input=stdin_text, capture_output=True,
                              text=True, encoding="utf-8", timeout=600)
    except OSError as e:
        raise AttnWalkError(f"could not run {binary}: {e.strerror or e}") from None
    except subprocess.TimeoutExpired:
        raise AttnWalkError(f"{binary} did not answer within 600 s") from None
    if proc.returncode not in ok_codes:
        message = proc.stderr.strip() or f"exit code {proc.returncode} and no message"
        raise AttnWalkError(f"attn-walk {' '.join(args[:1])} refused this: {message}")
    return proc.returncode, proc.stdout
