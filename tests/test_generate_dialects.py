"""The random program generators of every dialect (xlate.verify.generate) write programs the
frontends accept and the backend translates -- a frontend test over many seeds, no GL needed.

Each generated program must parse without a diagnostic (not even a warning: the generators
follow the specs' rules), translate to GLSL that glslang accepts, stay within the dialect's
limits, and be a pure function of its seed.  Over the seeds, each dialect's distinctive
features must show up (so that a generator change cannot drop one silently).
"""
from __future__ import annotations

import re

import pytest

import xlate
from xlate.verify.generate import DIALECTS, GeneratorError, file_name, generate, random_program

SEEDS = range(40)
CASES = [(d.name, st) for d in DIALECTS.values() for st in d.stages]

#: header each dialect's programs start with
HEADERS = {"nv4": ("!!NVvp4.0", "!!NVfp4.0"), "vp1.0": ("!!VP1.0",), "vp1.1": ("!!VP1.1",),
           "vsp1.0": ("!!VSP1.0",), "vp2.0": ("!!VP2.0",), "arbvp": ("!!ARBvp1.0",),
           "arbvp-nv2": ("!!ARBvp1.0\nOPTION NV_vertex_program2;",),
           "arbvp-nv3": ("!!ARBvp1.0\nOPTION NV_vertex_program3;",), "arbfp": ("!!ARBfp1.0",),
           "arbfp-nv": ("!!ARBfp1.0\nOPTION NV_fragment_program;",),
           "arbfp-nv2": ("!!ARBfp1.0\nOPTION NV_fragment_program2;",), "fp1.0": ("!!FP1.0",),
           "tgsi": ("VERT", "FRAG", "GEOM", "TESS_EVAL", "TESS_CTRL", "COMP")}

#: (max instructions, max temporaries) each program stays within: the specs' minimum limits
#: (VP1 128, VP2 256, ARBVP 128 / 12 temps, ARBFP 72 / 16 temps; FP1 1024)
LIMITS = {"vp1.0": (128, None), "vp1.1": (128, None), "vsp1.0": (128, None), "vp2.0": (256, None),
          "arbvp": (128, 12), "arbvp-nv2": (128, 12), "arbvp-nv3": (128, 12), "arbfp": (72, 16),
          "arbfp-nv": (72, 16), "arbfp-nv2": (72, 16), "fp1.0": (1024, None)}
_DECL = re.compile(r"^\s*(!!|#|OPTION|TEMP|SHORT|LONG|PARAM|ATTRIB|OUTPUT|ADDRESS|ALIAS|"
                   r"DEFINE|DECLARE|END$|\w+:$)")

#: per dialect, features (regular expressions) that must appear in some of the programs
FEATURES = {
    "vp1.0": [r"ARL A0\.x", r"c\[A0\.x [+-] \d+\]", r"\bDST\b", r"\bLIT\b", r"\bEXP\b", r"\bLOG\b",
              r"v\[[A-Z]", r"o\[TEX\d\]"],
    "vp1.1": [r"\bRCC\b", r"\bDPH\b", r"\bSUB\b", r"\bABS\b", r"NV_position_invariant",
              r"c\[A0\.x"],
    "vsp1.0": [r"MOV c\[\d+\]", r"v\[0\]"],
    "vp2.0": [r"\bBRA L\d+ \(", r"\bCAL S\d", r"\bRET\b", r"\bARA", r"\bARR", r"ARL\w* A1",
              r"c\[A1\.[xyzw]", r"\w+C [^,]+,", r"\((EQ|GE|GT|LE|LT|NE|TR|FL)", r"\|", r"^main:",
              r"\bSSG\b", r"\bSFL\b", r"\bSTR\b", r"\bSEQ\b"],
    "arbvp": [r"ADDRESS a0", r"ARL a0\.x", r"c\[a0\.x [+-] \d+\]", r"state\.", r"program\.",
              r"\bSWZ\b", r"ATTRIB ", r"OUTPUT ", r"PARAM m\[4\]"],
    "arbvp-nv2": [r"\bBRA L\d+", r"\bCAL S\d", r"\bRET\b", r"ARA", r"ARR", r"a1\.[xyzw]",
                  r"result\.clip", r"\w+C [^,]+,", r"\((EQ|GE|GT|LE|LT|NE|TR|FL)", r"\bSSG\b"],
    "arbvp-nv3": [r"\bTEX\b", r"\bTXL\b", r"\bPUSHA\b", r"\bPOPA\b", r"C1\b", r"(EQ|GE|GT|LE|LT|NE)1",
                  r"_SAT", r"vertex\.attrib\[a[01]\.[xyzw] \+ \d+\]",
                  r"result\.texcoord\[a[01]\.[xyzw] \+ \d+\]"],
    "arbfp": [r"\bTEX\b", r"\bTXP\b", r"\bTXB\b", r"\bKIL\b", r"_SAT", r"fragment\.texcoord",
              r"fragment\.color", r"\bSWZ\b", r"result\.depth", r"\.[rgba]{4}"],
    "arbfp-nv": [r"\w+H[C ]", r"\w+X[C_ ]", r"SHORT TEMP", r"\bDDX\b", r"\bPK2H\b", r"\bUP4B\b",
                 r"KIL (EQ|GE|GT|LE|LT|NE|TR|FL)", r"\bTXD\b", r"\bRFL\b", r"\bX2D\b", r"\|"],
    "arbfp-nv2": [r"^\s*IF ", r"^\s*ELSE;", r"^\s*LOOP ", r"^\s*REP ", r"BRK \(",
                  r"fragment\.texcoord\[A0\.x \+ \d\]", r"\bCAL S\d", r"_SSAT", r"\bNRM\b",
                  r"\bTXL\b", r"fragment\.facing"],
    "fp1.0": [r"f\[TEX\d\]", r"f\[WPOS\]", r"o\[COL[RH]\]", r"o\[DEPR\]", r"\bH\d+", r"DEFINE ",
              r"DECLARE ", r"p\[\d+\]", r"KIL ", r"\b(RC|HC)\b", r"\w+X[C_ ]", r"TEX\d+, ",
              r"\bPK4UB\b"],
    "tgsi": [r"^\s*\d+: (\s*)IF ", r"UIF ", r"BGNLOOP", r"ENDLOOP", r"\bBRK\b", r"\bCONT\b",
             r"SWITCH", r"CASE", r"BGNSUB", r"CAL :\d+", r"ADDR\[0\]\.[xyzw]", r"UARL",
             r"\bUADD\b", r"IMM\[\d+\] INT32", r"IMM\[\d+\] UINT32", r"0x[0-9a-f]{8}",
             r"CONST\[1\]\[", r"TEMP\[ADDR", r"_SAT"],
}
STAGE_FEATURES = {
    ("tgsi", "fragment"): [r"KILL_IF", r"\bTEX\b", r"\bDDX\b|\bDDY\b", r"PERSPECTIVE", r"CONSTANT",
                           r"\bSAMPLE ", r"\bSAMPLE_L\b", r"\bSAMPLE_B\b", r"\bTG4\b",
                           r"\bD(ADD|MUL|MAD)\b", r"\b[FIU]2D\b", r"\bD2[FIU]", r"\bDFRACEXP\b",
                           r"\b[UI]64[A-Z]+\b", r"\bLODQ\b", r"\bTXL2\b", r"\bSAMPLE_I_MS\b",
                           r"\bTXQS\b", r"TXF .*, 2D_MSAA", r"TXF .*, 2D_ARRAY_MSAA",
                           r"TXQ .*, (CUBEARRAY|2D_MSAA|2D_ARRAY_MSAA)"],
    ("tgsi", "geometry"): [r"EMIT IMM", r"ENDPRIM", r"IN\[\d\]\[\d\]", r"GS_MAX_OUTPUT_VERTICES"],
    ("tgsi", "tess_evaluation"): [r"TES_PRIM_MODE 4", r"TES_PRIM_MODE 7", r"TES_PRIM_MODE 1",
                                  r"TES_SPACING 0", r"TES_SPACING 1", r"TES_SPACING 2",
                                  r"TES_VERTEX_ORDER_CW 1", r"TES_POINT_MODE 1",
                                  r"IN\[\d\]\[\d\]", r"SV\[0\]\.[xyz]{4}", r"PATCH\[0\]"],
    ("tgsi", "tess_control"): [r"TCS_VERTICES_OUT [1-4]", r"UARL ADDR\[1\]\.x, SV\[0\]",
                               r"OUT\[ADDR\[1\]\.x\]\[\d\]", r"IN\[ADDR\[1\]\.x\]\[\d\]",
                               r"IN\[\d\]\[\d\]", r"TESSOUTER", r"PATCH\[0\]"],
    ("tgsi", "compute"): [r"CS_FIXED_BLOCK_WIDTH 8", r"CS_FIXED_BLOCK_HEIGHT 4", r"GRID_SIZE",
                          r"LOAD [^,]+, BUFFER\[0\], TEMP\[\d+\]\.zzzz",
                          r"STORE BUFFER\[1\]\.[xyzw]+, ", r"LOAD [^,]+, BUFFER\[1\]",
                          r"STORE MEMORY\[0\], [^\n]*\n[^\n]*BARRIER\n[^\n]*LOAD [^,]+, MEMORY\[0\]",
                          r"\bMEMBAR\b", r"ATOMCAS \S+, BUFFER\[2\], [^,]+, [^,]+, ",
                          r"ATOMFADD", r"ATOMINC_WRAP", r"ATOMDEC_WRAP", r"ATOMUADD",
                          r"ATOMXCHG", r"ATOMI(MIN|MAX)", r"ATOMU(MIN|MAX)",
                          r"ATOM\w+ [^,]+, BUFFER\[2\], TEMP\[\d+\]\.wwww, ",
                          r"LOAD [^,]+, IMAGE\[0\], TEMP\[\d+\], 2D, PIPE_FORMAT_R32G32B32A32",
                          r"STORE IMAGE\[1\], TEMP\[\d+\]\.xyxy, ", r"LOAD [^,]+, IMAGE\[1\]",
                          r"ATOM\w+ [^,]+, IMAGE\[1\], TEMP\[\d+\], "],
}


def count_instructions(text: str) -> int:
    return sum(1 for ln in text.splitlines() if ln.strip() and not _DECL.match(ln))


@pytest.mark.parametrize("dialect,stage", CASES)
def test_generated_programs_parse_and_translate(dialect, stage):
    heads = HEADERS[dialect]
    for seed in SEEDS:
        text = generate(dialect, seed, stage)
        assert text == generate(dialect, seed, stage), f"seed {seed} is not reproducible"
        assert any(text.startswith(h) for h in heads), text[:60]
        prog = xlate.parse(text, filename=file_name(dialect, seed, stage))
        assert not prog.diagnostics, (seed, [str(d) for d in prog.diagnostics], text)
        assert prog.stage.value == stage
        xlate.translate(text, validate=True)
        if dialect in LIMITS:
            most, temps = LIMITS[dialect]
            assert count_instructions(text) <= most, (seed, text)
            if temps is not None:
                declared = sum(len(m.split(",")) for m in re.findall(r"^(?:SHORT |LONG )?TEMP (.+);",
                                                                    text, re.M))
                assert declared <= temps, (seed, text)


@pytest.mark.parametrize("dialect,stage", CASES)
def test_generators_cover_the_dialect_features(dialect, stage):
    texts = [generate(dialect, seed, stage) for seed in SEEDS]
    for pattern in FEATURES.get(dialect, []) + STAGE_FEATURES.get((dialect, stage), []):
        assert any(re.search(pattern, t, re.M) for t in texts), \
            f"{dialect} ({stage}): no program in seeds {SEEDS} has {pattern!r}"


def test_avoid_leaves_features_out():
    for seed in range(20):
        t = generate("vp2.0", seed, avoid={"flow", "cc", "relative"})
        assert not re.search(r"\b(BRA|CAL|RET|ARL|ARA|ARR)\b|\(|A0|A1", t), t
        t = generate("arbfp-nv2", seed, avoid={"flow", "tex", "kill", "precision"})
        assert not re.search(r"\b(IF|REP|LOOP|KIL|TEX|TXP|TXB|TXL|TXD)\b|SHORT", t), t
        t = generate("tgsi", seed, "vertex", avoid={"flow", "int", "relative"})
        assert not re.search(r"BGNLOOP|\bIF\b|SWITCH|UADD|ADDR", t), t


def test_generator_errors_are_reported(monkeypatch):
    """A generator bug surfaces as GeneratorError naming the dialect, seed and diagnostics."""
    from xlate.verify.generate import vp
    monkeypatch.setattr(vp, "generate", lambda *a, **k: "!!VP1.0\nMOV R0, R99;\nEND\n")
    with pytest.raises(GeneratorError, match="vp1.0 seed 3"):
        generate("vp1.0", 3)
    with pytest.raises(ValueError, match="unknown dialect"):
        generate("vp9.9", 1)
    with pytest.raises(ValueError, match="no geometry programs"):
        generate("arbfp", 1, "geometry")


def test_nv4_api_is_unchanged():
    """random_program (the NV4 API of the former generate.py) gives the programs it gave: the
    NV4 property tests name open cases by seed."""
    text = random_program(31, "vertex")
    assert text.startswith("!!NVvp4.0\n# random program (xlate.verify.generate), stage vertex\n")
    assert generate("nv4", 31, "vertex") == text


#: issue 20's remaining opcode groups, which the TGSI generator draws from its fifth random
#: stream: every processor writes the ALU ones, fragment programs the rest too
ISSUE20_ALU = ("IBFE", "UBFE", "BFI", "BREV", "POPC", "LSB", "IMSB", "UMSB", "FMA", "LDEXP",
               "PK2H", "PK2US", "PK4B", "PK4UB", "UP2H", "UP2US", "UP4B", "UP4UB")
ISSUE20_FRAGMENT = ("DEMOTE", "READ_HELPER", "DDX_FINE", "DDY_FINE", "TEX2", "TXB2", "SAMPLE_C",
                    "SAMPLE_C_LZ", "SAMPLE_D")


@pytest.mark.parametrize("stage", DIALECTS["tgsi"].stages)
def test_tgsi_generator_covers_issue20_groups(stage):
    """Over 200 programs of each processor (text only, no GL), every opcode of issue 20's
    bitfield, FMA/LDEXP, pack/unpack -- and in fragment programs DEMOTE/READ_HELPER, the fine
    derivatives, TEX2/TXB2 and the SAMPLE_C/SAMPLE_C_LZ/SAMPLE_D forms -- is written; none of
    them with ``avoid={"modern"}``."""
    def opcodes(text: str) -> set[str]:
        return set(re.findall(r"^\s*\d+: \s*([A-Z0-9_]+)\b", text, re.M))

    want = set(ISSUE20_ALU + (ISSUE20_FRAGMENT if stage == "fragment" else ()))
    used = set().union(*(opcodes(generate("tgsi", seed, stage)) for seed in range(200)))
    assert sorted(want - used) == []
    for seed in range(20):
        t = generate("tgsi", seed, stage, avoid={"modern"})
        assert not opcodes(t) & want, t


def _image_forms(text: str) -> set[tuple[str, str]]:
    """(opcode, what it acts on) of every instruction on an image or an atomic counter: the
    image's declared target (a multisample one also as ``MSAA``) or ``HWATOMIC``."""
    targets = dict(re.findall(r"^DCL IMAGE\[(\d+)\], (\w+),", text, re.M))
    out = set()
    for op, res in re.findall(r"^\s*\d+: \s*([A-Z0-9_]+) [^\n]*?\b(IMAGE\[\d+\]|HWATOMIC)",
                              text, re.M):
        if res == "HWATOMIC":
            out.add((op, res))
            continue
        t = targets[res[6:-1]]
        out |= {(op, t), (op, "MSAA" if "MSAA" in t else t)}
    return out


def test_tgsi_compute_generator_covers_buffer_and_multisample_images_and_counters():
    """Over 200 compute programs, the sixth stream's resources (issue 20): LOAD, STORE and
    RESQ on buffer images and on both multisample targets, every atomic on a buffer image, on
    a multisample image and on an atomic counter, LOAD of a counter, both forms of the counter
    declaration; none of them with ``avoid={"resources"}``."""
    from xlate.verify.generate.tgsi_compute import ATOMICS
    want = {(op, t) for op in ("LOAD", "STORE", "RESQ")
            for t in ("BUFFER", "2D_MSAA", "2D_ARRAY_MSAA")}
    want |= {(op, t) for op in ATOMICS for t in ("BUFFER", "MSAA", "HWATOMIC")}
    want.add(("LOAD", "HWATOMIC"))
    texts = [generate("tgsi", seed, "compute") for seed in range(200)]
    used = set().union(*map(_image_forms, texts))
    assert sorted(want - used) == []
    joined = "\n".join(texts)
    assert "DCL HWATOMIC[0][0..3], ARRAY(1)" in joined and "DCL HWATOMIC[1][0]\n" in joined
    assert "HWATOMIC[0][ADDR[1].x]" in joined
    for seed in range(20):
        t = generate("tgsi", seed, "compute", avoid={"resources"})
        assert not re.search(r"IMAGE\[[2-9]\]|HWATOMIC|BUFFER, |MSAA", t), t


def test_tgsi_compute_atomics_update_words_of_one_workgroup():
    """Every atomic of a generated compute program -- on BUFFER[2], IMAGE[1] and the sixth
    stream's resources -- updates a location no other workgroup updates (tgsi_compute's
    docstring: workgroups run concurrently, so a location several of them update can take
    another order in each dispatch, and the verifier's probe dispatches then disagree with
    the main one: compute 519, inputs seed 500, failed 1 run in 3 while BUFFER[2]'s word was
    the invocation index mod 4).  Run in the executor over the verifier's grid, on the
    verifier's buffers and images; the atomic log says which invocation touched what."""
    from xlate.exec.compute import execute_compute
    from xlate.verify.analysis import analyse
    from xlate.verify.gl_compute import GROUPS, generated_buffers, generated_images
    from xlate.verify.inputs import generate as generate_inputs
    atomics = 0
    for seed in range(40):
        program = xlate.parse(generate("tgsi", seed, "compute"))
        per_group = program.local_size[0] * program.local_size[1] * program.local_size[2]
        params = generate_inputs(program, analyse(program, set()), 1, seed).exec_params(program)
        res = execute_compute(program, GROUPS, buffers=generated_buffers(program, seed),
                              images=generated_images(program, seed), params=params)
        groups: dict = {}
        for inv, _seq, resource, location, *_ in res.atomics:
            groups.setdefault((resource, location), set()).add(inv // per_group)
        shared = {k: sorted(v) for k, v in groups.items() if len(v) > 1}
        assert shared == {}, (seed, shared)
        atomics += len(res.atomics)
    assert atomics > 1000          # the loop looked at atomics, not at empty logs


def test_every_tgsi_opcode_is_generated_or_excluded_with_a_reason():
    """Every opcode of tgsi.rst (tests/data/tgsi_rst_opcodes.txt, the list
    test_tgsi_opcode_coverage.py checks against the spec) is written by the TGSI generator in
    seeds 0..199 of some processor, or is on its documented exclusion list
    (tgsi_coverage.NOT_GENERATED, each with the reason) -- so an opcode the translator learns
    cannot be left out of the random programs silently; and nothing on that list is written."""
    from pathlib import Path

    from xlate.verify.generate.tgsi_coverage import NOT_GENERATED
    names = [ln.strip() for ln in
             (Path(__file__).parent / "data" / "tgsi_rst_opcodes.txt").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    used = set()
    for stage in DIALECTS["tgsi"].stages:
        for seed in range(200):
            used |= set(re.findall(r"^\s*\d+: \s*([A-Z0-9_]+)\b",
                                   generate("tgsi", seed, stage, check=False), re.M))
    assert sorted(n for n in names if n not in used and n not in NOT_GENERATED) == []
    assert sorted(n for n in NOT_GENERATED if n in used) == []
    assert set(NOT_GENERATED) <= set(names) and all(NOT_GENERATED.values())


#: the seventh stream's opcodes (tgsi_coverage.COVER_DOUBLE_OPS and these)
COVERAGE_OPS = ("NOP", "ARR", "TEX_LZ", "TXD", "SAMPLE_I", "GATHER4", "SVIEWINFO", "LOD")


@pytest.mark.parametrize("stage", ["vertex", "fragment"])
def test_tgsi_coverage_stream_can_be_avoided(stage):
    from xlate.verify.generate.tgsi_coverage import COVER_DOUBLE_OPS
    want = set(COVERAGE_OPS) | set(COVER_DOUBLE_OPS)
    for seed in range(20):
        t = generate("tgsi", seed, stage, avoid={"coverage"})
        assert not set(re.findall(r"^\s*\d+: \s*([A-Z0-9_]+)\b", t, re.M)) & want, t
