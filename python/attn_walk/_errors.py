"""The one exception a learner sees from attn_walk, shown in a notebook as its message alone."""


class AttnWalkError(Exception):
    """Something attn_walk cannot grade: a variable it cannot read, a module whose forward
    failed, no attn-walk binary, or the binary refusing the input (its message is kept)."""

    def _render_traceback_(self):
        # IPython shows these lines instead of a traceback through attn_walk's own frames:
        # the message says what to change, the frames would not.
        return [f"AttnWalkError: {self}"]
