"""Images and atomics on the direct SPIR-V path (issue 19/20; backends/spirv_direct/images.py,
atomics.py): the image types, formats and capabilities it declares, spirv-val in both
environments on every module here, execution on llvmpipe through GL_ARB_gl_spirv checked
exactly against the executor (``xlate verify --backend gl-spirv`` runs the direct module), and
a wrong template made a mismatch."""
from __future__ import annotations

import re

import pytest

from conftest import SHARED_CORPUS, corpus_mark, gl_runner

from xlate import api
from xlate.backends.spirv import disassemble_spirv, validate_spirv
from xlate.backends.spirv_direct import Instrumentation, emit_spirv

HEAD = ("COMP\nPROPERTY CS_FIXED_BLOCK_WIDTH 4\nPROPERTY CS_FIXED_BLOCK_HEIGHT 1\n"
        "PROPERTY CS_FIXED_BLOCK_DEPTH 1\nDCL SV[0], THREAD_ID\nDCL SV[1], BLOCK_ID\n")


def copy_program(target: str, fmt: str) -> str:
    """Each invocation copies texel (thread, block.x, block.y) of IMAGE[0] to IMAGE[1] and
    stores IMAGE[1]'s size in BUFFER[0]."""
    return (HEAD + f"DCL IMAGE[0], {target}, PIPE_FORMAT_{fmt}\n"
            f"DCL IMAGE[1], {target}, PIPE_FORMAT_{fmt}, WR\nDCL BUFFER[0]\nDCL TEMP[0..2]\n"
            "IMM[0] UINT32 {0, 1, 2, 4}\n"
            "MOV TEMP[0], IMM[0].xxxx\nMOV TEMP[0].x, SV[0].xxxx\nMOV TEMP[0].yz, SV[1].xxyx\n"
            f"LOAD TEMP[1], IMAGE[0], TEMP[0], {target}, PIPE_FORMAT_{fmt}\n"
            f"STORE IMAGE[1], TEMP[0], TEMP[1], {target}, PIPE_FORMAT_{fmt}\n"
            "RESQ TEMP[2], IMAGE[1]\nSTORE BUFFER[0], IMM[0].xxxx, TEMP[2]\nEND\n")


def direct_modules(src: str, name: str = "t.tgsi") -> dict[str, str]:
    """The direct module of each environment, validated by spirv-val (with and without the
    verifier's atomic log); profile -> its disassembly."""
    prog = api.parse(src, filename=name)
    out = {}
    for profile, env in (("vulkan", "vulkan"), ("glsl450", "opengl")):
        for log in (False, True):
            spirv = emit_spirv(prog, profile,
                               instrumentation=Instrumentation(atomic_log=log)).spirv
            assert validate_spirv(spirv, target=env) is None, (name, profile, log)
            if not log:
                out[profile] = disassemble_spirv(spirv)
        t = api.translate(src, filename=name, target="spirv", profile=profile)
        assert t.spirv_via == "direct" and t.spirv_fallback_reason is None
    return out


def image_type(text: str) -> list[str]:
    """The OpTypeImage operands after the sampled type: Dim depth arrayed MS sampled format."""
    return [" ".join(m.split()[3:]) for m in re.findall(r"= OpTypeImage [^\n]*", text)]


def capabilities(text: str) -> set[str]:
    return set(re.findall(r"OpCapability (\w+)", text))


# ---- types, formats, capabilities ---------------------------------------------------------------

@pytest.mark.parametrize("target, vulkan, opengl, caps", [
    ("BUFFER", "Buffer 0 0 0 2 Rgba8", None, {"ImageBuffer"}),
    ("1D", "1D 0 0 0 2 Rgba8", None, {"Image1D"}),
    ("2D", "2D 0 0 0 2 Rgba8", None, set()),
    # Vulkan has no rectangle images (ImageRect is not a Vulkan 1.0 capability): a 2D image
    ("RECT", "2D 0 0 0 2 Rgba8", "Rect 0 0 0 2 Rgba8", {"ImageRect"}),
    ("3D", "3D 0 0 0 2 Rgba8", None, set()),
    ("CUBE", "Cube 0 0 0 2 Rgba8", None, set()),
    ("1D_ARRAY", "1D 0 1 0 2 Rgba8", None, {"Image1D"}),
    ("2D_ARRAY", "2D 0 1 0 2 Rgba8", None, set()),
    ("CUBEARRAY", "Cube 0 1 0 2 Rgba8", None, {"ImageCubeArray"}),
])
def test_every_image_target(target, vulkan, opengl, caps):
    text = direct_modules(copy_program(target, "R8G8B8A8_UNORM"))
    assert image_type(text["vulkan"]) == [vulkan]
    assert image_type(text["glsl450"]) == [opengl or vulkan]
    base = {"Shader", "ImageQuery"}
    assert capabilities(text["glsl450"]) == base | caps
    assert capabilities(text["vulkan"]) == base | (caps - {"ImageRect"})
    # LOAD, STORE, RESQ; readonly / writeonly as glslang decorates them
    for t in text.values():
        assert "OpImageRead" in t and "OpImageWrite" in t and "OpImageQuerySize" in t
        assert len(re.findall(r"OpDecorate %\w+ NonWritable", t)) == 1
        assert len(re.findall(r"OpDecorate %\w+ NonReadable", t)) == 1


@pytest.mark.parametrize("fmt, spirv, sampled, extended", [
    ("R32G32B32A32_FLOAT", "Rgba32f", "float", False),
    ("R16G16_FLOAT", "Rg16f", "float", True),
    ("R16_UNORM", "R16", "float", True),
    ("R8G8B8A8_SNORM", "Rgba8Snorm", "float", False),
    ("R16G16_SNORM", "Rg16Snorm", "float", True),
    ("R32_SINT", "R32i", "int1", False),
    ("R8G8_SINT", "Rg8i", "int1", True),
    ("R16G16B16A16_UINT", "Rgba16ui", "int0", False),
    ("R32G32_UINT", "Rg32ui", "int0", True),
])
def test_formats_are_spirv_image_formats(fmt, spirv, sampled, extended):
    text = direct_modules(copy_program("2D", fmt))
    for t in text.values():
        assert image_type(t) == [f"2D 0 0 0 2 {spirv}"]
        assert ("StorageImageExtendedFormats" in capabilities(t)) == extended
        sampled_id = re.search(r"= OpTypeImage (%\w+)", t).group(1)
        decl = re.search(rf"{sampled_id} = OpType(\w+) 32(?: (\d))?", t)
        assert decl.group(1).lower() + (decl.group(2) or "") == sampled


def test_an_image_without_a_format_is_written_without_one():
    src = (HEAD + "DCL IMAGE[0], 2D, WR\nDCL TEMP[0]\nIMM[0] FLT32 {0.5, 1.0, 0.0, 0.0}\n"
           "STORE IMAGE[0], SV[0], IMM[0], 2D\nEND\n")
    text = direct_modules(src)["vulkan"]
    assert image_type(text) == ["2D 0 0 0 2 Unknown"]
    assert "StorageImageWriteWithoutFormat" in capabilities(text)
    assert re.search(r"OpDecorate %\w+ NonReadable", text)


# ---- atomics ------------------------------------------------------------------------------------

#: the 13 TGSI atomics and the operands each invocation gives them (b: CAS's second)
ATOMS = [("ATOMUADD", "TEMP[2].xxxx"), ("ATOMXCHG", "TEMP[2].xxxx"),
         ("ATOMCAS", "IMM[0].xxxx, TEMP[2].xxxx"), ("ATOMAND", "TEMP[2].yyyy"),
         ("ATOMOR", "TEMP[2].xxxx"), ("ATOMXOR", "TEMP[2].xxxx"), ("ATOMUMIN", "TEMP[2].xxxx"),
         ("ATOMUMAX", "TEMP[2].xxxx"), ("ATOMIMIN", "TEMP[2].zzzz"),
         ("ATOMIMAX", "TEMP[2].zzzz"), ("ATOMFADD", "IMM[1].xxxx"),
         ("ATOMINC_WRAP", "IMM[1].yyyy"), ("ATOMDEC_WRAP", "IMM[1].zzzz")]


def atomic_program(kind: str) -> str:
    """Every atomic k of ATOMS on its own word: word k of a buffer, of shared memory (set by
    invocation 0, then a barrier) or texel (k, 0) of an R32 image (UINT 2D, SINT 2D array);
    each invocation stores the 13 returned words in BUFFER[1] at 16 * (block * 4 + thread) + k,
    block = x + 2 y (its own words in the 2 x 2 grid: no data race).
    Operands: TEMP[2] x = thread + 1, y = ~(1 << thread), z = thread - 2 (signed); IMM[1] the
    float 0.5 for FADD, 5 for INC_WRAP, 9 for DEC_WRAP."""
    decl, res, suffix = {
        "buffer": ("DCL BUFFER[0]\n", "BUFFER[0]", ""),
        "shared": ("DCL MEMORY[0], SHARED\n", "MEMORY[0]", ""),
        "uimage": ("DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\n", "IMAGE[0]",
                   ", 2D, PIPE_FORMAT_R32_UINT"),
        "simage": ("DCL IMAGE[0], 2D_ARRAY, PIPE_FORMAT_R32_SINT, WR\n", "IMAGE[0]",
                   ", 2D_ARRAY, PIPE_FORMAT_R32_SINT")}[kind]
    def word(k):        # byte address 4k (IMM[4..7]), or k (IMM[8..11])
        return f"IMM[{4 + k // 4}].{'xyzw'[k % 4]}", f"IMM[{8 + k // 4}].{'xyzw'[k % 4]}"
    body = ["UADD TEMP[2].x, SV[0].xxxx, IMM[0].yyyy", "SHL TEMP[2].y, IMM[0].yyyy, SV[0].xxxx",
            "NOT TEMP[2].y, TEMP[2].yyyy", "UADD TEMP[2].z, SV[0].xxxx, IMM[2].xxxx",
            "UMAD TEMP[3].x, SV[1].yyyy, IMM[0].zzzz, SV[1].xxxx",
            "UMAD TEMP[3].x, TEMP[3].xxxx, IMM[0].wwww, SV[0].xxxx",
            "SHL TEMP[3].x, TEMP[3].xxxx, IMM[2].yyyy"]        # 64 bytes an invocation
    if kind == "shared":
        body += ["USEQ TEMP[1].x, SV[0].xxxx, IMM[0].xxxx", "UIF TEMP[1].xxxx"]
        body += [f"STORE MEMORY[0].x, {word(k)[0]}, IMM[3].{'xyzw'[k % 4]}"
                 for k in range(len(ATOMS))]
        body += ["ENDIF", "BARRIER"]
    for k, (op, operands) in enumerate(ATOMS):
        addr, index = word(k)
        if res == "IMAGE[0]":
            body += ["MOV TEMP[0], IMM[0].xxxx", f"MOV TEMP[0].x, {index}"]
            addr = "TEMP[0]"
        body += [f"{op} TEMP[1].x, {res}, {addr}, {operands}{suffix}",
                 f"UADD TEMP[3].y, TEMP[3].xxxx, {addr if res != 'IMAGE[0]' else word(k)[0]}",
                 "STORE BUFFER[1].x, TEMP[3].yyyy, TEMP[1].xxxx"]
    imms = ["IMM[0] UINT32 {0, 1, 2, 4}", "IMM[1] UINT32 {1056964608, 5, 9, 0}",
            "IMM[2] INT32 {-2, 6, 0, 0}", "IMM[3] UINT32 {7, 4294967295, 9, 3}"]
    imms += [f"IMM[{4 + j}] UINT32 {{{', '.join(str(4 * k) for k in range(4 * j, 4 * j + 4))}}}"
             for j in range(4)]
    imms += [f"IMM[{8 + j}] UINT32 {{{', '.join(str(k) for k in range(4 * j, 4 * j + 4))}}}"
             for j in range(4)]
    return (HEAD + decl + "DCL BUFFER[1]\nDCL TEMP[0..3]\n" + "\n".join(imms) + "\n"
            + "\n".join(body) + "\nEND\n")


@pytest.mark.parametrize("kind", ["buffer", "shared", "uimage", "simage"])
def test_every_atomic_is_one_spirv_atomic_or_a_compare_and_swap_loop(kind):
    text = direct_modules(atomic_program(kind), f"{kind}.tgsi")["glsl450"]
    ops = re.findall(r"= Op(Atomic\w+) %\w+ %\w+ %(\w+) %(\w+)", text)
    names = [o for o, _, _ in ops]
    for native in ("AtomicIAdd", "AtomicExchange", "AtomicAnd", "AtomicOr", "AtomicXor",
                   "AtomicUMin", "AtomicUMax", "AtomicSMin", "AtomicSMax"):
        assert names.count(native) == 1, native
    # CAS once, and once in each of the three loops (FADD, INC_WRAP, DEC_WRAP), each loop
    # reading the word first with OpAtomicLoad
    assert names.count("AtomicCompareExchange") == 4 and names.count("AtomicLoad") == 3
    assert text.count("OpLoopMerge") == 3
    if kind.endswith("image"):
        assert text.count("OpImageTexelPointer") == 13
        assert "OpTypePointer Image" in text
    # scope Device (1), semantics None (0): what glslang writes for atomic*/imageAtomic*
    consts = dict(re.findall(r"%(\w+) = OpConstant %\w+ (\d+)", text))
    assert {(consts[s], consts[m]) for _, s, m in ops} == {("1", "0")}


def _verify(src: str, name: str):
    from xlate.verify.core import verify_source
    return verify_source(src, name, backend="gl-spirv", runner=gl_runner("gl-spirv"))


# ---- execution on llvmpipe through GL_ARB_gl_spirv ----------------------------------------------

@pytest.mark.parametrize("target", ["1D", "2D", "RECT", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY",
                                    "CUBEARRAY"])
def test_image_targets_verify_through_gl_spirv(target):
    rep = _verify(copy_program(target, "R8G8B8A8_UNORM"), f"{target}.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert "the direct SPIR-V path's module ran" in rep.notes and rep.compared > 0


@pytest.mark.parametrize("fmt", ["R32G32B32A32_FLOAT", "R16G16B16A16_FLOAT", "R16G16_FLOAT",
                                 "R8G8_UNORM", "R16_UNORM", "R16G16_SNORM", "R8_SNORM",
                                 "R8G8B8A8_SNORM",
                                 "R32G32B32A32_SINT", "R16G16_SINT", "R8_SINT", "R32_UINT",
                                 "R16G16B16A16_UINT", "R8G8_UINT", "R32G32_SINT"])
def test_image_formats_verify_through_gl_spirv(fmt):
    rep = _verify(copy_program("2D", fmt), f"{fmt}.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert "the direct SPIR-V path's module ran" in rep.notes


@pytest.mark.parametrize("kind", ["buffer", "shared", "uimage", "simage"])
def test_atomics_verify_through_gl_spirv(kind):
    rep = _verify(atomic_program(kind), f"{kind}.tgsi")
    assert rep.status == "pass", (rep.reason, [d.describe() for d in rep.differences[:3]])
    assert "the direct SPIR-V path's module ran" in rep.notes
    # every word each atomic reached (shared memory: once per workgroup of the 2 x 2 grid)
    words = 13 * 4 if kind == "shared" else 13
    assert any(n.startswith(f"atomics: {words} contended words") for n in rep.notes), rep.notes


# ---- a wrong template is a mismatch ----------------------------------------------------------------

def test_umax_written_as_umin_is_a_mismatch(monkeypatch):
    from xlate.backends.spirv_direct import atomics
    monkeypatch.setitem(atomics.NATIVE_ATOMICS, "ATOMUMAX", "AtomicUMin")
    rep = _verify(atomic_program("buffer"), "umax.tgsi")
    assert rep.status == "mismatch" and "the direct SPIR-V path's module ran" in rep.notes
    assert any("no order of its 16 atomics returns what the implementation returned"
               in d.describe() for d in rep.differences), [d.describe() for d in rep.differences]


def test_a_wrong_wrap_rule_is_a_mismatch(monkeypatch):
    from xlate.backends.spirv_direct import atomics
    # INC_WRAP's wrap test off by one (o + 1 < a instead of <=)
    def wrong(e, o, a):
        inc = e.val("IAdd", e.t("u", 1), o, e.c("u", 1, 1))
        return e.sel(e.cmp("ULessThan", inc, a, 1), inc, e.c("u", 0, 1), "u", 1)
    monkeypatch.setitem(atomics.LOOP_RULES, "ATOMINCWRAP", wrong)
    rep = _verify(atomic_program("shared"), "inc.tgsi")
    assert rep.status == "mismatch"


def test_a_swapped_image_coordinate_is_a_mismatch(monkeypatch):
    from xlate.backends.spirv_direct.images import ImageMixin
    real = ImageMixin.image_coordinate

    def swapped(self, ins, n):
        c = real(self, ins, n)
        return self.shuffle(c, c, (1, 0), "i") if n == 2 else c
    monkeypatch.setattr(ImageMixin, "image_coordinate", swapped)
    rep = _verify(copy_program("2D", "R8G8B8A8_UNORM"), "swap.tgsi")
    assert rep.status == "mismatch"
    assert all(d.kind == "memory" or d.describe().startswith("IMAGE[1]")
               for d in rep.differences)


# ---- the shared corpus ----------------------------------------------------------------------------

@corpus_mark("collected/tgsi")
def test_corpus_compute_programs_verify_on_the_direct_module():
    """The modern compute programs of collected/tgsi (12 of 13 store to images; none uses an
    atomic -- the two with ATOM* are 2012-era kernels, refused naming their era) run as the
    direct module on llvmpipe and match the executor."""
    from xlate.verify.core import verify_source
    files = sorted((SHARED_CORPUS / "collected" / "tgsi").rglob("*.tgsi"))
    runner = gl_runner("gl-spirv")
    ran = []
    for f in files:
        text = f.read_bytes().decode("utf-8", "replace")
        if not text.startswith("COMP") or f.parent.name == "yuq+mesa-lima":
            continue
        rep = verify_source(text, f.name, backend="gl-spirv", runner=runner)
        assert rep.status == "pass", (f.name, rep.reason)
        assert "the direct SPIR-V path's module ran" in rep.notes, f.name
        ran.append((f.name, "DCL IMAGE" in text))
    assert len(ran) == 13 and sum(image for _, image in ran) == 12
