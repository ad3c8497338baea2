"""Writing a dump to a file, for `attn-walk check FILE` in a terminal: whole or not at all."""
import os
import tempfile


def write(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".attn_walk_dump.", suffix=".json", dir=directory)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text + "\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # as open(path, "w") would create it
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return path
