"""Pinned verdicts of the GL comparison tests (issue 17 §5: "pass" alone would accept any
explanation).

Each program's outcome is pinned as ``status`` or ``status: verdict,verdict`` (the verdicts of
its localization: the replay's adopted freedoms, or its unexplained departures), in
``tests/data/verdict_pins.json``.  A different outcome fails the test, a more explained one too:
a verdict that appears or vanishes is a change of the verifier or of the implementation that
someone must look at.  The pins were taken on Mesa 22.3.6 (llvmpipe, LLVM 15, CI's Debian 12);
another Mesa may compute approximations differently: refresh them there with

    XLATE_UPDATE_PINS=1 python -m pytest tests/test_verify_random.py \\
        tests/test_verify_random_dialects.py tests/test_verify_corpus.py

and review the diff of the JSON file.

A pin may list outcomes: those seen for the program on the machines CI runs on, where what
llvmpipe computes follows the CPU it compiles for.  random-tgsi-tess_evaluation-2 was ``pass:
ftz,tolerance`` on the machine its pin was first taken on and ``pass: ftz`` on an AMD EPYC
(Zen 3: AVX2, no AVX-512), both with Mesa 22.3.6 (an approximate instruction whose result
matched the executor's there); both are kept for the program as the generator now writes it,
seen here as ``pass: ftz``.  Any outcome not listed fails; an update writes the one seen here.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

PINS_FILE = Path(__file__).resolve().parent / "data" / "verdict_pins.json"


def outcome(rep) -> str:
    verdicts = sorted({x.get("verdict") for x in rep.localization if x.get("verdict")})
    return rep.status + (": " + ",".join(verdicts) if verdicts else "")


def _load() -> dict:
    try:
        return json.loads(PINS_FILE.read_text())
    except FileNotFoundError:
        return {}


def check(key: str, rep, *, required: bool = True) -> None:
    """Assert ``rep``'s outcome is the pinned one (``required=False``: only when a pin exists,
    for property tests whose examples vary outside CI).  With XLATE_UPDATE_PINS set, record it
    instead."""
    got = outcome(rep)
    if os.environ.get("XLATE_UPDATE_PINS"):
        pins = _load()
        pins[key] = got
        tmp = PINS_FILE.with_suffix(".tmp")
        tmp.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, PINS_FILE)
        return
    want = _load().get(key)
    if want is None:
        assert not required, f"no pinned verdict for {key} (XLATE_UPDATE_PINS=1 records it)"
        return
    accepted = [want] if isinstance(want, str) else want
    assert got in accepted, (f"{key}: {got!r}, pinned {want!r} ({rep.reason})\n"
                             + "\n".join(d.describe() for d in rep.differences[:5]))
