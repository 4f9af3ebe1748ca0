"""Where the team's shared folder (``../shared``: the corpus, specs, design notes) is -- the one
rule every test (tests/conftest.py) and tool follows.

* ``XLATE_SHARED`` unset: ``shared`` beside the checkout (``ROOT/../shared``), the team layout;
* ``XLATE_SHARED=PATH``: that folder;
* ``XLATE_SHARED=`` (empty) or ``XLATE_SHARED=none``: no shared folder, as on a plain clone.
  ``.ci/run`` runs the suite a second time so, to prove that it passes without one.

A hidden folder is ``/dev/null/shared``: a path that exists on no system (``/dev/null`` is not
a folder), so every ``exists()``/``is_dir()``/``rglob`` of the callers says "absent" without
a special case.
"""
from __future__ import annotations

import os
from pathlib import Path

VARIABLE = "XLATE_SHARED"
HIDDEN = Path(os.devnull) / "shared"


def shared_dir(root: Path) -> Path:
    """The shared folder for the checkout at ``root`` (which may not exist)."""
    value = os.environ.get(VARIABLE)
    if value is None:
        return Path(root).resolve().parent / "shared"
    if value.strip().lower() in ("", "none"):
        return HIDDEN
    return Path(value)


def hidden() -> bool:
    """Whether XLATE_SHARED hides the shared folder."""
    value = os.environ.get(VARIABLE)
    return value is not None and value.strip().lower() in ("", "none")
