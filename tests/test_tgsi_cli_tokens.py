"""``xlate convert --target tgsi-tokens / tgsi-seed-tokens`` (issue 20): TGSI text assembled
into token streams from the command line, and the round trip text -> tokens -> text identical
(``--target tgsi`` of the stream prints what ``--target tgsi`` of the text prints), property-based
over the TGSI random generator's programs for Mesa's layout."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from xlate.cli import main
from xlate.frontends.tgsi.binary import detect_layout
from xlate.verify.generate import generate

# a seed-expressible program: no properties, no semantics (seed streams carry none; xlate's
# convention maps IN[n] to GENERIC[n] and OUT[n] to COLOR[n] in fragment programs)
SEED_FRAG = """FRAG
DCL IN[0]
DCL OUT[0]
DCL TEMP[0..1]
IMM[0] FLT32 {    0.5000,     1.0000,     0.0000,    -2.0000}
  0: MUL TEMP[0], IN[0], IMM[0].xxyy
  1: SLT TEMP[1], TEMP[0], IMM[0].zzzz
  2: KILL_IF -TEMP[1].xyxy
  3: MAD_SAT OUT[0], TEMP[0], IMM[0].wwww, |IN[0]|
  4: END
"""


def convert(tmp_path, capsysbinary, name: str, data: bytes, target: str) -> tuple[int, bytes, bytes]:
    path = tmp_path / name
    path.write_bytes(data)
    out = tmp_path / (name + "." + target)
    rc = main(["convert", "--target", target, str(path), "-o", str(out)])
    cap = capsysbinary.readouterr()
    return rc, (out.read_bytes() if rc == 0 else b""), cap.err


def round_trip(tmp_path, capsysbinary, text: str, target: str) -> tuple[bytes, bytes]:
    rc, dump, err = convert(tmp_path, capsysbinary, "p.tgsi", text.encode(), "tgsi")
    assert rc == 0, err
    rc, tokens, err = convert(tmp_path, capsysbinary, "p.tgsi", text.encode(), target)
    assert rc == 0, err
    rc, again, err = convert(tmp_path, capsysbinary, "p.bin", tokens, "tgsi")
    assert rc == 0, err
    return dump, again, tokens


def test_seed_tokens_round_trip(tmp_path, capsysbinary):
    dump, again, tokens = round_trip(tmp_path, capsysbinary, SEED_FRAG, "tgsi-seed-tokens")
    assert detect_layout(tokens) == "seed"
    assert dump.decode() == SEED_FRAG          # the input is already tgsi_dump text
    assert again == dump


def test_modern_tokens_round_trip(tmp_path, capsysbinary):
    dump, again, tokens = round_trip(tmp_path, capsysbinary, SEED_FRAG, "tgsi-tokens")
    assert detect_layout(tokens) == "modern"
    assert again == dump


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.integers(0, 10**6), st.sampled_from(["vertex", "fragment", "geometry"]))
def test_generated_programs_round_trip_through_mesa_tokens(tmp_path, capsysbinary, seed, stage):
    text = generate("tgsi", seed, stage)
    if "DFRACEXP" in text:
        # tgsi.rst documents DFRACEXP (two destinations), Mesa removed it: its number 212 is a
        # hole in p_shader_tokens.h, so such a program has no stream in Mesa's layout (the
        # refusal is pinned below); the generator's seed 0 fragment program has one
        rc, _, err = convert(tmp_path, capsysbinary, "p.tgsi", text.encode(), "tgsi-tokens")
        assert rc == 1 and b"opcode DFRACEXP has no number in the modern table" in err, err
        assume(False)
    dump, again, _ = round_trip(tmp_path, capsysbinary, text, "tgsi-tokens")
    assert again == dump


def test_dfracexp_has_no_stream_in_mesas_layout(tmp_path, capsysbinary):
    text = generate("tgsi", 0, "fragment")
    assert "DFRACEXP" in text
    rc, _, err = convert(tmp_path, capsysbinary, "p.tgsi", text.encode(), "tgsi-tokens")
    assert rc == 1
    assert err.decode().splitlines()[0] == (
        f"{tmp_path / 'p.tgsi'}:1:1: error[E7001]: opcode DFRACEXP has no number in the modern "
        "table; no token stream in Mesa's layout for this program")


def test_what_the_seed_layout_cannot_hold_is_named(tmp_path, capsysbinary):
    text = "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n  0: MOV OUT[0], IN[0]\n  1: END\n"
    rc, _, err = convert(tmp_path, capsysbinary, "g.tgsi", text.encode(), "tgsi-seed-tokens")
    assert rc == 1
    assert err.decode().splitlines()[0] == (
        f"{tmp_path / 'g.tgsi'}:1:1: error[E7001]: SEED cannot express semantics (DCL IN[0..0]); "
        "no seed-layout token stream for this program")


def test_tokens_are_not_written_to_a_terminal(tmp_path, monkeypatch, capsys):
    import sys
    path = tmp_path / "p.tgsi"
    path.write_text(SEED_FRAG)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["convert", "--target", "tgsi-tokens", str(path)]) == 2
    assert capsys.readouterr().err == ("xlate: error: refusing to write binary TGSI tokens to a "
                                       "terminal; use -o FILE\n")
