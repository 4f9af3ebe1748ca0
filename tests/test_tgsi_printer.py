"""TGSI text printer (xlate/frontends/tgsi/printer.py): exact tgsi_dump-style output, the
ValueError for fields text cannot express, and round trips parse -> print -> parse on the
corpus and on random shaders (hypothesis)."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from conftest import SHARED_CORPUS, shared_corpus_or_skip
from hypothesis import HealthCheck, given, settings, strategies as st

from xlate.diagnostics import DiagnosticSink
from xlate.frontends.tgsi import opcodes
from xlate.frontends.tgsi.model import (PROCESSORS, TEXTURE_TARGETS, CondCode, Declaration,
                                        Dst, Immediate, Indirect, Instruction, Property,
                                        RegRef, Shader, Src)
from xlate.frontends.tgsi.printer import format_float32, print_shader
from xlate.frontends.tgsi.text import PROPERTIES, implicit_dim, parse_text

ROOT = Path(__file__).resolve().parents[1]
CORPUS = SHARED_CORPUS / "collected" / "tgsi"


def reparse(text: str) -> Shader:
    sink = DiagnosticSink("p.tgsi", text)
    shader = parse_text(text, sink)
    assert shader is not None and sink.items == [], [d.header() for d in sink.items]
    return shader


SMALL = """\
FRAG
PROPERTY FS_COLOR0_WRITES_ALL_CBUFS 1
DCL IN[0], GENERIC[0], PERSPECTIVE
DCL IN[1].xy, COLOR, COLOR, CENTROID
DCL OUT[0], COLOR
DCL SAMP[0]
DCL SVIEW[0], 2D, FLOAT
DCL CONST[0..3]
DCL CONST[1][0..1]
DCL TEMP[0..2], ARRAY(1), LOCAL
DCL ADDR[0]
IMM[0] FLT32 {    0.5000,     1.0000, 0x3eaaaaab,       -inf}
IMM[1] INT32 {-1, 0, 2147483647, -2147483648}
IMM[2] UINT32 {0, 1, 4294967295, 7}
IMM[3] FLT64 {0.10000000, 0x1.5555555555555p-2}
  0: UARL ADDR[0].x, IMM[2].yyyy
  1: TEX TEMP[0], IN[0], SAMP[0], 2D, IMM[1].xyz
  2: IF TEMP[0].xxxx :5
  3:   MAD_SAT TEMP[1].xyz, CONST[1][1], -|TEMP[0].wzyx|, CONST[ADDR[0].x+2]
  4: ELSE :7
  5:   MOV TEMP[ADDR[0].x-1](1).w, -IMM[0].xxxx
  6:   BGNLOOP :0
  7:     BRK
  8:   ENDLOOP :0
  9: ENDIF
 10: MUL_PRECISE OUT[0], TEMP[1], |IN[1]|
 11: END
"""


def test_exact_output_of_a_small_program():
    shader = reparse(SMALL)
    assert print_shader(shader) == SMALL
    assert reparse(print_shader(shader)) == shader


def test_hex_floats_and_inexact_immediates():
    third = struct.unpack("<I", struct.pack("<f", 1 / 3))[0]
    shader = Shader("VERT", immediates=[
        Immediate("FLT32", (0x3F800000, third, 0x80000000, 0x00000001)),
        Immediate("FLT32", (0x7FC00000, 0xFFC00000, 0x7F800001, 0x4B189680)),
        Immediate("FLT64", (0, 0x3FF00000, 1, 0x7FF80000))],
        instructions=[Instruction("END")])
    assert print_shader(shader) == (
        "VERT\n"
        "IMM[0] FLT32 {    1.0000, 0x3eaaaaab,    -0.0000, 0x00000001}\n"
        "IMM[1] FLT32 {       nan, 0xffc00000, 0x7f800001, 10000000.0000}\n"
        "IMM[2] FLT64 {1.00000000, 0x7ff8000000000001}\n"
        "  0: END\n")
    assert print_shader(shader, hex_floats=True) == (
        "VERT\n"
        "IMM[0] FLT32 {0x3f800000, 0x3eaaaaab, 0x80000000, 0x00000001}\n"
        "IMM[1] FLT32 {0x7fc00000, 0xffc00000, 0x7f800001, 0x4b189680}\n"
        "IMM[2] FLT64 {0x3ff0000000000000, 0x7ff8000000000001}\n"
        "  0: END\n")
    for hx in (False, True):
        assert reparse(print_shader(shader, hex_floats=hx)) == shader
    assert format_float32(0x3DCCCCCD) == "    0.1000"


def test_declaration_output():
    decls = [
        Declaration("IN", 0, 2, implicit_dim=True, semantic="GENERIC", semantic_index=3),
        Declaration("OUT", 0, 0, semantic="POSITION", stream=(0, 1, 0, 1), invariant=True),
        Declaration("IMAGE", 0, 0, target="2D_ARRAY", format="PIPE_FORMAT_R8_UNORM",
                    writable=True, raw=True),
        Declaration("SVIEW", 1, 1, target="CUBE", return_types=("UINT", "SINT", "SINT", "SINT")),
        Declaration("BUFFER", 0, 0, atomic=True),
        Declaration("MEMORY", 0, 0, memory_type="SHARED"),
        Declaration("TEMP", 0, 0, usage_mask=(False, True, False, True)),
        Declaration("IN", 3, 3, implicit_dim=True, semantic="COLOR", location="SAMPLE"),
    ]
    shader = Shader("GEOM", [Property("GS_INPUT_PRIMITIVE", "TRIANGLES")], decls,
                    instructions=[Instruction("END")])
    assert print_shader(shader) == (
        "GEOM\nPROPERTY GS_INPUT_PRIMITIVE TRIANGLES\n"
        "DCL IN[][0..2], GENERIC[3]\n"
        "DCL OUT[0], POSITION, STREAM(0, 1, 0, 1), INVARIANT\n"
        "DCL IMAGE[0], 2D_ARRAY, PIPE_FORMAT_R8_UNORM, WR, RAW\n"
        "DCL SVIEW[1], CUBE, UINT, SINT, SINT, SINT\n"
        "DCL BUFFER[0], ATOMIC\n"
        "DCL MEMORY[0], SHARED\n"
        "DCL TEMP[0].yw\n"
        "DCL IN[][3], COLOR, SAMPLE\n"
        "  0: END\n")
    assert reparse(print_shader(shader)) == shader


def test_memory_and_sample_offsets_output():
    b0, t1 = RegRef("BUFFER", 0), RegRef("TEMP", 1)
    insts = [
        Instruction("LOAD", (Dst(t1, (True, False, False, False)),),
                    (Src(b0), Src(t1, (0, 0, 0, 0))), memory=("COHERENT", "2D",
                                                             "PIPE_FORMAT_R32_UINT")),
        Instruction("SAMPLE", (Dst(t1),),
                    (Src(t1), Src(RegRef("SVIEW", 0)), Src(RegRef("SAMP", 0))),
                    texture="UNKNOWN", tex_offsets=(Src(RegRef("IMM", 0), (2, 1, 0, 3)),)),
        Instruction("END")]
    text = print_shader(Shader("COMP", instructions=insts))
    assert text.splitlines()[1:] == [
        "  0: LOAD TEMP[1].x, BUFFER[0], TEMP[1].xxxx, COHERENT, 2D, PIPE_FORMAT_R32_UINT",
        "  1: SAMPLE TEMP[1], TEMP[1], SVIEW[0], SAMP[0], IMM[0].zyx",
        "  2: END"]


T0 = RegRef("TEMP", 0)


def test_implicit_dim_must_follow_the_processor():
    for processor, implicit in (("GEOM", False), ("FRAG", True)):
        shader = Shader(processor, declarations=[Declaration("IN", 0, 0, implicit_dim=implicit)],
                        instructions=[Instruction("END")])
        with pytest.raises(ValueError, match=r"Declaration\.implicit_dim"):
            print_shader(shader)
    sample = Instruction("SAMPLE", (Dst(T0),), (Src(T0),) * 3, texture="2D")
    with pytest.raises(ValueError, match=r"Instruction\.texture"):
        print_shader(Shader("FRAG", instructions=[sample]))


@pytest.mark.parametrize("inst, field", [
    (Instruction("MOV", (Dst(T0),), (Src(T0, complement=True),)), "Src.complement"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, bias=True),)), "Src.bias"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, scale2x=True),)), "Src.scale2x"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, comp_neg=(True, False, False, False)),)),
     "Src.comp_neg"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, ext_divide=0),)), "Src.ext_divide"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, (0, 1, 4, 5)),)), "Src.swizzle"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, neg=True, abs=True),)), "Src.neg"),
    (Instruction("MOV", (Dst(T0),), (Src(T0, abs_neg=True),)), "Src.abs_neg"),
    (Instruction("MOV", (Dst(T0, cond=CondCode()),), (Src(T0),)), "Dst.cond"),
    (Instruction("MOV", (Dst(T0, modulate="2X"),), (Src(T0),)), "Dst.modulate"),
    (Instruction("MOV", (Dst(T0),), (Src(T0),), precision="FLOAT16"), "Instruction.precision"),
    (Instruction("MOV", (Dst(T0),), (Src(T0),), cc_update=0), "Instruction.cc_update"),
    (Instruction("MOV", (Dst(T0),), (Src(T0),), cond=CondCode("GT")), "Instruction.cond"),
    (Instruction("MOV", (Dst(T0),), (Src(T0),), saturate="SSAT"), "Instruction.saturate"),
    (Instruction("TEX", (Dst(T0),), (Src(T0), Src(T0)), texture="2D",
                 tex_offsets=(Src(T0, neg=True),)), "Instruction.tex_offsets"),
    (Instruction("MOV", (Dst(RegRef("TEMP", 0, Indirect(array_id=2))),), (Src(T0),)),
     "Indirect.array_id"),
])
def test_inexpressible_fields_raise(inst, field):
    with pytest.raises(ValueError, match=field.replace(".", r"\.")):
        print_shader(Shader("FRAG", instructions=[inst, Instruction("END")]))


# ---- corpus round trip ----------------------------------------------------------------------
def test_corpus_round_trip():
    shared_corpus_or_skip("collected/tgsi")
    count = 0
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file()):
        text = path.read_text(errors="replace")
        shader = parse_text(text, DiagnosticSink(path.name, text))
        if shader is None:
            continue
        for hx in (False, True):
            printed = print_shader(shader, hex_floats=hx)
            again = reparse(printed)
            assert again == shader, path
            assert print_shader(again, hex_floats=hx) == printed
        count += 1
    assert count == 449


# ---- random shaders -------------------------------------------------------------------------
SEMANTICS = ("POSITION", "COLOR", "GENERIC", "TEXCOORD", "FOG", "PSIZE", "FACE", "PRIM_ID",
             "CLIPDIST", "LAYER", "SAMPLEMASK", "PATCH", "TESSOUTER")
RTYPES = ("UNORM", "SNORM", "SINT", "UINT", "FLOAT")
FORMATS = ("PIPE_FORMAT_R32_UINT", "PIPE_FORMAT_R8G8B8A8_UNORM")
ALU = [op for op in ("MOV", "ADD", "MAD", "DP4", "UCMP", "BFI", "ARL", "UARL", "INEG", "DDX",
                     "FBFETCH", "READ_HELPER", "CLOCK", "KILL_IF", "SWITCH", "CASE",
                     "MEMBAR", "IMUL_HI", "DMAD", "U64ADD", "INTERP_SAMPLE")]
TEX = ("TEX", "TXP", "TXF", "TXQ", "TG4", "TXD", "TEX2", "TEX_LZ", "LODQ", "TXQS")
SAMPLE = ("SAMPLE", "SAMPLE_C", "SAMPLE_D", "GATHER4", "SAMPLE_I_MS")
MEM = ("LOAD", "STORE", "ATOMUADD", "ATOMCAS", "RESQ")
FLOW = ("IF", "UIF", "ELSE", "ENDIF", "BGNLOOP", "ENDLOOP", "BRK", "CONT", "CAL", "BGNSUB",
        "ENDSUB", "RET", "DEFAULT", "ENDSWITCH", "EMIT", "ENDPRIM", "NOP", "BARRIER", "KILL",
        "END")

comp = st.integers(0, 3)
mask = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()).filter(any)
swizzle = st.tuples(comp, comp, comp, comp)


def _f32_words():
    floats = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
    as_bits = floats.map(lambda f: struct.unpack("<I", struct.pack("<f", f))[0])
    return st.one_of(as_bits, st.integers(0, 0xFFFFFFFF),
                     st.sampled_from([0x7FC00000, 0xFFC00001, 0x7F800001, 0x80000000, 1]))


@st.composite
def immediates(draw):
    typ = draw(st.sampled_from(("FLT32", "UINT32", "INT32", "FLT64", "UINT64", "INT64")))
    if typ == "FLT32":
        words = draw(st.tuples(*[_f32_words()] * 4))
    elif typ == "FLT64":
        f64 = st.one_of(
            st.floats(allow_nan=True).map(lambda f: struct.unpack("<Q", struct.pack("<d", f))[0]),
            st.integers(0, (1 << 64) - 1))
        a, b = draw(f64), draw(f64)
        words = (a & 0xFFFFFFFF, a >> 32, b & 0xFFFFFFFF, b >> 32)
    else:
        words = draw(st.tuples(*[st.integers(0, 0xFFFFFFFF)] * 4))
    return Immediate(typ, tuple(words))


@st.composite
def declarations(draw, processor):
    """Non-overlapping declarations; returns (decls, usable registers)."""
    decls: list[Declaration] = []
    regs: list[RegRef] = []
    files = ["TEMP", "CONST", "IN", "OUT", "SAMP", "SVIEW", "SV", "IMAGE", "BUFFER", "MEMORY",
             "HWATOMIC"]
    for file in files:
        nxt = 0
        for _ in range(draw(st.integers(0, 3))):
            first = nxt + draw(st.integers(0, 3))
            last = first + draw(st.integers(0, 4))
            nxt = last + 1
            kw: dict = {}
            if file in ("SVIEW", "IMAGE"):
                kw["target"] = draw(st.sampled_from(TEXTURE_TARGETS))
                if file == "SVIEW":
                    kw["return_types"] = draw(st.one_of(
                        st.sampled_from(RTYPES).map(lambda t: (t,) * 4),
                        st.tuples(*[st.sampled_from(RTYPES)] * 4)))
                else:
                    kw["format"] = draw(st.sampled_from((None,) + FORMATS))
                    kw["writable"] = draw(st.booleans())
                    kw["raw"] = draw(st.booleans())
            elif file == "BUFFER":
                kw["atomic"] = draw(st.booleans())
            elif file == "MEMORY":
                kw["memory_type"] = draw(st.sampled_from((None, "SHARED", "PRIVATE", "INPUT")))
            else:
                kw["local"] = draw(st.booleans())
                if draw(st.booleans()):
                    kw["semantic"] = draw(st.sampled_from(SEMANTICS))
                    kw["semantic_index"] = draw(st.integers(0, 40))
                    if draw(st.integers(0, 4)) == 0:
                        kw["stream"] = draw(st.tuples(*[st.integers(0, 3)] * 4).filter(any))
                # without a semantic, ", COLOR" would read back as the semantic (the text
                # format cannot tell them apart; Mesa reads it the same way)
                interps = (None, "CONSTANT", "LINEAR", "PERSPECTIVE") + \
                    (("COLOR",) if "semantic" in kw else ())
                kw["interpolate"] = draw(st.sampled_from(interps))
                kw["location"] = draw(st.sampled_from((None, "CENTROID", "SAMPLE")))
                kw["invariant"] = draw(st.booleans())
            if draw(st.integers(0, 3)) == 0:
                kw["array_id"] = draw(st.integers(1, 5))
            usage = draw(st.one_of(st.none(), mask.filter(lambda m: not all(m))))
            if file == "CONST" and draw(st.booleans()):
                dim = draw(st.integers(1, 3))      # ranges never overlap within a file
                decls.append(Declaration(file, first, last, dim=dim, usage_mask=usage, **kw))
                regs += [RegRef(file, i, dim=dim) for i in (first, last)]
                continue
            implicit = implicit_dim(processor, file, kw.get("semantic"))
            decls.append(Declaration(file, first, last, implicit_dim=implicit, usage_mask=usage,
                                     **kw))
            regs += [RegRef(file, i) for i in (first, last)]
            if implicit:
                regs += [RegRef(file, first, dim=draw(st.integers(0, 5)))]
    decls.append(Declaration("ADDR", 0, 1))
    decls.append(Declaration("TEMP", 100, 103))
    regs += [RegRef("TEMP", 100), RegRef("TEMP", 103), RegRef("ADDR", 1)]
    return draw(st.permutations(decls)), regs


@st.composite
def registers(draw, regs, nimm):
    choice = draw(st.integers(0, 9))
    indirect = Indirect("ADDR", draw(st.integers(0, 1)), draw(comp))
    if choice == 0 and nimm:
        return RegRef("IMM", draw(st.integers(0, nimm - 1)))
    if choice == 1 and nimm:
        return RegRef("IMM", draw(st.integers(-40, 40)), indirect)
    if choice == 2:     # indirect into a declared file, optional array id
        base = draw(st.sampled_from(regs))
        return RegRef(base.file, draw(st.integers(-300, 300)), indirect, base.dim,
                      array_id=draw(st.integers(0, 3)))
    if choice == 3:     # indirect dimension
        base = draw(st.sampled_from(regs))
        dim_ind = Indirect("ADDR", draw(st.integers(0, 1)), draw(comp), draw(st.integers(0, 2)))
        return RegRef(base.file, base.index, None, draw(st.integers(-5, 5)), dim_ind)
    base = draw(st.sampled_from(regs))
    if choice == 4:     # direct with an array id
        return RegRef(base.file, base.index, None, base.dim, array_id=draw(st.integers(1, 3)))
    return base


@st.composite
def sources(draw, regs, nimm):
    reg = draw(registers(regs, nimm))
    kind = draw(st.integers(0, 3))
    return Src(reg, draw(swizzle), neg=kind == 1, abs=kind >= 2, abs_neg=kind == 3)


@st.composite
def instructions(draw, regs, nimm):
    group = draw(st.integers(0, 4))
    if group == 0:
        name = draw(st.sampled_from(FLOW))
    else:
        name = draw(st.sampled_from((ALU, TEX, SAMPLE, MEM)[group - 1]))
    op = opcodes.OPCODES[name]
    dsts = tuple(Dst(draw(registers(regs, nimm)), draw(mask)) for _ in range(op.ndst))
    srcs = tuple(draw(sources(regs, nimm)) for _ in range(op.nsrc))
    if name in ("EMIT", "ENDPRIM") and draw(st.booleans()):
        srcs = ()
    kw: dict = {}
    if op.tex:
        kw["texture"] = draw(st.sampled_from(TEXTURE_TARGETS))
    if name in SAMPLE:
        kw["texture"] = "UNKNOWN"
    if op.tex or name in SAMPLE:
        direct = [r for r in regs if r.dim is None] + (
            [RegRef("IMM", i) for i in range(nimm)])
        offsets = draw(st.lists(st.sampled_from(direct), max_size=4))
        kw["tex_offsets"] = tuple(Src(r, (draw(comp), draw(comp), draw(comp), 3))
                                  for r in offsets)
    if op.memory:
        quals = [q for q in ("COHERENT", "RESTRICT", "VOLATILE", "STREAM_CACHE_POLICY")
                 if draw(st.booleans())]
        if draw(st.booleans()):
            quals.append(draw(st.sampled_from(TEXTURE_TARGETS)))
        if draw(st.booleans()):
            quals.append(draw(st.sampled_from(FORMATS)))
        kw["memory"] = tuple(quals)
    if op.branch and draw(st.booleans()):
        kw["label"] = draw(st.integers(0, 1000))
    saturate = "SAT" if op.ndst and draw(st.booleans()) else ""
    return Instruction(name, dsts, srcs, saturate, draw(st.booleans()), **kw)


@st.composite
def shaders(draw):
    processor = draw(st.sampled_from(PROCESSORS))
    props = []
    for name in draw(st.lists(st.sampled_from(sorted(PROPERTIES)), max_size=3)):
        allowed = PROPERTIES[name]
        if allowed is None or draw(st.booleans()):
            value = str(draw(st.integers(0, 4096)))
        else:
            value = draw(st.sampled_from(allowed))
        props.append(Property(name, value))
    decls, regs = draw(declarations(processor))
    imms = draw(st.lists(immediates(), max_size=4))
    body = draw(st.lists(instructions(regs, len(imms)), max_size=12))
    return Shader(processor, props, decls, imms, body + [Instruction("END")])


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shaders(), st.booleans())
def test_random_shaders_round_trip(shader, hex_floats):
    text = print_shader(shader, hex_floats=hex_floats)
    again = reparse(text)
    assert again == shader
    assert print_shader(again, hex_floats=hex_floats) == text
    # the one-line virgl form of the same text parses to the same shader
    assert reparse(" ".join(text.split())) == shader
