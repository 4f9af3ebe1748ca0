"""What the two mutation harnesses share -- :mod:`mutants` (the GLSL translation) and
:mod:`mutants_tree` (the direct SPIR-V path's lowered tree): the runner wrapper both mutating
runners are built on, and the deep equality that decides whether a verifier call repeats the
harness's equivalence run.  A module of its own so that neither harness imports the other at
module level."""
from __future__ import annotations

import numpy as np


class Delegate:
    """Everything but ``run`` goes to the wrapped runner (profile, backend, describe ...),
    and so does the state the verifier sets on a runner for the draws that follow
    (:data:`FORWARDED`): the wrapped runner draws, and reads it from itself.  (Kept on the
    wrapper, a tessellation program's lanes were missing at its first re-run, and no
    tessellation program was ever clean for the mutation harness.)"""

    #: runner attributes the verifier sets (tess_verify: the tessellator's lanes and the
    #: control program's written outputs; gl_tess/gl_tcs: the textures of a harness draw)
    FORWARDED = frozenset({"tess_context", "tess_written", "_tex"})

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def __setattr__(self, name, value):
        if name in Delegate.FORWARDED:
            setattr(self.inner, name, value)
        else:
            object.__setattr__(self, name, value)


def same_arguments(a, b) -> bool:
    """Deep equality of runner arguments (arrays bitwise, dataclasses field by field)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.dtype == b.dtype and a.shape == b.shape and \
            np.array_equal(a.view(np.uint8), b.view(np.uint8))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_arguments(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_arguments(x, y) for x, y in zip(a, b))
    if hasattr(a, "__dict__"):
        return same_arguments(vars(a), vars(b))
    return a == b
