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

from . import model as M
from ...diagnostics import DiagnosticSink, Span
from ...ir.limits import MAX_TOTAL_OUTPUT_COMPONENTS, result_components
from ...ir.model import (Binding, CCKind, CondTest, DataType, Dest, Geometry, Index, Instruction,
                         Program, RegKind, Register, Sat, Source, Stage, TESS_STAGES,
                         Tessellation)
from .lower_common import (F, MAX_CONST_BUFFER, MAX_INDEX, MAX_INSTRUCTIONS, MAX_NESTING,
                           MAX_VERTICES_OUT, S, U, _CC_RULES, _GS_IN, _GS_OUT, _INT_RESULT,
                           _INT_SOURCE, _OLD_RES, _Reject, _STAGES, f32_bits)
from .lower_memory import block_size, declare_memory
from .lower_ops import _OPS, _unsupported_why
from .lower_registers import _Registers
from .lower_tess import tcs_mark_written, tess_properties
from .opcodes import OPCODES as TGSI_OPCODES


class Lowerer(_Registers):
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
        self.tessellation: Tessellation | None = None  # TESS_CTRL / TESS_EVAL (lower_tess.py)
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
                     "vertex (VERT), fragment (FRAG), geometry (GEOM), tessellation (TESS_CTRL, "
                     "TESS_EVAL) and compute (COMP) shaders", None)
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
        self.resources = {}
        self.local_size = None
        try:
            geometry = self.geometry = self.properties()
            self.scan_usage()
            self.declare()
            self.resources = declare_memory(self)
            self.body()
        except _Reject:              # outside an instruction (output copies, prologue)
            return None
        if self.sink.has_errors:
            return None
        prog = Program(stage, "TGSI", self.regs, self.out, self.labels, entry=0,
                       geometry=geometry, tessellation=self.tessellation, source_name=self.file,
                       fragcoord_origin_upper_left=self.upper_left,
                       local_size=self.local_size, resources=self.resources)
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
        if self.stage == Stage.COMPUTE:
            self.local_size = block_size(self, props)
            return None
        if self.stage in TESS_STAGES:
            self.tessellation = tess_properties(self, props)
            return None
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
                if ref.file == "OUT" and not is_dst and ins.opcode != "FBFETCH":
                    self.out_read = True            # (FBFETCH names the output, reads none)
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
        if self.stage == Stage.TESS_CTRL:
            tcs_mark_written(self, reg, d, cond)
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
                    if k == 0:
                        # read as the subroutine it opens, so its ENDSUB matches
                        in_sub = end_seen = True
                        self.reject("E4003", _ONLY_A_SUBROUTINE)
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


#: a program that opens with BGNSUB (no main program before it)
_ONLY_A_SUBROUTINE = (
    "the program is only a subroutine (BGNSUB first, no main program ending in END): the Mesa "
    "2012-era compute syntax (clover launched kernels at a subroutine's label); modern TGSI "
    "puts the main program first and ends it with END, subroutines after it")

#: opcodes without a destination whose function honours a seed CondFlowEnable test (those
#: with a destination honour it through ``Lowerer.dst``); the rest refuse it (E7001)
_HONOURS_COND = frozenset({"IF", "UIF", "KILL", "KILL_IF", "BRK", "CONT", "RET", "CAL"})
#: seed precisions that convert the result (IR ``Instruction.precision``)
_PRECISION = {"FLOAT16": "FP16", "FIXED12": "X"}


def lower(shader: M.Shader, sink: DiagnosticSink) -> Program | None:
    """Lower a parsed/decoded TGSI shader; diagnostics go to ``sink``; None on errors."""
    return Lowerer(shader, sink).lower()
