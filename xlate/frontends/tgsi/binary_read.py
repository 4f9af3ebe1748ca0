"""TGSI token streams, reading: detecting the layout (seed or modern) and decoding a stream
into the text model, with a diagnostic for every malformed token (the layouts: ``binary.py``'s
docstring)."""
from __future__ import annotations

from typing import Mapping, Sequence

from ...diagnostics import DiagnosticSink, Span
from .binary_tables import (OPCODE_TABLES, PROPERTIES, SEMANTICS, _CC_TABLES, _MEMQUALS, _MEMTYPES,
                            _MODERN_FILES, _MODERN_PROCESSORS, _MODULATES, _PRECISIONS,
                            _PROPERTY_ENUMS, _SATURATE, _SEED_FILES, _SEED_INTERP,
                            _SEED_PROCESSORS, _SEED_TEXTURES, _s16, _to_model_opcode, _words,
                            implicit_dim)
from .model import (CC_TESTS, CondCode, Declaration, Dst, IMM_TYPES, INTERPOLATIONS, Immediate,
                    Indirect, Instruction, LOCATIONS, PROCESSORS, Property, RETURN_TYPES, RegRef,
                    Shader, Src, TEXTURE_TARGETS)
from .opcodes import OPCODES

# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------

def _seed_header_ok(w: list[int], strict: bool = True) -> bool:
    """VERSION 1.1, HeaderSize >= 2, sizes consistent; ``strict``: also a valid PROCESSOR."""
    ok = (len(w) >= 3 and w[0] == 0x00000101 and (w[1] & 0xFF) >= 2
          and 1 + (w[1] & 0xFF) + (w[1] >> 8) == len(w))
    return ok and (not strict or ((w[2] >> 4) == 0 and (w[2] & 0xF) < len(_SEED_PROCESSORS)))


def _modern_header_ok(w: list[int], strict: bool = True) -> bool:
    """HeaderSize 2, BodySize = words - 2; ``strict``: also a plausible PROCESSOR word."""
    ok = len(w) >= 2 and (w[0] & 0xFF) == 2 and (w[0] >> 8) == len(w) - 2
    return ok and (not strict or ((w[1] >> 4) == 0 and (w[1] & 0xF) < 8))


def _walk_ok(w: list[int], start: int, modern: bool) -> bool:
    pos = start
    while pos < len(w):
        t = w[pos] & 0xF
        if t > (3 if modern else 2):
            return False
        size = (w[pos] >> 4) & (0x3FFF if modern and t == 1 else 0xFF)
        if size == 0:
            return False
        pos += size
    return pos == len(w)


def detect_layout(data: bytes) -> str | None:
    """Which binary layout ``data`` is: ``"seed"``, ``"modern"`` or ``None``.

    The rule (every check must hold; the two layouts cannot both match because SEED's word 0
    is 0x00000101, i.e. a modern HeaderSize of 1):

    * the length is a non-zero multiple of 4 (little-endian 32-bit words);
    * ``seed``: word 0 is VERSION 1.1 (``0x00000101``, padding 0); word 1 (HEADER) has
      HeaderSize >= 2 (so a PROCESSOR token follows) and ``1 + HeaderSize + BodySize`` equals the
      word count; word 2 (PROCESSOR) has zero padding and a processor 0..2;
    * ``modern``: word 0 (HEADER) has HeaderSize 2 and BodySize = word count - 2; word 1
      (PROCESSOR) has zero padding (a processor 0..7 in any of the numberings);
    * in both, the body is a chain of sized tokens of known types (SEED 0..2, MODERN 0..3)
      with non-zero sizes that ends exactly at the end of the stream.

    Anything else -- text, garbage, a stream of another VERSION -- is ``None``.  ``decode``
    uses only the header checks, so that it can say *what* is wrong with a damaged body.
    """
    w = _words(data)
    if not w:
        return None
    if _seed_header_ok(w) and _walk_ok(w, 1 + (w[1] & 0xFF), False):
        return "seed"
    if _modern_header_ok(w) and _walk_ok(w, 2, True):
        return "modern"
    return None


# ---------------------------------------------------------------------------------------------
# Reader
# ---------------------------------------------------------------------------------------------

#: tokens (declarations, immediates, instructions) of one stream, as for TGSI text
MAX_TOKENS = 1 << 18


class _Bad(Exception):
    """A token cannot be decoded; carries the word offset and the message."""

    def __init__(self, pos: int, msg: str, code: str = "E1009"):
        super().__init__(msg)
        self.pos, self.msg, self.code = pos, msg, code


class _Cursor:
    """Reads the words of one sized token (``end`` = one past its last word)."""

    def __init__(self, words: list[int], pos: int, end: int, what: str):
        self.w, self.pos, self.end, self.what = words, pos, end, what

    def next(self, name: str) -> tuple[int, int]:
        if self.pos >= self.end:
            raise _Bad(self.pos, f"{self.what} ends (Size) before its {name} token")
        p = self.pos
        self.pos += 1
        return p, self.w[p]


class _Reader:
    def __init__(self, words: list[int], sink: DiagnosticSink, *, opcodes, table_name: str,
                 processors: Sequence[str], cc_tests=CC_TESTS, formats=None):
        self.w = words
        self.sink = sink
        self.opcodes = opcodes
        self.table_name = table_name
        self.processors = processors
        self.cc_tests = cc_tests
        self.formats = formats
        self.errors = 0
        self.processor = "FRAG"

    def err(self, pos: int, msg: str, code: str = "E1009") -> None:
        self.errors += 1
        self.sink.error(code, f"word {pos}: {msg}", Span(self.sink.file, 1, 1))

    def pad(self, pos: int, word: int, mask: int, what: str) -> None:
        if word & mask:
            self.err(pos, f"{what}: padding bits 0x{word & mask:08x} must be 0")

    def opcode(self, pos: int, num: int, nsrc: int) -> str:
        name = self.opcodes.get(num)
        if name is None:
            raise _Bad(pos, f"opcode {num} has no name in the {self.table_name} opcode table",
                       "E3001")
        if name == "KIL(2007)":
            return "KILL_IF" if nsrc else "KILL"
        model = _to_model_opcode(name)
        if model not in OPCODES:
            raise _Bad(pos, f"opcode {num} ({name} in the {self.table_name} table) is not an "
                            "opcode xlate knows", "E3001")
        return model

    def format_name(self, num: int) -> str | None:
        if num == 0:
            return None
        if self.formats is not None and num < len(self.formats) and self.formats[num]:
            return self.formats[num]
        return f"PIPE_FORMAT_{num}"

    def processor_at(self, pos: int, word: int) -> str | None:
        self.pad(pos, word, 0xFFFFFFF0, "PROCESSOR")
        p = word & 0xF
        if p >= len(self.processors) or self.processors[p] not in PROCESSORS:
            name = self.processors[p] if p < len(self.processors) else "undefined"
            self.err(pos, f"processor {p} ({name}) is not supported")
            return None
        return self.processors[p]

    # -- body walk shared by both layouts -------------------------------------------------
    def body(self, start: int, end: int, modern: bool, shader: Shader) -> None:
        # count the tokens first (sizes only): a stream over the limit is rejected before
        # any of it is decoded (bounded work and memory)
        pos, count = start, 0
        while pos < end and count <= MAX_TOKENS:
            word = self.w[pos]
            size = (word >> 4) & (0x3FFF if modern and word & 0xF == 1 else 0xFF)
            if size == 0:
                break
            pos += size
            count += 1
        if count > MAX_TOKENS:
            self.err(pos, f"more than {MAX_TOKENS} tokens; xlate reads token streams of at "
                          "most that many", "E1008")
            return
        pos = start
        while pos < end:
            word = self.w[pos]
            ttype = word & 0xF
            size = (word >> 4) & (0x3FFF if modern and ttype == 1 else 0xFF)
            if size == 0:
                self.err(pos, f"token type {ttype} has Size 0; cannot continue")
                return
            if pos + size > end:
                self.err(pos, f"token type {ttype} has Size {size} but only {end - pos} "
                              "words of the body remain (truncated stream)")
                return
            try:
                if modern:
                    self.modern_token(pos, pos + size, ttype, shader)
                else:
                    self.seed_token(pos, pos + size, ttype, shader)
            except _Bad as bad:
                self.err(bad.pos, bad.msg, bad.code)
            pos += size

    # -- SEED -----------------------------------------------------------------------------
    def seed_token(self, pos: int, end: int, ttype: int, shader: Shader) -> None:
        word = self.w[pos]
        if ttype == 0:
            shader.declarations.extend(self.seed_decl(pos, end, word))
        elif ttype == 1:
            shader.immediates.append(self.seed_imm(pos, end, word))
        elif ttype == 2:
            shader.instructions.append(self.seed_instr(pos, end, word))
        else:
            raise _Bad(pos, f"unknown token type {ttype} (SEED defines 0 DECLARATION, "
                            "1 IMMEDIATE, 2 INSTRUCTION); skipped by its Size")

    def seed_ext_chain(self, cur: _Cursor, word: int, what: str, kinds: Mapping[int, str]):
        """Extension tokens following a token with Extended set: {type: (pos, word)}."""
        exts: dict[int, tuple[int, int]] = {}
        while word >> 31:
            pos, word = cur.next(f"{what} extension")
            t = word & 0xF
            if t not in kinds:
                known = ", ".join(f"{k} {v}" for k, v in kinds.items()) or "none"
                self.err(pos, f"unknown {what} extension type {t} (SEED defines: {known}); "
                              "skipped")
            elif t in exts:
                self.err(pos, f"second {what} {kinds[t]} extension (SEED 6.3: at most one of "
                              "each type; which one applies is undefined)")
            else:
                exts[t] = (pos, word)
        return exts

    def seed_decl(self, pos: int, end: int, word: int) -> list[Declaration]:
        cur = _Cursor(self.w, pos + 1, end, "DECLARATION")
        fnum = (word >> 12) & 0xF
        if fnum >= len(_SEED_FILES):
            raise _Bad(pos, f"register file {fnum} is not a SEED file (0..7)")
        file = _SEED_FILES[fnum]
        declare = (word >> 16) & 0xF
        if declare > 1:
            raise _Bad(pos, f"Declare {declare} is neither DECLARE_RANGE (0) nor DECLARE_MASK (1)")
        has_interp = (word >> 20) & 1
        self.pad(pos, word, 0x7FE00000, "DECLARATION")
        self.seed_ext_chain(cur, word, "DECLARATION", {})
        # the RANGE/MASK tokens fill the declaration up to the optional INTERPOLATION token
        n = end - cur.pos - has_interp
        if n < 0:
            raise _Bad(pos, "DECLARATION ends (Size) before its INTERPOLATION token")
        regs: set[int] = set()
        if declare == 0 and n == 0:
            regs.add(0)                              # SEED 3.1: the default range is 0..0
        for _ in range(n):
            p, t = cur.next("RANGE")
            if declare == 0:
                first, last = t & 0xFFFF, t >> 16
                if first > last:
                    raise _Bad(p, f"DECLARATION_RANGE First {first} > Last {last}")
                regs.update(range(first, last + 1))
            else:
                regs.update(i for i in range(32) if t >> i & 1)
        interp = None
        if has_interp:
            p, t = cur.next("INTERPOLATION")
            if (t & 0xF) >= len(_SEED_INTERP):
                raise _Bad(p, f"interpolation mode {t & 0xF} is not a SEED mode (0..2)")
            self.pad(p, t, 0xFFFFFFF0, "DECLARATION_INTERPOLATION")
            interp = _SEED_INTERP[t & 0xF]
        if not regs:
            raise _Bad(pos, "DECLARATION_MASK declares no register")
        out, run = [], None
        for r in sorted(regs):
            if run and r == run[1] + 1:
                run[1] = r
            else:
                run = [r, r]
                out.append(run)
        return [Declaration(file, a, b, interpolate=interp) for a, b in out]

    def seed_imm(self, pos: int, end: int, word: int) -> Immediate:
        dtype = (word >> 12) & 0xF
        if dtype != 0:
            raise _Bad(pos, f"immediate DataType {dtype}: SEED has only IMM_FLOAT32 (0)")
        self.pad(pos, word, 0x7FFF0000, "IMMEDIATE")
        if word >> 31:
            raise _Bad(pos, "IMMEDIATE has Extended set; SEED defines no immediate extension")
        n = end - pos - 1
        if not 1 <= n <= 4:
            raise _Bad(pos, f"immediate with {n} values; a SEED immediate is one register "
                            "of 1..4 float32 values")
        return Immediate("FLT32", tuple(self.w[pos + 1:end]))

    def seed_instr(self, pos: int, end: int, word: int) -> Instruction:
        cur = _Cursor(self.w, pos + 1, end, "INSTRUCTION")
        sat = (word >> 20) & 3
        if sat == 3:
            raise _Bad(pos, "Saturate 3 is not a SEED saturate mode (0..2)")
        ndst, nsrc = (word >> 22) & 3, (word >> 24) & 0xF
        self.pad(pos, word, 0x70000000, "INSTRUCTION")
        opcode = self.opcode(pos, (word >> 12) & 0xFF, nsrc)
        exts = self.seed_ext_chain(cur, word, "INSTRUCTION",
                                   {0: "EXT_NV", 1: "EXT_LABEL", 2: "EXT_TEXTURE"})
        precision = cc_update = cond = label = texture = None
        if 0 in exts:
            p, t = exts[0]
            self.pad(p, t, 0x40000000, "INSTRUCTION_EXT_NV")
            prec = (t >> 4) & 0xF
            if prec >= len(_PRECISIONS):
                raise _Bad(p, f"precision {prec} is not a SEED precision (0..3)")
            precision = _PRECISIONS[prec]
            if t >> 28 & 1:
                cc_update = (t >> 8) & 0xF
            if t >> 29 & 1:
                cond = CondCode(self.cc_test(p, (t >> 16) & 0xF),
                                tuple((t >> (20 + 2 * c)) & 3 for c in range(4)),
                                (t >> 12) & 0xF)
        if 1 in exts:
            p, t = exts[1]
            self.pad(p, t, 0x60000000, "INSTRUCTION_EXT_LABEL")
            lab, target = (t >> 4) & 0xFFFFFF, (t >> 28) & 1
            if target and lab:
                raise _Bad(p, f"EXT_LABEL declares symbolic label {lab} (Target = 1); labels "
                              "are read as instruction indices (Mesa), Target must be 0")
            if not target:
                label = lab
        if 2 in exts:
            p, t = exts[2]
            self.pad(p, t, 0x7FFFF000, "INSTRUCTION_EXT_TEXTURE")
            tex = (t >> 4) & 0xFF
            if tex >= len(_SEED_TEXTURES):
                raise _Bad(p, f"texture target {tex} is not a SEED target (0..8)")
            texture = _SEED_TEXTURES[tex]
        dsts = tuple(self.seed_dst(cur) for _ in range(ndst))
        srcs = tuple(self.seed_src(cur) for _ in range(nsrc))
        if cur.pos != end:
            raise _Bad(pos, f"INSTRUCTION Size {end - pos} but its tokens end after "
                            f"{cur.pos - pos} words")
        return Instruction(opcode, dsts, srcs, saturate=_SATURATE[sat], label=label,
                           texture=texture, precision=precision, cc_update=cc_update, cond=cond)

    def cc_test(self, pos: int, v: int) -> str:
        if v >= len(self.cc_tests):
            raise _Bad(pos, f"condition-code mask {v} is not defined (0..{len(self.cc_tests) - 1})")
        return self.cc_tests[v]

    def seed_file(self, pos: int, word: int) -> str:
        f = word & 0xF
        if f >= len(_SEED_FILES):
            raise _Bad(pos, f"register file {f} is not a SEED file (0..7)")
        return _SEED_FILES[f]

    def seed_address(self, cur: _Cursor) -> Indirect:
        p, t = cur.next("address SRC_REGISTER")
        file = self.seed_file(p, t)
        if t & 0x80007000:
            raise _Bad(p, "address SRC_REGISTER with Negate/Indirect/Dimension/Extended: "
                          "nested or modified indirect addressing is not supported")
        return Indirect(file, _s16(t >> 15), (t >> 4) & 3)

    def seed_dimension(self, cur: _Cursor) -> tuple[int, Indirect | None]:
        p, t = cur.next("DIMENSION")
        self.pad(p, t, 0x7FFC, "DIMENSION")
        if t >> 31:
            raise _Bad(p, "DIMENSION has Extended set; SEED defines no DIMENSION extension")
        if t >> 1 & 1:
            raise _Bad(p, "chained DIMENSION tokens (3-D operands) are not supported")
        ind = self.seed_address(cur) if t & 1 else None
        return _s16(t >> 15), ind

    def seed_reg(self, cur: _Cursor, file: str, index: int, indirect: bool,
                 dimension: bool) -> RegRef:
        ind = self.seed_address(cur) if indirect else None
        if not dimension:
            return RegRef(file, index, ind)
        # SEED 6.4.5: the register token holds the first bracket, DIMENSION the second
        second, ind2 = self.seed_dimension(cur)
        return RegRef(file, second, ind2, dim=index, dim_indirect=ind)

    def seed_dst(self, cur: _Cursor) -> Dst:
        p, t = cur.next("DST_REGISTER")
        file = self.seed_file(p, t)
        self.pad(p, t, 0x7C000000, "DST_REGISTER")
        exts = self.seed_ext_chain(cur, t, "DST_REGISTER", {0: "CONDCODE", 1: "MODULATE"})
        cond, modulate = None, "1X"
        if 0 in exts:
            q, e = exts[0]
            self.pad(q, e, 0x7FF00000, "DST_REGISTER_EXT_CONDCODE")
            cond = CondCode(self.cc_test(q, (e >> 4) & 0xF),
                            tuple((e >> (8 + 2 * c)) & 3 for c in range(4)), (e >> 16) & 0xF)
        if 1 in exts:
            q, e = exts[1]
            self.pad(q, e, 0x7FFFFF00, "DST_REGISTER_EXT_MODULATE")
            m = (e >> 4) & 0xF
            if m >= len(_MODULATES):
                raise _Bad(q, f"modulate mode {m} is not defined (0..6)")
            modulate = _MODULATES[m]
        reg = self.seed_reg(cur, file, _s16(t >> 10), bool(t >> 8 & 1), bool(t >> 9 & 1))
        mask = tuple(bool(t >> (4 + c) & 1) for c in range(4))
        return Dst(reg, mask, cond=cond, modulate=modulate)

    def seed_src(self, cur: _Cursor) -> Src:
        p, t = cur.next("SRC_REGISTER")
        file = self.seed_file(p, t)
        plain = tuple((t >> (4 + 2 * c)) & 3 for c in range(4))
        exts = self.seed_ext_chain(cur, t, "SRC_REGISTER", {0: "SWZ", 1: "MOD"})
        swizzle, comp_neg, divide = plain, (False,) * 4, 5
        mods = dict(complement=False, bias=False, scale2x=False, abs=False, abs_neg=False)
        if 0 in exts:
            q, e = exts[0]
            self.pad(q, e, 0x70000000, "SRC_REGISTER_EXT_SWZ")
            sel = [(e >> (4 + 4 * c)) & 0xF for c in range(4)] + [(e >> 24) & 0xF]
            for v in sel:
                if v > 5:
                    raise _Bad(q, f"extended swizzle selector {v} is not defined (0..5)")
            sel = [plain[v] if v <= 3 else v for v in sel]
            swizzle, divide = tuple(sel[:4]), sel[4]
            comp_neg = tuple(bool(e >> (20 + c) & 1) for c in range(4))
        if 1 in exts:
            q, e = exts[1]
            self.pad(q, e, 0x7FFFFE00, "SRC_REGISTER_EXT_MOD")
            for bit, name in enumerate(("complement", "bias", "scale2x", "abs", "abs_neg")):
                mods[name] = bool(e >> (4 + bit) & 1)
        reg = self.seed_reg(cur, file, _s16(t >> 15), bool(t >> 13 & 1), bool(t >> 14 & 1))
        return Src(reg, swizzle, neg=bool(t >> 12 & 1), comp_neg=comp_neg, ext_divide=divide,
                   **mods)

    # -- MODERN ---------------------------------------------------------------------------
    def modern_token(self, pos: int, end: int, ttype: int, shader: Shader) -> None:
        word = self.w[pos]
        if ttype == 0:
            shader.declarations.append(self.modern_decl(pos, end, word))
        elif ttype == 1:
            shader.immediates.append(self.modern_imm(pos, end, word))
        elif ttype == 2:
            shader.instructions.append(self.modern_instr(pos, end, word))
        elif ttype == 3:
            shader.properties.append(self.modern_prop(pos, end, word))
        else:
            raise _Bad(pos, f"unknown token type {ttype} (0 DECLARATION, 1 IMMEDIATE, "
                            "2 INSTRUCTION, 3 PROPERTY); skipped by its NrTokens")

    def modern_file(self, pos: int, f: int) -> str:
        if f >= len(_MODERN_FILES):
            raise _Bad(pos, f"register file {f} is not defined (0..{len(_MODERN_FILES) - 1})")
        return _MODERN_FILES[f]

    def target(self, pos: int, v: int) -> str:
        if v >= len(TEXTURE_TARGETS):
            raise _Bad(pos, f"texture target {v} is not defined (0..{len(TEXTURE_TARGETS) - 1})")
        return TEXTURE_TARGETS[v]

    def modern_decl(self, pos: int, end: int, word: int) -> Declaration:
        cur = _Cursor(self.w, pos + 1, end, "DECLARATION")
        file = self.modern_file(pos, (word >> 12) & 0xF)
        self.pad(pos, word, 0xE0000000, "DECLARATION")
        um = (word >> 16) & 0xF
        kw: dict = dict(usage_mask=None if um == 0xF else tuple(bool(um >> c & 1)
                                                                for c in range(4)),
                        invariant=bool(word >> 23 & 1), local=bool(word >> 24 & 1),
                        atomic=bool(word >> 26 & 1), memory_type=_MEMTYPES[(word >> 27) & 3])
        p, t = cur.next("RANGE")
        first, last = t & 0xFFFF, t >> 16
        if first > last:
            raise _Bad(p, f"DECLARATION_RANGE First {first} > Last {last}")
        if word >> 20 & 1:
            p, t = cur.next("DIMENSION")
            self.pad(p, t, 0xFFFF0000, "DECLARATION_DIMENSION")
            kw["dim"] = t & 0xFFFF
        if word >> 22 & 1:
            p, t = cur.next("INTERP")
            self.pad(p, t, 0xFFFFFFC0, "DECLARATION_INTERP (CylindricalWrap is not supported)")
            mode, loc = t & 0xF, (t >> 4) & 3
            if mode >= len(INTERPOLATIONS) or loc >= len(LOCATIONS):
                raise _Bad(p, f"interpolation {mode} / location {loc} is not defined")
            kw["interpolate"] = INTERPOLATIONS[mode]
            kw["location"] = None if loc == 0 else LOCATIONS[loc]
        semantic = None
        if word >> 21 & 1:
            p, t = cur.next("SEMANTIC")
            if (t & 0xFF) >= len(SEMANTICS):
                raise _Bad(p, f"semantic name {t & 0xFF} is not defined (0..{len(SEMANTICS) - 1})")
            semantic = SEMANTICS[t & 0xFF]
            stream = tuple((t >> (24 + 2 * c)) & 3 for c in range(4))
            kw.update(semantic=semantic, semantic_index=(t >> 8) & 0xFFFF,
                      stream=None if stream == (0, 0, 0, 0) else stream)
        if file == "IMAGE":
            p, t = cur.next("IMAGE")
            self.pad(p, t, 0xFFF00000, "DECLARATION_IMAGE")
            kw.update(target=self.target(p, t & 0xFF), raw=bool(t >> 8 & 1),
                      writable=bool(t >> 9 & 1), format=self.format_name((t >> 10) & 0x3FF))
        if file == "SVIEW":
            p, t = cur.next("SAMPLER_VIEW")
            rts = [(t >> (8 + 6 * c)) & 0x3F for c in range(4)]
            if max(rts) >= len(RETURN_TYPES):
                raise _Bad(p, f"sampler-view return type {max(rts)} is not defined (0..4)")
            kw.update(target=self.target(p, t & 0xFF),
                      return_types=tuple(RETURN_TYPES[r] for r in rts))
        if word >> 25 & 1:
            p, t = cur.next("ARRAY")
            self.pad(p, t, 0xFFFFFC00, "DECLARATION_ARRAY")
            kw["array_id"] = t & 0x3FF
        if cur.pos != end:
            raise _Bad(pos, f"DECLARATION NrTokens {end - pos} but its flags announce "
                            f"{cur.pos - pos} words")
        return Declaration(file, first, last,
                           implicit_dim=implicit_dim(self.processor, file, semantic), **kw)

    def modern_imm(self, pos: int, end: int, word: int) -> Immediate:
        dtype = (word >> 18) & 0xF
        self.pad(pos, word, 0xFFC00000, "IMMEDIATE")
        if dtype >= len(IMM_TYPES):
            raise _Bad(pos, f"immediate DataType {dtype} is not defined (0..5)")
        n = end - pos - 1
        if not 1 <= n <= 4 or (dtype >= 3 and n % 2):
            raise _Bad(pos, f"{IMM_TYPES[dtype]} immediate with {n} data words (1..4 words, "
                            "an even number for 64-bit types)")
        return Immediate(IMM_TYPES[dtype], tuple(self.w[pos + 1:end]))

    def modern_prop(self, pos: int, end: int, word: int) -> Property:
        num = (word >> 12) & 0xFF
        self.pad(pos, word, 0xFFF00000, "PROPERTY")
        if num >= len(PROPERTIES):
            raise _Bad(pos, f"property {num} is not defined (0..{len(PROPERTIES) - 1})")
        if end - pos != 2:
            raise _Bad(pos, f"PROPERTY with {end - pos - 1} data words (expected 1)")
        name, value = PROPERTIES[num], self.w[pos + 1]
        names = (self.processors if name == "NEXT_SHADER" else _PROPERTY_ENUMS.get(name))
        if names is not None:
            if value >= len(names):
                raise _Bad(pos + 1, f"{name} value {value} is not defined")
            return Property(name, names[value])
        return Property(name, str(value))

    def modern_instr(self, pos: int, end: int, word: int) -> Instruction:
        cur = _Cursor(self.w, pos + 1, end, "INSTRUCTION")
        ndst, nsrc = (word >> 21) & 3, (word >> 23) & 0xF
        self.pad(pos, word, 0x80000000, "INSTRUCTION")
        opcode = self.opcode(pos, (word >> 12) & 0xFF, nsrc)
        kw: dict = dict(saturate="SAT" if word >> 20 & 1 else "", precise=bool(word >> 30 & 1))
        if word >> 27 & 1:
            p, t = cur.next("LABEL")
            self.pad(p, t, 0xFF000000, "INSTRUCTION_LABEL")
            kw["label"] = t & 0xFFFFFF
        if word >> 28 & 1:
            p, t = cur.next("TEXTURE")
            self.pad(p, t, 0xFFFFF000, "INSTRUCTION_TEXTURE")
            kw["texture"] = self.target(p, t & 0xFF)
            offs = []
            for _ in range((t >> 8) & 0xF):
                q, o = cur.next("TEXTURE_OFFSET")
                self.pad(q, o, 0xFC000000, "TEXTURE_OFFSET")
                reg = RegRef(self.modern_file(q, (o >> 16) & 0xF), _s16(o))
                offs.append(Src(reg, tuple((o >> (20 + 2 * c)) & 3 for c in range(3)) + (3,)))
            kw["tex_offsets"] = tuple(offs)
        if word >> 29 & 1:
            p, t = cur.next("MEMORY")
            self.pad(p, t, 0xFFC00000, "INSTRUCTION_MEMORY")
            mem = [q for b, q in enumerate(_MEMQUALS) if t >> b & 1]
            if (t >> 4) & 0xFF:
                mem.append(self.target(p, (t >> 4) & 0xFF))
            fmt = self.format_name((t >> 12) & 0x3FF)
            if fmt:
                mem.append(fmt)
            kw["memory"] = tuple(mem)
        kw["dsts"] = tuple(self.modern_dst(cur) for _ in range(ndst))
        kw["srcs"] = tuple(self.modern_src(cur) for _ in range(nsrc))
        if cur.pos != end:
            raise _Bad(pos, f"INSTRUCTION NrTokens {end - pos} but its tokens end after "
                            f"{cur.pos - pos} words")
        return Instruction(opcode, **kw)

    def modern_ind(self, cur: _Cursor) -> Indirect:
        p, t = cur.next("IND")
        return Indirect(self.modern_file(p, t & 0xF), _s16(t >> 4), (t >> 20) & 3,
                        (t >> 22) & 0x3FF)

    def modern_reg(self, cur: _Cursor, file: str, index: int, indirect: bool,
                   dimension: bool) -> RegRef:
        ind = self.modern_ind(cur) if indirect else None
        # the register-index (n) suffix lives in RegRef.array_id (model.py docstring)
        array_id = 0
        if ind is not None and ind.array_id:
            array_id, ind = ind.array_id, Indirect(ind.file, ind.index, ind.comp)
        if not dimension:
            return RegRef(file, index, ind, array_id=array_id)
        p, t = cur.next("DIMENSION")
        self.pad(p, t, 0xFFFC, "DIMENSION")
        if t >> 1 & 1:
            raise _Bad(p, "nested DIMENSION tokens (3-D operands) are not supported")
        dind = self.modern_ind(cur) if t & 1 else None
        return RegRef(file, index, ind, dim=_s16(t >> 16), dim_indirect=dind, array_id=array_id)

    def modern_dst(self, cur: _Cursor) -> Dst:
        p, t = cur.next("DST_REGISTER")
        self.pad(p, t, 0xFC000000, "DST_REGISTER")
        file = self.modern_file(p, t & 0xF)
        reg = self.modern_reg(cur, file, _s16(t >> 10), bool(t >> 8 & 1), bool(t >> 9 & 1))
        return Dst(reg, tuple(bool(t >> (4 + c) & 1) for c in range(4)))

    def modern_src(self, cur: _Cursor) -> Src:
        p, t = cur.next("SRC_REGISTER")
        file = self.modern_file(p, t & 0xF)
        reg = self.modern_reg(cur, file, _s16(t >> 6), bool(t >> 4 & 1), bool(t >> 5 & 1))
        swz = tuple((t >> (22 + 2 * c)) & 3 for c in range(4))
        absolute, negate = bool(t >> 30 & 1), bool(t >> 31 & 1)
        # MODERN applies Absolute before Negate: -|x| is abs + abs_neg, -x is neg
        return Src(reg, swz, neg=negate and not absolute, abs=absolute,
                   abs_neg=negate and absolute)


def _diagnose_header(w: list[int] | None, nbytes: int, r: _Reader) -> None:
    if w is None:
        r.err(0, f"length {nbytes} bytes is not a multiple of 4: not a TGSI token stream")
        return
    if len(w) < 2:
        r.err(0, f"{len(w)} words is too short for a TGSI token stream header")
        return
    w0 = w[0]
    if (w0 & 0xFF) == 1 and w0 >> 16 == 0:
        if w0 != 0x101:
            r.err(0, f"VERSION {w0 & 0xFF}.{(w0 >> 8) & 0xFF}: only SEED version 1.1 is "
                     "supported (a higher minor version may not be executed)")
        elif len(w) < 3:
            r.err(1, "SEED stream ends before its PROCESSOR token")
        elif (w[1] & 0xFF) < 2:
            r.err(1, f"HeaderSize {w[1] & 0xFF}: a SEED header needs HeaderSize >= 2 "
                     "(HEADER + PROCESSOR)")
        else:
            r.err(1, f"HEADER: 1 + HeaderSize {w[1] & 0xFF} + BodySize {w[1] >> 8} = "
                     f"{1 + (w[1] & 0xFF) + (w[1] >> 8)} words, but the stream has {len(w)}")
        return
    if (w0 & 0xFF) == 2:
        r.err(0, f"HEADER: HeaderSize 2 + BodySize {w0 >> 8} = {2 + (w0 >> 8)} words, "
                 f"but the stream has {len(w)}")
        return
    r.err(0, f"0x{w0:08x} is neither a SEED VERSION 1.1 token nor a modern HEADER "
             "(HeaderSize 2): not a TGSI token stream")


def decode(data: bytes, sink: DiagnosticSink, *, opcode_table: str | Mapping[int, str] | None = None,
           cc_table: str = "h2007", processor_enum: str = "mesa2023",
           formats: Sequence[str | None] | None = None) -> Shader | None:
    """Decode a SEED or MODERN token stream into a :class:`Shader`.

    ``opcode_table``: for SEED "2008-03" (default) or "2007-08", for MODERN "modern"
    (default); or a dict {number: opcode name}.  ``cc_table``: SEED CondMask enum, "h2007"
    (default) or "mesa2008".  ``processor_enum``: MODERN processor numbering, "mesa2023"
    (default), "pipe2016" or "tgsi2008".  ``formats``: PIPE_FORMAT names by enum value.

    Never raises: every problem is a diagnostic in ``sink``; the result is ``None`` when any
    error was reported (including a stream that is neither layout).
    """
    if not (opcode_table is None or isinstance(opcode_table, Mapping)
            or opcode_table in OPCODE_TABLES):
        raise ValueError(f"unknown opcode table {opcode_table!r}")
    if cc_table not in _CC_TABLES or processor_enum not in _MODERN_PROCESSORS:
        raise ValueError(f"unknown cc_table {cc_table!r} or processor_enum {processor_enum!r}")
    try:
        return _decode(bytes(data), sink, opcode_table, cc_table, processor_enum, formats)
    except Exception as exc:  # pragma: no cover - a bug; reported, never raised
        sink.error("E7005", f"internal error decoding a TGSI token stream: {exc!r}",
                   Span(sink.file, 1, 1))
        return None


def _decode(data, sink, opcode_table, cc_table, processor_enum, formats):
    w = _words(data)
    # header checks only (no PROCESSOR check, no body walk): damage beyond the header is
    # reported token by token instead of as "not a stream"
    seed = w is not None and _seed_header_ok(w, strict=False)
    modern = not seed and w is not None and _modern_header_ok(w, strict=False)
    if isinstance(opcode_table, Mapping):
        opcodes, tname = dict(opcode_table), "given"
    else:
        tname = opcode_table or ("modern" if modern else "2008-03")
        opcodes = OPCODE_TABLES[tname]
    r = _Reader(w or [], sink, opcodes=opcodes, table_name=tname,
                processors=_SEED_PROCESSORS if seed else _MODERN_PROCESSORS[processor_enum],
                cc_tests=_CC_TABLES[cc_table], formats=formats)
    if not seed and not modern:
        # lax classification, to say what is wrong with a damaged header
        _diagnose_header(w, len(data), r)
        return None
    if seed:
        hsize = w[1] & 0xFF
        proc = r.processor_at(2, w[2])
        start, version = 1 + hsize, (1, 1)
    else:
        proc = r.processor_at(1, w[1])
        start, version = 2, None
    r.processor = proc or "FRAG"
    shader = Shader(processor=r.processor, version=version, source_name=sink.file)
    r.body(start, len(w), modern, shader)
    return None if r.errors else shader


