"""TGSI shader (``model.Shader``) -> IR ``Program``.

This is where TGSI's quirks are removed (ARCHITECTURE.md "Frontends"); the IR opcodes then have
one meaning for the executor and the GLSL backend.  One small function per TGSI opcode family
(``_OPS`` at the bottom maps each mnemonic to it); an opcode with no function is rejected with
E3008 naming it, and an operand form the IR cannot express with E7001 naming the form.

Readings chosen where tgsi.rst / tgsi_exec leave room (each one also has a test in
tests/test_tgsi_lower.py):

* Registers are untyped 32-bit words (IR ``DataType.NONE``); every opcode says how it reads them.
  ``MOV`` is a bit copy: it becomes ``MOV.U`` when its source is touched by integer opcodes
  anywhere in the program (flow-insensitive), else ``MOV.F``; with a modifier or ``_SAT`` it is
  float (tgsi.md 2.1: MOV's modifiers are float sign-bit operations).
* ``IF src`` is true where ``src.x != 0.0`` as a float (so -0.0 is false, NaN true): lowered to
  ``MOV.CC1`` into a scratch register (the float flag rule: NE = SF or not ZF) and ``IF NE1.x``.
  ``UIF`` tests the bits (``MOV.U.CC1``).  A seed stream that uses CC1 itself gets CC0 instead
  (``Lowerer.flag_cc``); one using both is refused (E7001).
* TGSI ``MIN``/``MAX`` are ``fminf``/``fmaxf`` (the non-NaN operand): IR ``MINNUM``/``MAXNUM``.
* Componentwise integer ``IDIV UDIV MOD UMOD SHL ISHR USHR`` and float ``DIV`` are split per
  written channel onto the IR's vector-by-scalar opcodes; division by zero follows the IR
  (all bits set: tgsi.rst gives exactly that for UDIV/UMOD and leaves IDIV "TBD"; Mesa's
  tgsi_exec returns 0 for IDIV by zero -- we keep -1, documented and tested).
* ``ARR`` rounds half to even (IR ``ROUND``; tgsi_exec uses floor(x + 0.5)).
* ``XPD``, ``SCS``, ``NRM``: the w (and SCS z) channels get the values tgsi_exec writes
  (1.0, resp. 0.0 and 1.0), which NV_gpu_program4 leaves undefined.
* Interfaces: TGSI semantics become the NV bindings the rest of xlate knows (documented in
  README "Interface mapping" and in ``_semantic_binding``): VS ``IN[n]`` -> ``vertex.attrib[n]``,
  ``GENERIC[n]`` -> ``*.attrib[n]``, ``COLOR[i]``/``BCOLOR[i]`` -> front/back colors,
  ``TEXCOORD[n]`` -> ``texcoord[n]``, FS ``OUT POSITION`` -> ``result.depth`` (z), ...
  ``CONST[n]`` and ``CONST[0][n]`` are one storage: ``program.local[n]``; ``CONST[b][n]`` with
  b > 0 is constant buffer b (``program.buffer[b]``, vec4 elements).
"""
from __future__ import annotations

import dataclasses
import struct

from ...diagnostics import DiagnosticSink, Span
from ...ir.model import (Binding, CCKind, CondTest, DataType, Dest, Geometry, Index, Instruction,
                         Program, Register, RegKind, Sat, Source, Stage)
from ...ir.limits import MAX_OUTPUT_VERTICES, MAX_TOTAL_OUTPUT_COMPONENTS, result_components
from . import model as M
from .opcodes import OPCODES as TGSI_OPCODES
from .doubles import DOUBLE_OPS, INT_RESULT as _DOUBLE_INT_RESULT, INT_SOURCE as _DOUBLE_INT_SOURCE
from .textures import SAMPLE_OPS, TEXTURE_OPS

F, S, U = DataType.FLOAT, DataType.INT, DataType.UINT
ONE = 0x3F800000
_STAGES = {"VERT": Stage.VERTEX, "FRAG": Stage.FRAGMENT, "GEOM": Stage.GEOMETRY}
MAX_NESTING = 64              # IF/UIF, BGNLOOP, SWITCH blocks open at once (Mesa's tgsi_exec: 32)
MAX_INSTRUCTIONS = 65536      # as the NV frontends (NV_gpu_program4 hardware limit)
MAX_CONST_BUFFER = 15         # program.buffer[b] (as the NV frontends)
MAX_INDEX = 0xFFFF             # register indices and declaration ranges (16-bit token fields)
MAX_VERTEX_ATTRIB = 15         # vertex.attrib[n] (16 generic attributes, as in the NV frontends)
MAX_DRAW_BUFFER = 7            # result.color[n] (MAX_DRAW_BUFFERS 8, as in the NV frontends)
MAX_VERTICES_OUT = MAX_OUTPUT_VERTICES   # GS_MAX_OUTPUT_VERTICES (as VERTICES_OUT, ir/limits.py)
_CC_RULES = {"GT": "GT", "EQ": "EQ", "LT": "LT", "UN": "NAN", "GE": "GE", "LE": "LE", "NE": "NE",
             "TR": "TR", "FL": "FL"}
_GS_IN = {"POINTS", "LINES", "LINES_ADJACENCY", "TRIANGLES", "TRIANGLES_ADJACENCY"}
_GS_OUT = {"POINTS": "POINTS", "LINE_STRIP": "LINE_STRIP", "TRIANGLE_STRIP": "TRIANGLE_STRIP"}
_INT_RESULT = {"ARL", "ARR", "UARL", "F2I", "F2U", "UADD", "UMUL", "UMAD", "IMUL_HI", "UMUL_HI",
               "IDIV", "UDIV", "UMOD", "MOD", "IMAX", "IMIN", "UMAX", "UMIN", "INEG", "IABS", "ISSG",
               "NOT", "AND", "OR", "XOR", "SHL", "ISHR", "USHR", "ISLT", "ISGE", "USLT", "USGE",
               "USEQ", "USNE", "FSLT", "FSGE", "FSEQ", "FSNE", "TXQ", "PK2H", "PK2US", "PK4UB",
               "PK4B", "READ_HELPER",
               "IBFE", "UBFE", "BFI", "BREV", "POPC", "LSB", "IMSB", "UMSB"}
_INT_SOURCE = _INT_RESULT - {"ARL", "ARR", "F2I", "F2U", "FSLT", "FSGE", "FSEQ", "FSNE", "PK2H",
                             "PK2US", "PK4UB", "PK4B"} \
    | {"I2F", "U2F", "UIF", "SWITCH", "UP2H", "UP2US", "UP4UB", "UP4B", "TXF", "LDEXP"} \
    | _DOUBLE_INT_SOURCE
_INT_RESULT |= _DOUBLE_INT_RESULT


#: the RES file (tgsi.md 1.11): resources of Mesa's 2011-2015 text, the clover compute buffers
#: and images and the resource operand of SAMPLE*; refused naming its era and modern spelling
_OLD_RES = ("RES[n] is the resource file of Mesa 2011-2015 (clover compute, early SAMPLE*); "
            "modern TGSI declares DCL BUFFER[n], DCL IMAGE[n], <target>, <format> or DCL "
            "SVIEW[n], <target>, <type>; xlate reads the modern spelling only")


def _canonical_semantic(name: str | None) -> str | None:
    """Mesa's text spells semantic 9 ``PRIM_ID`` (tgsi_strings.c), its enum ``PRIMID``."""
    return "PRIMID" if name == "PRIM_ID" else name


class _Reject(Exception):
    """Abandon one instruction (its diagnostic is already reported)."""


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


class Lowerer:
    def __init__(self, shader: M.Shader, sink: DiagnosticSink):
        self.sh = shader
        self.sink = sink
        self.file = sink.file
        self.out: list[Instruction] = []
        self.labels: dict[str, int] = {}
        self.regs: dict[str, Register] = {}
        self.consts: dict[tuple, str] = {}
        self.sview_type: dict[int, DataType] = {}
        self.stage: Stage | None = None
        self.cur: M.Instruction | None = None
        self.case_values: list[set[int]] = []      # CASE constants of each open SWITCH
        self.tex_targets: dict[int, str] = {}       # sampler -> the target it is used with
        self.geometry: Geometry | None = None
        self.nverts_prop: M.Property | None = None   # PROPERTY GS_MAX_OUTPUT_VERTICES (spans)
        self.too_deep = False                        # E4005 reported

    # ---- diagnostics ---------------------------------------------------------------------------
    def span(self, node=None) -> Span:
        node = node if node is not None else self.cur
        sp = getattr(node, "span", None)
        return sp if sp is not None else Span(self.file, 1, 1)

    def err(self, code: str, msg: str, node=None) -> None:
        self.sink.error(code, msg, self.span(node))

    def reject(self, code: str, msg: str):
        self.err(code, msg)
        raise _Reject

    # ---- entry ---------------------------------------------------------------------------------
    def lower(self) -> Program | None:
        sh = self.sh
        stage = _STAGES.get(sh.processor)
        if stage is None:
            self.err("E7001", f"TGSI {sh.processor} programs are not supported: xlate translates "
                     "vertex (VERT), fragment (FRAG) and geometry (GEOM) shaders", None)
            for d in sh.declarations:
                if d.file == "RES":
                    self.err("E7001", _OLD_RES, d)
            # name every opcode that would block it too (issue 6 counts programs per opcode)
            for ins in sh.instructions:
                if ins.opcode not in _OPS and ins.opcode not in ("END", "BGNSUB", "ENDSUB"):
                    self.err("E3008", f"unsupported opcode {ins.opcode}", ins)
            return None
        self.stage = stage
        if len(sh.instructions) > MAX_INSTRUCTIONS:
            self.err("E1008", f"{len(sh.instructions)} instructions; xlate translates TGSI "
                     f"programs of at most {MAX_INSTRUCTIONS}", sh.instructions[MAX_INSTRUCTIONS])
            return None
        try:
            geometry = self.geometry = self.properties()
            self.scan_usage()
            self.declare()
            self.body()
        except _Reject:              # outside an instruction (output copies, prologue)
            return None
        if self.sink.has_errors:
            return None
        prog = Program(stage, "TGSI", self.regs, self.out, self.labels, entry=0,
                       geometry=geometry, source_name=self.file,
                       fragcoord_origin_upper_left=self.upper_left)
        if geometry is not None:
            # the second limit of ir/limits.py, as for NVgp4 VERTICES_OUT
            comps = result_components(prog)
            if geometry.vertices_out * comps > MAX_TOTAL_OUTPUT_COMPONENTS:
                self.err("E6001", f"GS_MAX_OUTPUT_VERTICES {geometry.vertices_out} times the "
                         f"{comps} output components written is {geometry.vertices_out * comps}"
                         f", more than gl_MaxGeometryTotalOutputComponents "
                         f"({MAX_TOTAL_OUTPUT_COMPONENTS})", self.nverts_prop)
                return None
        return prog

    # ---- properties ------------------------------------------------------------------------------
    def properties(self) -> Geometry | None:
        props = {}
        for p in self.sh.properties:
            props[p.name.upper()] = p
            v = p.value.upper()
            if p.name.upper() in ("VS_WINDOW_SPACE_POSITION", "VS_POSITION_WINDOW_SPACE",
                                  "LEGACY_MATH_RULES", "MUL_ZERO_WINS") and v not in ("0", ""):
                self.err("E7001", f"PROPERTY {p.name} {p.value} changes semantics xlate does not "
                         "translate", p)
            if p.name.upper() == "GS_INVOCATIONS" and v not in ("0", "1"):
                self.err("E7001", f"PROPERTY GS_INVOCATIONS {p.value}: instanced geometry shaders "
                         "are not supported", p)
        # FS_COORD_PIXEL_CENTER INTEGER is removed here, exactly, by a -0.5 shift of x and y (so
        # it needs no layout(pixel_center_integer), which ES and Vulkan lack); the origin cannot
        # be: y from the top is the framebuffer height minus y, so it travels in the IR
        # (Program.fragcoord_origin_upper_left) to the backends.  The text and token readers check
        # the values (text.py, binary.py: the names tgsi_dump prints).
        center = props.get("FS_COORD_PIXEL_CENTER")
        origin = props.get("FS_COORD_ORIGIN")
        self.pixel_center_integer = center is not None and center.value.upper() == "INTEGER"
        self.upper_left = self.stage == Stage.FRAGMENT and origin is not None and \
            origin.value.upper() == "UPPER_LEFT"
        if self.stage != Stage.GEOMETRY:
            return None
        prim_in = props.get("GS_INPUT_PRIMITIVE")
        prim_out = props.get("GS_OUTPUT_PRIMITIVE")
        nverts = props.get("GS_MAX_OUTPUT_VERTICES")
        if nverts is None and prim_in is not None and prim_out is not None \
                and not any(i.opcode in ("BGNLOOP", "CAL") for i in self.sh.instructions):
            # old dumps (2010 graw tests) omit it: without loops or calls the EMIT count bounds
            # the vertices a primitive can emit
            count = sum(i.opcode == "EMIT" for i in self.sh.instructions)
            self.sink.warning("E6001", "PROPERTY GS_MAX_OUTPUT_VERTICES is missing; using "
                              f"{count}, the number of EMIT instructions", None)
            nverts = M.Property("GS_MAX_OUTPUT_VERTICES", str(max(count, 1)))
        if prim_in is None or prim_out is None or nverts is None:
            self.err("E6001", "a geometry shader needs PROPERTY GS_INPUT_PRIMITIVE, "
                     "GS_OUTPUT_PRIMITIVE and GS_MAX_OUTPUT_VERTICES", None)
            return None
        pin = prim_in.value.upper()
        pout = prim_out.value.upper()
        if pin not in _GS_IN:
            self.err("E6001", f"GS_INPUT_PRIMITIVE {prim_in.value} is not a geometry input "
                     f"primitive ({', '.join(sorted(_GS_IN))})", prim_in)
            return None
        if pout not in _GS_OUT:
            self.err("E6001", f"GS_OUTPUT_PRIMITIVE {prim_out.value} is not POINTS, LINE_STRIP "
                     "or TRIANGLE_STRIP", prim_out)
            return None
        try:
            n = int(nverts.value)
        except ValueError:
            self.err("E6001", f"GS_MAX_OUTPUT_VERTICES {nverts.value} is not a number", nverts)
            return None
        if not 1 <= n <= MAX_VERTICES_OUT:
            self.err("E6001", f"GS_MAX_OUTPUT_VERTICES {nverts.value} is outside [1, "
                     f"{MAX_VERTICES_OUT}] (gl_MaxGeometryOutputVertices, "
                     "MAX_PROGRAM_OUTPUT_VERTICES_NV)", nverts)
            return None
        self.nverts_prop = nverts
        return Geometry(pin, _GS_OUT[pout], n)

    # ---- register usage ------------------------------------------------------------------------
    def operands(self, ins: M.Instruction):
        for d in ins.dsts:
            yield d.reg, True
        for s in ins.srcs:
            yield s.reg, False

    def scan_usage(self) -> None:
        """Which files are addressed indirectly, which registers integer opcodes touch, whether
        outputs are read."""
        self.indirect: set[str] = set()
        self.indirect_bases: dict[str, set[int]] = {}     # IN/OUT: base index of each indirect
        self.out_read = False
        self.max_index: dict[str, int] = {}
        self.int_touched: set[tuple[str, int]] = set()
        for ins in self.sh.instructions:
            for ref, is_dst in self.operands(ins):
                if ref.indirect is not None:
                    self.indirect.add(ref.file)
                    self.indirect_bases.setdefault(ref.file, set()).add(ref.index)
                elif ref.file not in ("SAMP", "SVIEW"):
                    self.max_index[ref.file] = max(self.max_index.get(ref.file, -1), ref.index)
                if ref.file == "OUT" and not is_dst:
                    self.out_read = True
            if ins.opcode in _INT_RESULT:
                for d in ins.dsts:
                    self.int_touched.add((d.reg.file, d.reg.index))
            if ins.opcode in _INT_SOURCE:
                for s in ins.srcs:
                    self.int_touched.add((s.reg.file, s.reg.index))
        # condition-code registers the program itself uses (seed streams only): the lowering of
        # IF/UIF/BREAKC with a source tests it through the other one (flag_cc)
        self.cc_used: set[int] = set()
        for ins in self.sh.instructions:
            named = ([ins.cc_update] if ins.cc_update is not None else []) + [
                c.index for c in [ins.cond] + [d.cond for d in ins.dsts] if c is not None]
            for i in named:
                if i > 1 and i not in self.cc_used:
                    self.err("E7001", f"condition-code register CC{i}: the seed token format "
                             "has 16 but xlate's IR has two, CC0 and CC1 (NV_gpu_program4)", ins)
                self.cc_used.add(i)
        for imm_i, imm in enumerate(self.sh.immediates):
            if imm.type in ("UINT32", "INT32"):
                self.int_touched.add(("IMM", imm_i))
        # bit copies carry integer-ness from their source to their destination (fixpoint)
        changed = True
        while changed:
            changed = False
            for ins in self.sh.instructions:
                if ins.opcode in ("MOV", "UCMP") and ins.dsts:
                    srcs = ins.srcs if ins.opcode == "MOV" else ins.srcs[1:]
                    d = (ins.dsts[0].reg.file, ins.dsts[0].reg.index)
                    if d not in self.int_touched and any((s.reg.file, s.reg.index) in
                                                         self.int_touched for s in srcs):
                        self.int_touched.add(d)
                        changed = True

    # ---- declarations -----------------------------------------------------------------------------
    def declare(self) -> None:
        self.decl_of: dict[tuple[str, int | None, int], M.Declaration] = {}
        for d in self.sh.declarations:
            if not 0 <= d.first <= d.last <= MAX_INDEX or not 0 <= (d.dim or 0) <= MAX_INDEX:
                # token streams hold 16-bit ranges; text is held to the same (and a range is
                # expanded element by element below: bounded work and memory)
                self.err("E2006", f"DCL {d.file}[{d.first}..{d.last}]: register indices are "
                         f"0..{MAX_INDEX}", d)
                continue
            if d.file == "RES":
                self.err("E7001", _OLD_RES, d)
                continue
            if d.file == "CONST" and (d.dim or 0) > MAX_CONST_BUFFER:
                self.err("E2006", f"DCL CONST[{d.dim}][..]: constant buffers are 0.."
                         f"{MAX_CONST_BUFFER} (program.buffer[b])", d)
                continue
            for i in range(d.first, d.last + 1):
                self.decl_of[(d.file, d.dim, i)] = d
            if d.file == "SVIEW":
                t = (d.return_types or ("FLOAT",))[0]
                for i in range(d.first, d.last + 1):
                    self.sview_type[i] = S if t == "SINT" else U if t == "UINT" else F
        # immediates
        if "IMM" in self.indirect:
            vals = tuple(self.imm_words(k) for k in range(len(self.sh.immediates)))
            if vals:
                self.regs["IMM"] = Register("IMM", RegKind.PARAM, DataType.NONE, len(vals),
                                            (None,) * len(vals), vals)
        else:
            for k in range(len(self.sh.immediates)):
                name = f"IMM{k}"
                self.regs[name] = Register(name, RegKind.CONST, DataType.NONE, None, (),
                                           (self.imm_words(k),))
        # constants: buffer 0 is program.local[n], buffer b > 0 program.buffer[b]
        top: dict[int, int] = {}
        for (file, dim, i) in self.decl_of:
            if file == "CONST":
                top[dim or 0] = max(top.get(dim or 0, -1), i)
        for ins in self.sh.instructions:
            for ref, _ in self.operands(ins):
                if ref.file == "CONST" and ref.indirect is None:
                    top[ref.dim or 0] = max(top.get(ref.dim or 0, -1), ref.index)
        for b, last in top.items():
            if b == 0:
                self.regs["CONST"] = Register("CONST", RegKind.PARAM, DataType.NONE, last + 1,
                                              tuple(Binding("program.local", i)
                                                    for i in range(last + 1)))
            else:
                name = f"CONST{b}"
                self.regs[name] = Register(name, RegKind.BUFFER, DataType.NONE, last + 1,
                                           (Binding("program.buffer", b, 0),), buffer_vec4=True)

    def imm_words(self, k: int) -> tuple[int, int, int, int]:
        if not 0 <= k < len(self.sh.immediates):
            self.reject("E2003", f"IMM[{k}] is not declared")
        w = tuple(self.sh.immediates[k].words)
        return (w + (0, 0, 0, 0))[:4]

    # ---- register references ----------------------------------------------------------------------
    def temp_like(self, name: str, dtype: DataType = DataType.NONE, size: int | None = None) -> str:
        if name not in self.regs:
            self.regs[name] = Register(name, RegKind.TEMP, dtype, size)
        return name

    def index_of(self, ref: M.RegRef) -> Index:
        ind = ref.indirect
        if ind is None:
            return Index(ref.index)
        return Index(ref.index, self.addr_reg(ind), ind.comp)

    def addr_reg(self, ind: M.Indirect) -> str:
        if ind.file == "ADDR":
            return self.temp_like(f"ADDR{ind.index}")
        if ind.file == "TEMP" and "TEMP" not in self.indirect:
            return self.temp_like(f"TEMP{ind.index}")
        self.reject("E7001", f"indirect addressing through {ind.file}[{ind.index}] is not supported "
                    "(use ADDR or a TEMP register that is not itself indirectly addressed)")

    def file_array(self, file: str, kind: RegKind) -> str:
        """One TEMP array for a whole indirectly addressed file (TEMP, and the shadow of OUT
        when the program reads its outputs); IN and OUT arrays are runs (``io_array``)."""
        name = file
        if name not in self.regs:
            last = max([i for (f, _, i) in self.decl_of if f == file] +
                       [self.max_index.get(file, -1)])
            self.regs[name] = Register(name, kind, DataType.NONE, last + 1)
        return name

    def io_runs(self, file: str) -> list[tuple[int, int]]:
        """The register ranges of IN or OUT that one relative operand may address: maximal runs
        of consecutive registers whose bindings continue each other (same path, next index, same
        interpolation).  An ``ARRAY(n)`` declaration is a run of its own, as Mesa keeps its
        arrays apart; ``DCL OUT[0], POSITION`` then ``DCL OUT[1..2], GENERIC[0]`` are two runs,
        so ``OUT[ADDR[0].x+1]`` addresses GENERIC[0..1] only."""
        cache = self.__dict__.setdefault("_io_runs", {})
        if file in cache:
            return cache[file]
        decls = {i: d for (f, dim, i), d in self.decl_of.items() if f == file and dim is None}
        indices = set(decls)
        if file == "IN" and self.stage == Stage.VERTEX:    # vertex.attrib[n]: no declaration needed
            indices |= set(range(self.max_index.get(file, -1) + 1))
        runs: list[tuple[int, int]] = []
        prev = None
        for i in sorted(indices):
            d = decls.get(i)
            # what the binding depends on: the semantic (its index advancing with the register)
            # and the interpolation; vertex inputs are vertex.attrib[i] whatever is declared
            if file == "IN" and self.stage == Stage.VERTEX:
                key = ("attrib", i)
            elif d is None:
                key = None
            elif d.semantic is None and self.seed_convention:
                key = self.seed_semantic(file, i) + (d.interpolate, d.location)
            else:
                key = (d.semantic, d.semantic_index + (i - d.first), d.interpolate, d.location)
            joins = runs and prev is not None and key is not None and prev[0] is not None \
                and i == runs[-1][1] + 1 and key[0] == prev[0][0] and key[1] == prev[0][1] + 1 \
                and key[2:] == prev[0][2:] \
                and (d is prev[1] or not (getattr(d, "array_id", 0) or getattr(prev[1], "array_id", 0)))
            if joins:
                runs[-1] = (runs[-1][0], i)
            else:
                runs.append((i, i))
            prev = (key, d)
        cache[file] = runs
        return runs

    def io_array(self, ref: M.RegRef, kind: RegKind) -> tuple[str, Index] | None:
        """(IR array, element index) when ``ref`` lies in a run of IN/OUT that some operand
        addresses relatively; None for a register no relative operand can reach."""
        bases = self.indirect_bases.get(ref.file)
        if not bases:
            return None
        runs = self.io_runs(ref.file)
        run = next((r for r in runs if r[0] <= ref.index <= r[1]), None)
        if run is None:
            if ref.indirect is not None:
                self.reject("E2003", f"{ref.file}[{ref.index}], the base of a relative operand, "
                            "is not declared")
            return None
        if not any(run[0] <= b <= run[1] for b in bases):
            return None
        first, last = run
        name = f"{ref.file}{first}" if first == last else f"{ref.file}{first}_{last}"
        if name not in self.regs:
            binds = tuple(self.binding(ref.file, i) for i in range(first, last + 1))
            self.regs[name] = Register(name, kind, DataType.NONE, last - first + 1, binds,
                                       interpolation=self.interp(ref.file, first))
        ind = ref.indirect
        if ind is None:
            return name, Index(ref.index - first)
        return name, Index(ref.index - first, self.addr_reg(ind), ind.comp)

    def reg_ref(self, ref: M.RegRef, write: bool) -> tuple[str, Index | None, Index | None]:
        """(IR register, element index, vertex index) of a TGSI operand."""
        f = ref.file
        # token streams carry signed 16-bit indices; only an indirect offset may be negative
        if (ref.index < 0 and ref.indirect is None) or (ref.dim or 0) < 0:
            self.reject("E2006", f"{f}[{ref.index if ref.indirect is None else ''}]"
                        f"{'' if ref.dim is None else f'[{ref.dim}]'}: a register index cannot "
                        "be negative")
        if (ref.indirect is None and ref.index > MAX_INDEX) or (ref.dim or 0) > MAX_INDEX:
            self.reject("E2006", f"{f}[{ref.index}]{'' if ref.dim is None else f'[{ref.dim}]'}: "
                        f"register indices are 0..{MAX_INDEX}")
        if f == "TEMP":
            if "TEMP" in self.indirect:
                return self.file_array("TEMP", RegKind.TEMP), self.index_of(ref), None
            return self.temp_like(f"TEMP{ref.index}"), None, None
        if f == "ADDR":
            return self.temp_like(f"ADDR{ref.index}"), None, None
        if f == "IMM":
            if write:
                self.reject("E3005", "immediates are read-only")
            if ref.index >= len(self.sh.immediates) and ref.indirect is None:
                self.reject("E2003", f"IMM[{ref.index}] is not declared")
            if ref.indirect is not None and not self.sh.immediates:
                self.reject("E2003", "IMM[...] is addressed relatively, but the program has no "
                            "immediates")
            if "IMM" in self.indirect:
                return "IMM", self.index_of(ref), None
            return f"IMM{ref.index}", None, None
        if f == "CONST":
            if write:
                self.reject("E3005", "constants are read-only")
            if ref.dim_indirect is not None:
                self.reject("E7001", "an indirect constant-buffer index (CONST[ADDR[..]][n]) is "
                            "not supported")
            b = ref.dim or 0
            if b > MAX_CONST_BUFFER:
                self.reject("E2006", f"CONST[{b}][..]: constant buffers are 0..{MAX_CONST_BUFFER} "
                            "(program.buffer[b])")
            name = "CONST" if b == 0 else f"CONST{b}"
            if name not in self.regs:         # only relative references, nothing declared
                self.reject("E2003", f"constant buffer {b} has no declared elements to address "
                            "relatively (DCL CONST" + (f"[{b}]" if b else "") + "[first..last])")
            return name, self.index_of(ref), None
        if f == "IN":
            if write:
                self.reject("E3005", "inputs are read-only")
            return self.input_ref(ref)
        if f == "OUT":
            if self.out_read:
                if "OUT" in self.indirect:
                    return self.file_array("OUT", RegKind.TEMP), self.index_of(ref), None
                return self.temp_like(f"OUT{ref.index}_v"), None, None
            arr = self.io_array(ref, RegKind.OUTPUT)
            if arr is not None:
                return arr[0], arr[1], None
            return self.output_reg(ref.index), None, None
        if f == "SV":
            if write:
                self.reject("E3005", "system values are read-only")
            return self.system_value(ref.index), None, None
        if f == "RES":
            self.reject("E7001", _OLD_RES)
        self.reject("E7001", f"register file {f} is not supported as an operand of {self.cur.opcode}")

    def input_ref(self, ref: M.RegRef):
        if self.stage == Stage.GEOMETRY and (ref.dim is not None or ref.dim_indirect is not None):
            attr = ref.index
            if ref.indirect is not None:
                self.reject("E7001", "indirect attribute index of a geometry input is not supported")
            name = f"IN{attr}"
            nverts = self.geometry.input_vertices if self.geometry is not None else 6
            if ref.dim_indirect is None and not 0 <= (ref.dim or 0) < nverts:
                self.reject("E6003", f"vertex {ref.dim} does not exist: the input primitive has "
                            f"{nverts} vertices")
            if name not in self.regs:
                b = self.binding("IN", attr)
                self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (b,),
                                           per_vertex=True)
            if ref.dim_indirect is not None:
                ind = ref.dim_indirect
                return name, None, Index(ref.dim or 0, self.addr_reg(ind), ind.comp)
            return name, None, Index(ref.dim)
        arr = self.io_array(ref, RegKind.INPUT)
        if arr is not None:
            return arr[0], arr[1], None
        name = f"IN{ref.index}"
        if name not in self.regs:
            b = self.binding("IN", ref.index)
            self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (b,),
                                       interpolation=self.interp("IN", ref.index))
            if b.path == "fragment.position" and self.pixel_center_integer:
                self.fragcoord_shift = name
        return name, None, None

    def output_reg(self, index: int) -> str:
        name = f"OUT{index}"
        if name not in self.regs:
            self.regs[name] = Register(name, RegKind.OUTPUT, DataType.NONE, None,
                                       (self.binding("OUT", index),))
        return name

    def system_value(self, index: int) -> str:
        d = self.decl_of.get(("SV", None, index))
        sem = _canonical_semantic(d.semantic) if d else None
        path = {(Stage.VERTEX, "VERTEXID"): "vertex.id", (Stage.VERTEX, "INSTANCEID"): "vertex.instance",
                (Stage.FRAGMENT, "POSITION"): "fragment.position",
                (Stage.FRAGMENT, "PRIMID"): "primitive.id", (Stage.GEOMETRY, "PRIMID"): "primitive.id",
                (Stage.FRAGMENT, "FACE"): "fragment.facing",
                (Stage.FRAGMENT, "SAMPLEID"): "fragment.sampleid"}.get((self.stage, sem))
        if path is None:
            self.reject("E7001", f"system value SV[{index}]"
                        f"{', ' + sem if sem else ''} is not supported in a {self.sh.processor} shader")
        name = f"SV{index}"
        if name not in self.regs:
            if sem == "FACE":
                # SV FACE is an integer: ~0 front-facing, 0 back (tgsi.rst); fragment.facing is
                # +1.0/-1.0 in x: computed once at the start (FSLT 0 < facing.x).
                src = self.regs.setdefault("fragment.facing", Register(
                    "fragment.facing", RegKind.INPUT, DataType.NONE, None,
                    (Binding("fragment.facing"),)))
                self.regs[name] = Register(name, RegKind.TEMP, DataType.NONE)
                zero = self.const((0, 0, 0, 0))
                self.prologue.append(Instruction("FSLT", F, Dest(name), (
                    Source(zero), Source(src.name, swizzle=(0, 0, 0, 0)))))
            else:
                self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (Binding(path),))
                if path == "fragment.position" and self.pixel_center_integer:
                    self.fragcoord_shift = name
        return name

    def binding(self, file: str, index: int) -> Binding:
        d = self.decl_of.get((file, None, index))
        if file == "IN" and self.stage == Stage.VERTEX:
            if not 0 <= index <= MAX_VERTEX_ATTRIB:
                self.reject("E2006", f"IN[{index}]: vertex inputs are vertex.attrib[0.."
                            f"{MAX_VERTEX_ATTRIB}]")
            return Binding("vertex.attrib", index)
        if d is None:
            self.reject("E2003", f"{file}[{index}] is not declared")
        return self._semantic_binding(file, d, index)

    def _semantic_binding(self, file: str, d: M.Declaration, index: int) -> Binding:
        # A ranged declaration names the semantic of its first register; the others follow it:
        # DCL OUT[1..2], GENERIC[0] is GENERIC[0] and GENERIC[1] (Mesa's tgsi_scan adds
        # reg - Range.First to Semantic.Index).
        sem, i = _canonical_semantic(d.semantic), d.semantic_index + (index - d.first)
        if sem is None and self.seed_convention:
            sem, i = self.seed_semantic(file, index)
        st = self.stage
        if file == "IN":
            root = "fragment" if st == Stage.FRAGMENT else "vertex"
            table = {"POSITION": (f"{root}.position", None), "FOG": (f"{root}.fogcoord", None),
                     "GENERIC": (f"{root}.generic", i), "TEXCOORD": (f"{root}.tgsi_texcoord", i)}
            if sem == "COLOR" and i in (0, 1):
                return Binding(f"{root}.color" + (".secondary" if i else ""))
            if st == Stage.FRAGMENT and sem == "FACE":
                return Binding("fragment.facing")
            if st == Stage.FRAGMENT and sem == "PCOORD":
                return Binding("fragment.pointcoord")
            if sem == "BCOLOR" and i in (0, 1):
                # two-sided colour inputs: the back colours a vertex shader writes (locations 2, 3)
                return Binding(f"{root}.color.back" + (".secondary" if i else ""))
            if sem == "PRIMID":
                return Binding("primitive.id")
            if st == Stage.GEOMETRY and sem == "PSIZE":
                return Binding("vertex.pointsize")
        else:
            if st == Stage.FRAGMENT:
                if sem == "COLOR":
                    if not 0 <= i <= MAX_DRAW_BUFFER:
                        self.reject("E7001", f"COLOR[{i}] is beyond the fragment outputs "
                                    f"(COLOR[0..{MAX_DRAW_BUFFER}], result.color[n])")
                    return Binding("result.color", i)
                if sem == "POSITION":
                    return Binding("result.depth")
                table = {}
            else:
                table = {"POSITION": ("result.position", None), "PSIZE": ("result.pointsize", None),
                         "FOG": ("result.fogcoord", None), "GENERIC": ("result.generic", i),
                         "TEXCOORD": ("result.tgsi_texcoord", i)}
                if sem == "COLOR" and i in (0, 1):
                    return Binding("result.color" + (".secondary" if i else ""))
                if sem == "BCOLOR" and i in (0, 1):
                    return Binding("result.color.back" + (".secondary" if i else ""))
                if st == Stage.GEOMETRY and sem == "LAYER":
                    return Binding("result.layer")
                if st == Stage.GEOMETRY and sem == "PRIMID":
                    return Binding("result.primid")
        if sem in table:
            path, idx = table[sem]
            limit = 26 if sem == "GENERIC" else 7
            if sem in ("GENERIC", "TEXCOORD") and idx > limit:
                self.reject("E7001", f"{sem}[{idx}] is beyond the interface mapping "
                            f"({sem}[0..{limit}]; see README 'Interface mapping')")
            self.check_location_clash(sem, idx, d)
            return Binding(path, idx)
        what = f"{sem}[{i}]" if sem else "no semantic"
        self.reject("E7001", f"{file}[{index}] with {what} has no interface mapping in a "
                    f"{self.sh.processor} shader")

    @property
    def seed_convention(self) -> bool:
        return not any(x.semantic for x in self.sh.declarations)

    def seed_semantic(self, file: str, index: int) -> tuple[str, int]:
        """Seed-format streams carry no semantics at all (tgsi.md 4.9): the convention xlate
        assumes is OUT[0] = POSITION and OUT[n] = GENERIC[n-1] in vertex/geometry shaders,
        IN[n] = GENERIC[n] and OUT[n] = COLOR[n] in fragment shaders."""
        if file == "OUT" and self.stage != Stage.FRAGMENT:
            return ("POSITION", 0) if index == 0 else ("GENERIC", index - 1)
        if file == "OUT":
            return "COLOR", index
        return "GENERIC", index

    def check_location_clash(self, sem: str, idx: int, d: M.Declaration) -> None:
        """GENERIC[n] (location 5 + n) and TEXCOORD[m] (31 - m) meet when 5 + n == 31 - m."""
        if sem not in ("GENERIC", "TEXCOORD"):
            return
        loc = 5 + idx if sem == "GENERIC" else 31 - idx
        for other in self.sh.declarations:
            if other.file != d.file or other.semantic not in ("GENERIC", "TEXCOORD") \
                    or other.semantic == sem:
                continue
            for k in range(other.last - other.first + 1):      # a range: consecutive indices
                oidx = other.semantic_index + k
                oloc = 5 + oidx if other.semantic == "GENERIC" else 31 - oidx
                if oloc == loc:
                    self.reject("E7001", f"{sem}[{idx}] and {other.semantic}[{oidx}] "
                                f"both map to varying location {loc}")

    def interp(self, file: str, index: int) -> str | None:
        d = self.decl_of.get((file, None, index))
        if file != "IN" or self.stage != Stage.FRAGMENT or d is None:
            return None
        if d.interpolate == "CONSTANT":
            return "FLAT"
        if d.interpolate == "LINEAR" and d.semantic not in ("POSITION",):
            return "NOPERSPECTIVE"
        if d.location == "CENTROID":
            return "CENTROID"
        return None

    def const(self, words: tuple[int, int, int, int]) -> str:
        name = self.consts.get(words)
        if name is None:
            name = f"%k{len(self.consts)}"
            self.consts[words] = name
            self.regs[name] = Register(name, RegKind.CONST, DataType.NONE, None, (), (words,),
                                       implicit=True)
        return name

    # ---- operands -----------------------------------------------------------------------------------
    def src(self, s: M.Src, integer: bool = False) -> Source:
        if s.complement or s.bias or s.scale2x:
            self.reject("E7001", "the seed source modifiers complement/bias/scale-by-2 are not "
                        "supported")
        if s.ext_divide != 5:
            self.reject("E7001", "the seed extended-swizzle divide is not supported")
        if integer and s.abs:
            self.reject("E3004", f"{self.cur.opcode} reads integers: |x| is not allowed "
                        "(tgsi.md 2.1)")
        reg, index, vertex = self.reg_ref(s.reg, write=False)
        # seed: the register negate applies before |x| and so vanishes under it (tgsi.md 4.2)
        neg = s.abs_neg if s.abs else (s.neg != s.abs_neg)
        return Source(reg, index, vertex, tuple(s.swizzle), neg, s.abs, tuple(s.comp_neg))

    def dst(self, d: M.Dst) -> Dest:
        if d.modulate != "1X":
            self.reject("E7001", f"the seed destination modulate {d.modulate} is not supported")
        if not any(d.mask):
            # token streams can say it (text cannot): nothing is written, no condition code
            # is updated (only written components update it), so the instruction is a no-op
            self.sink.warning("E3005", f"{self.cur.opcode} has an empty write mask and writes "
                              "nothing; ignored", self.span())
            raise _Reject
        reg, index, vertex = self.reg_ref(d.reg, write=True)
        if vertex is not None:
            self.reject("E3005", "a per-vertex input cannot be written")
        cond = self.cond(d.cond) if d.cond is not None else None
        if cond is None and self.cur.cond is not None:
            cond = self.cond(self.cur.cond)      # seed CondFlowEnable on an ALU instruction
        return Dest(reg, index, tuple(d.mask), cond)

    def cond(self, c: M.CondCode) -> CondTest:
        return CondTest(_CC_RULES[c.test], c.index, tuple(c.swizzle))

    def emit(self, ins: Instruction) -> Instruction:
        t = self.cur
        ins.span = t.span if t is not None else None
        if t is not None and t.cc_update is not None and ins.cc_update is None and ins.dst is not None:
            ins.cc_update = t.cc_update
            ins.cc_kind = CCKind.FLOAT if ins.dtype == F else CCKind.INT
        self.out.append(ins)
        return ins

    def sat(self, integer: bool = False) -> Sat:
        s = self.cur.saturate
        if s and integer:
            self.reject("E3002", f"{self.cur.opcode}_SAT: saturating an integer result is not "
                        "allowed (tgsi.md 2.1)")
        return {"": Sat.NONE, "SAT": Sat.SAT, "SSAT": Sat.SSAT}[s]

    # ---- body -----------------------------------------------------------------------------------------
    def body(self) -> None:
        self.prologue: list[Instruction] = []
        self.fragcoord_shift: str | None = None
        self.sub_at: dict[int, str] = {}
        insts = self.sh.instructions
        for k, ins in enumerate(insts):
            if ins.opcode == "BGNSUB":
                self.sub_at[k] = f"sub{k}"
        end_seen = False
        in_sub = False
        blocks: list[tuple[str, M.Instruction]] = []
        for k, ins in enumerate(insts):
            self.cur = ins
            op = ins.opcode
            if end_seen and not in_sub and op != "BGNSUB":
                if op != "END":
                    self.sink.warning("E1005", f"{op} after END outside BGNSUB/ENDSUB is never "
                                      "executed; ignored", self.span(ins))
                continue
            try:
                if op == "END":
                    if in_sub:
                        self.reject("E4003", "END inside a subroutine")
                    self.close_blocks(blocks)
                    blocks = []
                    self.main_exit()
                    self.emit(Instruction("RET"))
                    end_seen = True
                elif op == "BGNSUB":
                    if not end_seen or in_sub:
                        self.reject("E4003", "BGNSUB must follow END, outside other subroutines")
                    self.labels[self.sub_at[k]] = len(self.out)
                    in_sub = True
                elif op == "ENDSUB":
                    if not in_sub:
                        self.reject("E4003", "ENDSUB without BGNSUB")
                    self.close_blocks(blocks)
                    blocks = []
                    self.emit(Instruction("RET"))
                    in_sub = False
                else:
                    self.structure(op, blocks)
                    fn = _OPS.get(op)
                    if fn is None:
                        self.reject("E3008", f"unsupported opcode {op} ({_unsupported_why(op)})")
                    self.check_operand_count(ins)
                    if ins.cond is not None and op not in _HONOURS_COND and not ins.dsts:
                        self.reject("E7001", f"{op} with a condition-code test (seed "
                                    "CondFlowEnable) is not supported")
                    fn(self, ins)
                    if ins.precision in _PRECISION and ins.dsts:
                        self.convert_precision(ins)
            except _Reject:
                continue
        if not end_seen:
            self.close_blocks(blocks)
            self.main_exit()
            self.out.append(Instruction("RET"))
        elif in_sub:
            self.err("E4003", "BGNSUB without ENDSUB", None)
        if self.prologue or self.fragcoord_shift:
            self.add_prologue()

    def check_operand_count(self, ins: M.Instruction) -> None:
        """Token streams carry their own operand counts (the text parser checks them against
        opcodes.py; binary.py cannot, old streams differ): check before lowering."""
        info = TGSI_OPCODES[ins.opcode]
        nsrc = len(ins.srcs)
        ok_src = nsrc == info.nsrc or (ins.opcode in ("EMIT", "ENDPRIM") and nsrc == 0) \
            or (ins.opcode == "IF" and nsrc == 0 and ins.cond is not None)
        if len(ins.dsts) != info.ndst or not ok_src:
            self.reject("E3003", f"{ins.opcode} takes {info.ndst} destination(s) and {info.nsrc} "
                        f"source(s), found {len(ins.dsts)} and {nsrc}")

    def structure(self, op: str, blocks: list) -> None:
        """Block matching (IF/UIF..ENDIF, BGNLOOP..ENDLOOP, SWITCH..ENDSWITCH): labels are
        ignored, the structure comes from the opcodes (tgsi.md 1.9)."""
        ins = self.cur
        if op in ("IF", "UIF", "BGNLOOP", "SWITCH"):
            if len(blocks) >= MAX_NESTING:
                if not self.too_deep:     # once: the blocks inside would all repeat it
                    self.err("E4005", f"{op} nested inside {MAX_NESTING} blocks; xlate "
                             f"translates TGSI blocks (IF/UIF, BGNLOOP, SWITCH) nested at most "
                             f"{MAX_NESTING} deep")
                self.too_deep = True
                blocks.append((op, ins))         # still matched by its END...
                if op == "SWITCH":
                    self.case_values.append(set())
                raise _Reject
            blocks.append((op, ins))
            if op == "SWITCH":       # the CASE values of this SWITCH (even if it is rejected)
                self.case_values.append(set())
        elif op == "ELSE":
            if not blocks or blocks[-1][0] not in ("IF", "UIF"):
                self.reject("E4003", "ELSE without IF")
            blocks[-1] = ("ELSE", blocks[-1][1])
        elif op in ("ENDIF", "ENDLOOP", "ENDSWITCH"):
            want = {"ENDIF": ("IF", "UIF", "ELSE"), "ENDLOOP": ("BGNLOOP",),
                    "ENDSWITCH": ("SWITCH",)}[op]
            if not blocks or blocks[-1][0] not in want:
                self.reject("E4003", f"{op} without {want[0]}")
            blocks.pop()
            if op == "ENDSWITCH":
                self.case_values.pop()
        elif op in ("CASE", "DEFAULT"):
            if not blocks or blocks[-1][0] != "SWITCH":
                self.reject("E4003", f"{op} outside SWITCH")
            if op == "DEFAULT":
                if "default" in self.case_values[-1]:
                    self.reject("E3004", "DEFAULT appears twice in this SWITCH")
                self.case_values[-1].add("default")
        elif op == "BRK":
            if not any(b[0] in ("BGNLOOP", "SWITCH") for b in blocks):
                self.reject("E4004", "BRK outside a loop or switch")
        elif op in ("CONT", "BREAKC"):
            if not any(b[0] == "BGNLOOP" for b in blocks):
                self.reject("E4004", f"{op} outside a loop")

    def close_blocks(self, blocks: list) -> None:
        for kind, ins in reversed(blocks):
            self.err("E4003", f"{kind} is never closed", ins)

    def main_exit(self) -> None:
        if self.out_read:
            self.copy_outputs()

    def copy_outputs(self) -> None:
        """Outputs that the program also reads live in TEMP shadows; copy them out before the
        program ends and before every EMIT."""
        if "OUT" in self.indirect:
            arr = self.regs.get("OUT")
            if arr is None:
                return
            for i in range(arr.length):
                out = self.output_reg(i)
                self.out.append(Instruction("MOV", U, Dest(out), (Source("OUT", Index(i)),)))
            return
        for name in sorted(n for n in self.regs if n.startswith("OUT") and n.endswith("_v")):
            index = int(name[3:-2])
            out = self.output_reg(index)
            self.out.append(Instruction("MOV", U, Dest(out), (Source(name),)))

    def add_prologue(self) -> None:
        pro = list(self.prologue)
        if self.fragcoord_shift:
            # PROPERTY FS_COORD_PIXEL_CENTER INTEGER: pixel centres at integers (x.0), GL's are
            # at x.5 (tgsi.md 1.3): read the window position through a shifted copy.
            name = self.fragcoord_shift
            shadow = name + ".c"
            self.regs[shadow] = Register(shadow, RegKind.TEMP, DataType.NONE)
            half = self.const((f32_bits(-0.5), f32_bits(-0.5), 0, 0))
            pro.append(Instruction("ADD", F, Dest(shadow), (Source(name), Source(half))))
            for ins in self.out:
                ins.srcs = tuple(s if s.reg != name else Source(shadow, s.index, s.vertex, s.swizzle,
                                                               s.neg, s.abs, s.comp_neg)
                                 for s in ins.srcs)
        n = len(pro)
        self.out[:0] = pro
        self.labels = {k: v + n for k, v in self.labels.items()}

    def convert_precision(self, t: M.Instruction) -> None:
        """Seed INSTRUCTION_EXT_NV Precision FLOAT16 / FIXED12: the result is converted as
        NV_fragment_program's H / X suffixes convert it (the seed's condition codes are that
        extension's; tgsi.md 4.x): a MOV of the written components onto themselves with IR
        precision FP16 / X, under the same condition, which also updates the condition code
        from the converted value (FP1 3.11.4.4).  FLOAT32 (and DEFAULT) convert nothing."""
        if t.opcode in _INT_RESULT:
            self.reject("E7001", f"{t.opcode} with {t.precision} precision: integer results have "
                        "no reduced-precision form")
        d = t.dsts[0]
        dest = self.dst(d)
        self.emit(Instruction("MOV", F, dest, (Source(dest.reg, dest.index),),
                              precision=_PRECISION[t.precision]))

    # ---- helpers for opcode functions ------------------------------------------------------------
    def is_int_src(self, s: M.Src) -> bool:
        return (s.reg.file, s.reg.index) in self.int_touched

    def scratch(self, tag: str = "t") -> str:
        return self.temp_like(f"%{tag}")

    def flag_cc(self) -> int:
        """The condition-code register a source test (IF/UIF/BREAKC src) may clobber: one the
        program never names (CC1 unless the seed stream uses it).  The IR has two; a program
        using both leaves none, which is refused rather than clobbering the program's flags."""
        free = [i for i in (1, 0) if i not in self.cc_used]
        if not free:
            self.reject("E7001", f"{self.cur.opcode} with a source register in a program that uses "
                        "both condition-code registers CC0 and CC1: the IR has no third one to "
                        "test the source with")
        return free[0]

    def overlaps(self, d: M.Dst, srcs) -> bool:
        for s in srcs:
            if s.reg.file == d.reg.file and (s.reg.index == d.reg.index or s.reg.indirect is not None
                                             or d.reg.indirect is not None):
                return True
        return False


# ---- opcode functions -------------------------------------------------------------------------------
# Each takes (lowerer, tgsi instruction) and emits IR instructions.

def _simple(irop: str, dtype: DataType, integer_srcs: bool = False, integer_result: bool = False,
            **kw):
    def fn(lw: Lowerer, t: M.Instruction):
        srcs = tuple(lw.src(s, integer_srcs) for s in t.srcs)
        lw.emit(Instruction(irop, dtype, lw.dst(t.dsts[0]), srcs, lw.sat(integer_result), **kw))
    return fn


def _mov(lw: Lowerer, t: M.Instruction):
    s = t.srcs[0]
    plain = not (s.neg or s.abs or s.abs_neg or any(s.comp_neg)) and not t.saturate
    # outputs are float interfaces (colours, varyings): a bit copy into one stays float-typed
    dtype = U if plain and lw.is_int_src(s) and t.dsts[0].reg.file != "OUT" else F
    lw.emit(Instruction("MOV", dtype, lw.dst(t.dsts[0]), (lw.src(s),), lw.sat()))


def _demote(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    lw.emit(Instruction("DEMOTE"))


def _read_helper(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    lw.emit(Instruction("READHELPER", U, lw.dst(t.dsts[0]), ()))


def _ldexp(lw: Lowerer, t: M.Instruction):
    # tgsi.rst LDEXP: src1 is an integer (no |x| on it)
    a = lw.src(t.srcs[0])
    e = lw.src(t.srcs[1], integer=True)
    lw.emit(Instruction("LDEXP", F, lw.dst(t.dsts[0]), (a, e), lw.sat()))


def _ineg(lw: Lowerer, t: M.Instruction):
    s = lw.src(t.srcs[0], integer=True)
    lw.emit(Instruction("MOV", S, lw.dst(t.dsts[0]), (dataclasses.replace(s, neg=not s.neg),)))


def _per_channel(irop: str, dtype: DataType):
    """TGSI componentwise a OP b onto the IR's vector-by-scalar form: one IR instruction per
    written channel c with operand 1 replicated from its component c; through a scratch
    register when the destination is also a source (all sources are read first in TGSI)."""
    def fn(lw: Lowerer, t: M.Instruction):
        integer = dtype != F
        d = t.dsts[0]
        a = lw.src(t.srcs[0], integer)
        b = lw.src(t.srcs[1], integer)
        dest = lw.dst(d)
        alias = lw.overlaps(d, t.srcs)
        target = Dest(lw.scratch("pc")) if alias else dest
        sat = lw.sat(integer)
        for c in range(4):
            if not d.mask[c]:
                continue
            mask = tuple(i == c for i in range(4))
            bc = Source(b.reg, b.index, b.vertex, (b.swizzle[c],) * 4, b.neg, b.abs,
                        (b.comp_neg[c],) * 4)
            lw.emit(Instruction(irop, dtype, Dest(target.reg, target.index, mask, None if alias else dest.cond),
                                (a, bc), Sat.NONE if alias else sat))
        if alias:
            lw.emit(Instruction("MOV", F if sat != Sat.NONE else U, dest,
                                (Source(target.reg),), sat))
    return fn


def _with_constant_channels(irop: str, fixed: dict[int, float]):
    """XPD/SCS/NRM: the IR op, then the channels tgsi_exec writes as constants."""
    def fn(lw: Lowerer, t: M.Instruction):
        d = t.dsts[0]
        dest = lw.dst(d)
        srcs = tuple(lw.src(s) for s in t.srcs)
        mask_main = tuple(m and c not in fixed for c, m in enumerate(d.mask))
        if any(mask_main):
            lw.emit(Instruction(irop, F, Dest(dest.reg, dest.index, mask_main, dest.cond), srcs,
                                lw.sat()))
        mask_fixed = tuple(m and c in fixed for c, m in enumerate(d.mask))
        if any(mask_fixed):
            words = tuple(f32_bits(fixed.get(c, 0.0)) for c in range(4))
            lw.emit(Instruction("MOV", F, Dest(dest.reg, dest.index, mask_fixed, dest.cond),
                                (Source(lw.const(words)),)))
    return fn


def _nrm4(lw: Lowerer, t: M.Instruction):
    a = lw.src(t.srcs[0])
    k = lw.scratch("n")
    lw.emit(Instruction("DP4", F, Dest(k, mask=(True, False, False, False)), (a, a)))
    lw.emit(Instruction("RSQ", F, Dest(k, mask=(True, False, False, False)), (Source(k, swizzle=(0, 0, 0, 0)),)))
    lw.emit(Instruction("MUL", F, lw.dst(t.dsts[0]), (a, Source(k, swizzle=(0, 0, 0, 0))), lw.sat()))


def _select_on(cmp_op: str, threshold: float, true_src: int, false_src: int):
    """CND/CND0: dst = src2 CMP threshold ? src[true] : src[false], exactly: the set-on result
    (1.0/0.0) into a scratch, then CMP -c, x, y (-1.0 < 0 picks x; -0.0 does not)."""
    def fn(lw: Lowerer, t: M.Instruction):
        srcs = [lw.src(s) for s in t.srcs]
        k = lw.scratch("c")
        limit = Source(lw.const((f32_bits(threshold),) * 4))
        lw.emit(Instruction(cmp_op, F, Dest(k), (srcs[2], limit)))
        lw.emit(Instruction("CMP", F, lw.dst(t.dsts[0]),
                            (Source(k, neg=True), srcs[true_src], srcs[false_src]), lw.sat()))
    return fn


def _clamp(lw: Lowerer, t: M.Instruction):
    """CLAMP: s0 < s1 ? s1 : (s0 > s2 ? s2 : s0).  The inner part is exactly GP4 MIN(s0, s2);
    the outer select goes through SLT and CMP like CND (NaN in s0 stays NaN)."""
    s0, s1, s2 = (lw.src(s) for s in t.srcs)
    m, k = lw.scratch("m"), lw.scratch("c")
    lw.emit(Instruction("MIN", F, Dest(m), (s0, s2)))
    lw.emit(Instruction("SLT", F, Dest(k), (s0, s1)))
    lw.emit(Instruction("CMP", F, lw.dst(t.dsts[0]), (Source(k, neg=True), s1, Source(m)),
                        lw.sat()))


def _if(lw: Lowerer, t: M.Instruction):
    if t.cond is not None and not t.srcs:
        lw.emit(Instruction("IF", cond=lw.cond(t.cond)))
        return
    s = lw.src(t.srcs[0], integer=t.opcode == "UIF")
    cc = lw.flag_cc()
    k = lw.scratch("if")
    x = (True, False, False, False)
    if t.cond is not None:
        # seed IF with a source and CondFlowEnable: taken where the CC test passes (any of the
        # four swizzled components, as IF with the test alone) and src.x != 0.0.  Both as
        # ~0/0 words: the test through a conditional write of ~0 into a zeroed scratch, ORed
        # over its components, ANDed with FSNE src.x, 0.0 (NaN != 0.0; -0.0 is not), then the
        # bit test of UIF.
        g = lw.scratch("ifc")
        zero, ones = lw.const((0, 0, 0, 0)), lw.const((0xFFFFFFFF,) * 4)
        lw.emit(Instruction("MOV", U, Dest(g), (Source(zero),)))
        lw.emit(Instruction("MOV", U, Dest(g, cond=lw.cond(t.cond)), (Source(ones),)))
        lw.emit(Instruction("OR", U, Dest(g, mask=(True, True, False, False)),
                            (Source(g), Source(g, swizzle=(2, 3, 2, 3)))))
        lw.emit(Instruction("OR", U, Dest(g, mask=x), (Source(g), Source(g, swizzle=(1, 1, 1, 1)))))
        if t.opcode == "UIF":
            lw.emit(Instruction("AND", U, Dest(g, mask=x), (Source(g), s)))
        else:
            lw.emit(Instruction("FSNE", F, Dest(k, mask=x), (s, Source(zero))))
            lw.emit(Instruction("AND", U, Dest(g, mask=x), (Source(g), Source(k))))
        lw.emit(Instruction("MOV", U, Dest(k, mask=x), (Source(g),), cc_update=cc,
                            cc_kind=CCKind.INT))
        lw.emit(Instruction("IF", cond=CondTest("NE", cc, (0, 0, 0, 0))))
        return
    if t.opcode == "UIF":
        # UIF: src.x != 0 as bits (so -0.0 is true)
        lw.emit(Instruction("MOV", U, Dest(k, mask=x), (s,), cc_update=cc, cc_kind=CCKind.INT))
    else:
        # IF: src.x != 0.0 as a float (-0.0 false, NaN true).  The float flag rule sets SF for
        # NaN and ZF for +-0 and NaN (GP4 2.X.4.3), and NE = SF or not ZF: exactly that.
        lw.emit(Instruction("MOV", F, Dest(k, mask=x), (s,), cc_update=cc, cc_kind=CCKind.FLOAT))
    lw.emit(Instruction("IF", cond=CondTest("NE", cc, (0, 0, 0, 0))))


def _plain(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        cond = lw.cond(t.cond) if t.cond is not None else None
        lw.emit(Instruction(irop, cond=cond))
    return fn


def _breakc(lw: Lowerer, t: M.Instruction):
    s = lw.src(t.srcs[0], integer=True)
    k = lw.scratch("if")
    cc = lw.flag_cc()
    lw.emit(Instruction("MOV", U, Dest(k, mask=(True, False, False, False)), (s,), cc_update=cc,
                        cc_kind=CCKind.INT))
    lw.emit(Instruction("BRK", cond=CondTest("NE", cc, (0, 0, 0, 0))))


def _switch(lw: Lowerer, t: M.Instruction):
    # structure() keeps the CASE values of each open SWITCH (lw.case_values)
    lw.emit(Instruction("SWITCH", U, srcs=(lw.src(t.srcs[0], integer=True),)))


def _case(lw: Lowerer, t: M.Instruction):
    s = t.srcs[0]
    if s.reg.file != "IMM" or s.reg.indirect is not None or s.neg or s.abs:
        lw.reject("E3004", "CASE needs an integer immediate operand (IMM[n].c)")
    value = lw.imm_words(s.reg.index)[s.swizzle[0]]
    seen = lw.case_values[-1]
    if value in seen:
        lw.reject("E3004", f"CASE {value} appears twice in this SWITCH")
    seen.add(value)
    lw.emit(Instruction("CASE", U, srcs=(Source(lw.const((value,) * 4)),)))


def _endswitch(lw: Lowerer, t: M.Instruction):
    lw.emit(Instruction("ENDSWITCH"))


def _cal(lw: Lowerer, t: M.Instruction):
    name = lw.sub_at.get(t.label) if t.label is not None else None
    if name is None:
        lw.reject("E4001", f"CAL :{t.label} does not name a BGNSUB instruction")
    cond = lw.cond(t.cond) if t.cond is not None else None
    lw.emit(Instruction("CAL", label=name, cond=cond))


def _kill(lw: Lowerer, t: M.Instruction):
    if lw.stage != Stage.FRAGMENT:
        lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
    if t.opcode == "KILL":
        cond = lw.cond(t.cond) if t.cond is not None else CondTest("TR")
        lw.emit(Instruction("KIL", cond=cond))
    elif t.cond is not None:
        # seed KILL_IF with CondFlowEnable: component c takes part where the CC test of
        # CondSwizzle[c] passes (the per-component reading of "executes only where the test
        # passes", as for the writes of an ALU instruction): the gated components into a
        # zeroed scratch, then KIL on it (0.0 never kills)
        k = lw.scratch("kc")
        lw.emit(Instruction("MOV", F, Dest(k), (Source(lw.const((0, 0, 0, 0))),)))
        lw.emit(Instruction("MOV", F, Dest(k, cond=lw.cond(t.cond)), (lw.src(t.srcs[0]),)))
        lw.emit(Instruction("KIL", F, srcs=(Source(k),)))
    else:
        lw.emit(Instruction("KIL", F, srcs=(lw.src(t.srcs[0]),)))


def _deriv(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        if lw.stage != Stage.FRAGMENT:
            lw.reject("E3004", f"{t.opcode} is a fragment-shader opcode")
        _simple(irop, F)(lw, t)
    return fn


def _emit_geom(irop: str):
    def fn(lw: Lowerer, t: M.Instruction):
        if lw.stage != Stage.GEOMETRY:
            lw.reject("E3004", f"{t.opcode} is a geometry-shader opcode")
        if t.srcs:
            s = t.srcs[0]
            if s.reg.file != "IMM" or lw.imm_words(s.reg.index)[s.swizzle[0]] != 0:
                lw.reject("E7001", f"{t.opcode} to a vertex stream other than 0 is not supported")
        if irop == "EMIT" and lw.out_read:
            lw.copy_outputs()
        lw.emit(Instruction(irop))
    return fn


_OPS = {
    # float arithmetic (tgsi.md 2.2)
    "MOV": _mov, "ADD": _simple("ADD", F), "SUB": _simple("SUB", F), "MUL": _simple("MUL", F),
    "MAD": _simple("MAD", F), "LRP": _simple("LRP", F), "DP2": _simple("DP2", F),
    "DP3": _simple("DP3", F), "DP4": _simple("DP4", F), "DPH": _simple("DPH", F),
    "DP2A": _simple("DP2A", F), "DST": _simple("DST", F), "MIN": _simple("MINNUM", F),
    "MAX": _simple("MAXNUM", F), "SLT": _simple("SLT", F), "SGE": _simple("SGE", F),
    "SEQ": _simple("SEQ", F), "SGT": _simple("SGT", F), "SLE": _simple("SLE", F),
    "SNE": _simple("SNE", F), "SFL": _simple("SFL", F), "STR": _simple("STR", F),
    "CMP": _simple("CMP", F), "SSG": _simple("SSG", F), "FRC": _simple("FRC", F),
    "FLR": _simple("FLR", F), "CEIL": _simple("CEIL", F), "TRUNC": _simple("TRUNC", F),
    "ROUND": _simple("ROUND", F), "RCP": _simple("RCP", F), "RSQ": _simple("RSQ", F),
    "SQRT": _simple("SQRT", F), "EX2": _simple("EX2", F), "LG2": _simple("LG2", F),
    "POW": _simple("POW", F), "SIN": _simple("SIN", F), "COS": _simple("COS", F),
    "EXP": _simple("EXPA", F), "LOG": _simple("LOGA", F), "LIT": _simple("LIT", F),
    # EXP/LOG: tgsi.rst's formulas have no special cases (IR EXPA/LOGA, not VP1's EXP/LOG)
    "ABS": _simple("ABS", F), "RCC": _simple("RCC", F), "RFL": _simple("RFL", F),
    "X2D": _simple("X2D", F), "DIV": _per_channel("DIV", F),
    "PK2H": _simple("PK2H", F), "UP2H": _simple("UP2H", F),
    # tgsi.rst PK2US/PK4UB: f32_to_unorm16/8 (NaN 0, clamped, rounded to nearest even: the IR's
    # NV rows); UP2US/UP4UB are "TBD" there: read as their inverses (the IR's NV unpacks)
    "PK2US": _simple("PK2US", F), "PK4UB": _simple("PK4UB", F),
    "UP2US": _simple("UP2US", F), "UP4UB": _simple("UP4UB", F),
    # PK4B: two's-complement snorm8 (tgsi.rst), not GP4's excess-128: its own IR rows, .U
    "PK4B": _simple("PK4SNORM", U), "UP4B": _simple("UP4SNORM", U),
    "XPD": _with_constant_channels("XPD", {3: 1.0}),
    "SCS": _with_constant_channels("SCS", {2: 0.0, 3: 1.0}),
    "NRM": _with_constant_channels("NRM", {3: 1.0}), "NRM4": _nrm4,
    "CLAMP": _clamp, "CND": _select_on("SGT", 0.5, 0, 1), "CND0": _select_on("SGE", 0.0, 0, 1),
    "DDX": _deriv("DDX"), "DDY": _deriv("DDY"),
    # address registers
    "ARL": _simple("FLR", S), "ARR": _simple("ROUND", S), "UARL": _simple("MOV", S, True, True),
    # integer (2.4)
    "I2F": _simple("I2F", S, True), "U2F": _simple("I2F", U, True),
    "F2I": _simple("TRUNC", S, integer_result=True), "F2U": _simple("TRUNC", U, integer_result=True),
    "UADD": _simple("ADD", U, True, True), "UMUL": _simple("MUL", U, True, True),
    "UMAD": _simple("MAD", U, True, True),
    "IMUL_HI": _simple("MUL", S, True, True, mul_mode="HI"),
    "UMUL_HI": _simple("MUL", U, True, True, mul_mode="HI"),
    "IDIV": _per_channel("DIV", S), "UDIV": _per_channel("DIV", U),
    "MOD": _per_channel("MOD", S), "UMOD": _per_channel("MOD", U),
    "IMAX": _simple("MAX", S, True, True), "IMIN": _simple("MIN", S, True, True),
    "UMAX": _simple("MAX", U, True, True), "UMIN": _simple("MIN", U, True, True),
    "INEG": _ineg, "IABS": _simple("ABS", S, True, True), "ISSG": _simple("ISSG", S, True, True),
    "NOT": _simple("NOT", U, True, True), "AND": _simple("AND", U, True, True),
    "OR": _simple("OR", U, True, True), "XOR": _simple("XOR", U, True, True),
    "SHL": _per_channel("SHL", U), "ISHR": _per_channel("SHR", S), "USHR": _per_channel("SHR", U),
    "ISLT": _simple("SLT", S, True, True), "ISGE": _simple("SGE", S, True, True),
    "USLT": _simple("SLT", U, True, True), "USGE": _simple("SGE", U, True, True),
    "USEQ": _simple("SEQ", U, True, True), "USNE": _simple("SNE", U, True, True),
    "FSLT": _simple("FSLT", F, integer_result=True), "FSGE": _simple("FSGE", F, integer_result=True),
    "FSEQ": _simple("FSEQ", F, integer_result=True), "FSNE": _simple("FSNE", F, integer_result=True),
    "FMA": _simple("FMA", F), "LDEXP": _ldexp,
    "DEMOTE": _demote, "READ_HELPER": _read_helper,
    # DDX/DDY are fine derivatives in the IR already (one per row / column of the 2x2 quad)
    "DDX_FINE": _deriv("DDX"), "DDY_FINE": _deriv("DDY"),
    # bitfield (2.5): offsets and widths are unsigned words (IR BFEXT..MSB)
    "IBFE": _simple("BFEXT", S, True, True), "UBFE": _simple("BFEXT", U, True, True),
    "BFI": _simple("BFINS", U, True, True), "BREV": _simple("BREV", U, True, True),
    "POPC": _simple("POPC", U, True, True), "LSB": _simple("LSB", U, True, True),
    "IMSB": _simple("MSB", S, True, True), "UMSB": _simple("MSB", U, True, True),
    "UCMP": lambda lw, t: _simple("UCMP", U if all(lw.is_int_src(s) and not (s.neg or s.abs)
                                                   for s in t.srcs[1:]) else F)(lw, t),
    # control flow (2.6)
    "IF": _if, "UIF": _if, "ELSE": _plain("ELSE"), "ENDIF": _plain("ENDIF"),
    "BGNLOOP": _plain("REP"), "ENDLOOP": _plain("ENDREP"), "BRK": _plain("BRK"),
    "CONT": _plain("CONT"), "RET": _plain("RET"), "CAL": _cal, "BREAKC": _breakc,
    "SWITCH": _switch, "CASE": _case, "DEFAULT": _plain("DEFAULT"), "ENDSWITCH": _endswitch,
    "NOP": lambda lw, t: None,
    "KILL": _kill, "KILL_IF": _kill,
    "EMIT": _emit_geom("EMIT"), "ENDPRIM": _emit_geom("ENDPRIM"),
    # textures (2.7)
    **TEXTURE_OPS, **SAMPLE_OPS, **DOUBLE_OPS,
}


def _unsupported_why(op: str) -> str:
    """Why an opcode without a lowering function is refused (E3008): "not yet supported" and
    its group for the opcodes of tgsi.rst xlate does not translate yet (the list
    tests/test_tgsi_opcode_coverage.py keeps, which may only shrink); a reason for the rest."""
    tier = TGSI_OPCODES[op].tier if op in TGSI_OPCODES else "?"
    if tier == "X":
        return "no Mesa driver ever implemented it"
    group = "resources, atomics, barriers, subgroups, multisample and interpolation forms" \
        if tier == "R" else None
    return "not yet supported" + (f": {group}" if group else "")


#: opcodes without a destination whose function honours a seed CondFlowEnable test (those
#: with a destination honour it through ``Lowerer.dst``); the rest refuse it (E7001)
_HONOURS_COND = frozenset({"IF", "UIF", "KILL", "KILL_IF", "BRK", "CONT", "RET", "CAL"})
#: seed precisions that convert the result (IR ``Instruction.precision``)
_PRECISION = {"FLOAT16": "FP16", "FIXED12": "X"}


def lower(shader: M.Shader, sink: DiagnosticSink) -> Program | None:
    """Lower a parsed/decoded TGSI shader; diagnostics go to ``sink``; None on errors."""
    return Lowerer(shader, sink).lower()
