"""The GLSL emitter: its state, naming, and the program's file layout (``program.j2``), the
``#version`` header rendered last from what the body needed, and the line map."""
from __future__ import annotations


import re

from ... import __version__
from ...diagnostics import Diagnostic, XlateError
from ...ir.model import (MAX_CALL_DEPTH, Binding, DataType, Program, Stage, input_vertices)
from ...passes.pipeline import lower
from ...passes.structurize import Structured
from .. import interface as I
from ..names import interface_names

from .profiles import ES_PRECISE, ES_PRECISE_HEADER, GLSL_RESERVED, PRECISE_GLOBAL, PROFILES, PROFILE_INFO
from ..refusal import Unsupported
from .records import GlslOutput, _Tex, called_copies
from .tables import _jinja_env, helper_library, precise_helper, sized_overload, snippet_table
from .declarations import Declarations
from .operands import Operands
from .instructions import Instructions
from .textures import Textures
from .control import ControlFlow
from .expressions import Expressions, Plan, plan_temporaries
from .memory import Memory


# Line tags: emit_body appends "\x00<source line>\x00" ("\x00<line>c\x00" for an instruction
# comment) to every line an IR node produced; finish_lines turns them into the line map and
# removes them.  NUL never occurs in GLSL (glslang refuses it), so a tag cannot be mistaken.
_TAG = re.compile("\x00(\\d+)(c?)\x00")
# lines no compiler message can be about: with #line directives their numbers do not matter
_FILLER = frozenset(["", "{", "}", "else", "do", "} while (false);"])
#: helper sections of helpers.glsl that need a GLSL extension (#extension ... : require)
HELPER_EXTENSIONS = {"int64": ("GL_ARB_gpu_shader_int64",),
                     # (a verifier probe program's inter-lane opcodes: ops.txt "@flagged")
                     "read_active": ("GL_ARB_shader_ballot", "GL_ARB_gpu_shader_int64")}


_WORD = re.compile(r"\w+")


class GlslEmitter(Declarations, Operands, Instructions, Textures, ControlFlow, Expressions,
                  Memory):
    """Prints one lowered program; the mixins are the parts (declarations, operands,
    instructions, textures, control flow), this class holds the state and the program."""

    def __init__(self, prog: Program, profile: str = "glsl450", *, line_directives: bool = False,
                 comments: bool = False, instruction_text=None):
        if profile not in PROFILES:
            raise ValueError(f"unknown GLSL profile {profile!r} (expected one of {', '.join(PROFILES)})")
        self.prog = prog
        self.profile = profile
        self.info = PROFILE_INFO[profile]
        self.vulkan = profile == "vulkan"
        self.line_directives = line_directives
        self.comments = comments
        # Instruction -> its text for the comments (the API passes the source's own text); the
        # IR printer's form when the caller has none (a TGSI token stream has no text)
        self.instruction_text = instruction_text
        self.extensions: list[str] = []         # #extension ... : require, in order of need
        self.notes: list[str] = []              # header comment lines (profile readings)
        self.stage = prog.stage
        self.types: dict = {}               # from the middle end (emit)
        self.cc_used: set[int] = set()
        self.cc_values: set[int] = set()    # CC registers holding a float value (condcodes.py)
        self.helpers: list[str] = []
        # (function, returns, size) -> a sized overload of a componentwise helper, in order of
        # need (tables.sized_overload)
        self.overloads: dict[tuple[str, tuple, int], str | None] = {}
        self.names: dict[str, str] = {}
        # the names the program's author gave (cgc's #var header), shared with every backend;
        # temporaries are named around them
        self.interface_names = interface_names(prog)
        self.taken: set[str] = self.interface_names.taken
        self.inputs: dict[str, I.Group] = {}
        self.outputs: dict[str, I.Group] = {}
        self.input_vars: list[tuple[I.InterfaceVar, str, Binding]] = []
        self.output_vars: list[tuple[I.InterfaceVar, str, Binding]] = []
        self.uniforms: dict[str, int] = {}          # uniform array name -> length (0 = single)
        self.uniform_bindings: dict[str, dict[int | None, str]] = {}
        self.param_arrays: dict[str, str] = {}      # PARAM register -> materialized global
        self.textures: dict[int, _Tex] = {}
        self.buffers: dict[int, int] = {}           # program.buffer index -> vec4 count
        self.diags: list[Diagnostic] = []
        self.tmp = 0
        self.depth: int | None = None           # call depth being emitted (recursive programs)
        self.fn_names: dict[str, str] = {}
        self.params_in_block = False
        self.nverts = input_vertices(prog)
        self.cfg_stack: list = []               # enclosing Labeled constructs (general path)
        self.cfg_vars: set[str] = set()         # xl_br / xl_iter globals used
        self.used_temps: set[str] = set()       # TEMP registers the body reads or writes
        self.vector_names: set[str] = set()     # their GLSL names: four components each
        self.direct_inputs: dict[tuple[str, int | None], str] = {}   # plan_direct_inputs
        self.direct_paths: set[str] = set()
        self.direct_outputs: dict[tuple[str, int | None], str] = {}  # plan_direct_outputs
        self.zeroed_outputs: list[tuple[str, int | None]] = []
        self.cfg_limit = 65536
        # the temporaries policy's decisions and the printer's state for them (expressions.py)
        self.temporaries = Plan()
        self.values: dict[int, tuple] = {}          # id(instruction) -> (expression, ValueForm)
        self.waiting: dict[int, list[str]] = {}     # id(instruction) -> its statements, unprinted
        self.waiting_comments: dict[int, list[str]] = {}
        self.consumed: list = []                    # values the instruction being printed took
        self.needs_temporary = False                # ... and one of them is to be baked
        self.narrowed: dict[int, tuple | None] = {}     # id(instruction) -> narrowed_components
        self.sized_calls: dict[tuple, tuple | None] = {}  # (op, type, size) -> sized_call
        self.splats: dict[str, str] = {}            # vecN(value) -> value (splat_literals)
        self.snippets: dict[tuple[str, str], tuple | None] = {}     # snippet(), once per row
        self.interpolations: dict[Binding, str] | None = None     # interp_of(), once

    # ---- naming --------------------------------------------------------------------------------
    def name_of(self, reg: str) -> str:
        name = self.names.get(reg)
        if name is None:
            base = reg.replace("$", "_S")
            ok = (re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", base) and "__" not in base
                  and base not in GLSL_RESERVED and not base.startswith(("gl_", "xl_", "in_", "out_",
                                                                         "program_", "state_", "sub_",
                                                                         "texture", "buffer", "result_", "vertex_", "fragment_", "primitive_")))
            name = base if ok else "u_" + re.sub(r"[^A-Za-z0-9_]", "_", base)
            while name in self.taken:
                name += "_"
            self.taken.add(name)
            self.names[reg] = name
        return name

    def need(self, helper: str) -> None:
        # a section "name@<profile>" of helpers.glsl replaces "name" in that profile
        variant = f"{helper}@{self.profile}"
        if variant in helper_library():
            helper = variant
        if helper in self.helpers:
            return
        text, needs = helper_library()[helper]
        for n in needs:
            self.need(n)
        for extension in HELPER_EXTENSIONS.get(helper, ()):
            self.require(extension)
        self.helpers.append(helper)

    def helper_section(self, helper: str) -> str:
        """The helpers.glsl text of section ``helper`` in this profile."""
        variant = f"{helper}@{self.profile}"
        return helper_library()[variant if variant in helper_library() else helper][0]

    def sized_overload(self, helper: str, function: str, arguments: tuple[str | None, ...],
                       n: int) -> str | None:
        """:func:`~.tables.sized_overload` of ``function`` from section ``helper``."""
        return sized_overload(self.helper_section(helper), function, arguments, n)

    def need_sized(self, helper: str, function: str, arguments: tuple[str | None, ...],
                   n: int) -> None:
        """Declare ``function`` of section ``helper`` at ``n`` components (after the helpers)."""
        self.need(helper)
        key = (function, arguments, n)
        if key not in self.overloads:
            self.overloads[key] = self.sized_overload(helper, function, arguments, n)

    def snippet(self, key: str, tchar: str):
        """ops.txt row of an opcode: the ``OP@<profile>`` row where the profile has one."""
        try:
            return self.snippets[key, tchar]
        except KeyError:
            table = snippet_table()
            entry = table.get((f"{key}@{self.profile}", tchar)) or table.get((key, tchar))
            if self.prog.kills_as_flags and entry is not None and entry[0] != "-":
                # a verifier probe program (ops.txt "@flagged"), where the profile has the op
                entry = table.get((f"{key}@flagged", tchar)) or entry
            entry = None if entry is not None and entry[0] == "-" else entry   # "-": no form here
            self.snippets[key, tchar] = entry
            return entry

    def select(self, a: str, b: str, mask: str, dtype: DataType) -> str:
        """Per-component ``mask ? b : a`` -- ``mix`` with a boolean vector, an exact select.
        GLSL 3.30 has ``mix`` with booleans for float types only (integer types: GLSL 4.50,
        ES 3.10), so there integers go through the bit select ``xl_sel`` (helpers.glsl)."""
        if dtype != DataType.FLOAT and not self.info.integer_mix:
            self.need("sel")
            return f"xl_sel({a}, {b}, {mask})"
        return f"mix({a}, {b}, {mask})"

    def require(self, extension: str) -> None:
        if extension not in self.extensions:
            self.extensions.append(extension)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def global_qualifier(self) -> str:
        """Qualifier of globals that receive computed values (see :data:`PRECISE_GLOBAL`)."""
        word = self.info.precise
        return PRECISE_GLOBAL.replace("precise", word) + " " if word else ""

    @property
    def precise(self) -> str:
        """The qualifier of values that must not be contracted ('' where the profile lacks it)."""
        return self.info.precise + " " if self.info.precise else ""

    def fresh(self, prefix: str = "t") -> str:
        self.tmp += 1
        return f"xl_{prefix}{self.tmp}"

    # ---- program -------------------------------------------------------------------------------------
    def emit(self) -> GlslOutput:
        """Lower the program (``passes/pipeline.py``: the middle end, validated after each pass
        under tests and XLATE_VALIDATE_PASSES) and print the result."""
        lowered = lower(self.prog, profile=self.profile)
        self.depth = lowered.depth
        self.types = lowered.types
        self.cc_used = lowered.cc_used
        self.cc_values = lowered.cc_values
        if lowered.loop_limit is not None:
            self.cfg_limit = lowered.loop_limit
        self.liveness = lowered.liveness
        try:
            self.check_memory_profile()
            self.plan()
            return self.render(lowered.structured)
        except Unsupported as e:
            raise XlateError([Diagnostic("E7001", "error", f"{e} cannot be expressed in the "
                                         f"{self.profile} profile", e.span)])

    def render(self, st: Structured) -> GlslOutput:
        prog = self.prog
        self.plan_direct_outputs(st)
        self.temporaries = plan_temporaries(self, st)
        functions, prototypes = [], []
        depths = [None] if self.depth is None else range(MAX_CALL_DEPTH, 0, -1)
        called = None if self.depth is None else called_copies(st)
        for depth in depths:
            for fname in st.order:
                if called is not None and (fname, depth) not in called:
                    continue                # no call reaches this copy
                fn = st.functions[fname]
                self.depth = depth
                body = self.emit_body(fn.body, 1, False)
                name = self.call_name(fname, depth)
                prototypes.append(f"void {name}();")
                functions.append(f"void {name}()\n{{\n" + "\n".join(body) + ("\n" if body else "") + "}")
        self.depth = None if self.depth is None else 0
        main_body = self.emit_body(st.main.body, 1, True)
        functions.append("void xl_main()\n{\n" + "\n".join(main_body) + ("\n" if main_body else "") + "}")
        # a register whose every value was inlined is not named in any function: not declared
        held = {form.reg for form in self.temporaries.forms.values()} & self.used_temps
        if held:
            # the words of the functions' text, once (a name is a whole word of it or absent)
            words = set(_WORD.findall("\n".join(functions)))
            self.used_temps -= {r for r in held if self.name_of(r) not in words}
        globals_, prologue, epilogue = self.declare_globals()
        interface = self.declare_interface()
        uniforms = self.declare_uniforms()
        layout_lines = self.geometry_layout() + self.compute_layout()
        globals_ = self.declare_memory() + globals_
        if self.stage == Stage.GEOMETRY:
            store = [self.output_store(var, assign, b) for var, assign, b in self.output_vars]
            functions.insert(0, "void xl_emit()\n{\n" + "".join(f"    {s}\n" for s in store)
                             + "    EmitVertex();\n}")
            prototypes.append("void xl_emit();")
        else:
            if "demoted" in self.helpers:
                epilogue.append("if (xl_demoted) discard;")   # DEMOTE: outputs dropped
            epilogue += [self.output_store(var, assign, b) for var, assign, b in self.output_vars
                         if (b.path, b.index) not in self.direct_outputs]
        helpers = [helper_library()[h][0] for h in self.helpers]
        if self.info.precise:
            helpers = [precise_helper(h, self.info.precise) for h in helpers]
        # (a sized overload only calls its four-component helper: nothing to make precise)
        sized = [o for o in self.overloads.values() if o]
        if sized:
            helpers.append("\n".join(sized) + "\n")
        helpers += self.memory_functions()
        header = "\n".join([f"#version {self.info.version}"]
                           + [f"#extension {e} : require" for e in self.extensions])
        preamble = []
        if self.info.precise == ES_PRECISE:
            header += "\n" + ES_PRECISE_HEADER
            self.notes.insert(0, "xl_precise is 'precise' with GL_EXT_gpu_shader5 or "
                                 "GL_OES_gpu_shader5; without either, the implementation may "
                                 "contract a * b + c into a fused multiply-add (README, Profiles).")
        elif not self.info.precise:
            self.notes.insert(0, f"No 'precise' in {self.info.language}: the implementation may "
                                 "contract a * b + c into a fused multiply-add (README, Profiles).")
        preamble += [f"// {n}" for n in self.notes]
        if self.info.es:
            # highp everywhere: the assembly computes in 32-bit floats and integers
            preamble += ["precision highp float;", "precision highp int;"]
        source_name = prog.source_name.replace("\n", " ").replace("\x00", " ")
        text = _jinja_env().get_template("program.j2").render(
            header=header, version=__version__, source_name=source_name, preamble=preamble,
            dialect=prog.dialect, stage=prog.stage.value, layout_lines=layout_lines,
            interface=interface, uniforms=uniforms, globals=globals_, helpers=helpers,
            prototypes=prototypes, functions=functions, prologue=prologue, epilogue=epilogue)
        text = re.sub(r"\n{3,}", "\n\n", text)
        text, line_map = self.finish_lines(text)
        from ..reflect import reflection
        return GlslOutput(text, reflection(self), prog.stage, line_map)

    def finish_lines(self, text: str) -> tuple[str, list[int]]:
        """Remove the line tags (:data:`_TAG`) and give the line map; with ``line_directives``,
        add ``#line`` so that every statement that came from an instruction is numbered as that
        instruction's source line in source string 1, and every other statement as its own
        line of the GLSL text in source string 0 (what compilers print with no directives).
        Comments, blank lines and lone braces (:data:`_FILLER`) take whatever number comes: no
        compiler message can be about them."""
        lines, tags = [], []
        for raw in text.split("\n"):
            if "\x00" in raw:          # most lines carry no tag: skip the regexes for them
                start = raw.find("\x00")
                number = raw[start + 1:-1].rstrip("c")
                if raw.endswith("\x00") and number.isdigit():
                    lines.append(raw[:start])        # the usual case: one tag, at the end
                    tags.append(int(number))
                    continue
                m = _TAG.search(raw)
                lines.append(_TAG.sub("", raw))
                tags.append(int(m.group(1)) if m else 0)
            else:
                lines.append(raw)
                tags.append(0)
        if not self.line_directives:
            return "\n".join(lines), tags
        filler = [line.strip() in _FILLER or line.lstrip().startswith("//") for line in lines]
        out: list[str] = []
        out_map: list[int] = []
        state: tuple[int, int] | None = None       # (string, line) the next line gets as is
        for i, line in enumerate(lines):
            if state is not None and not filler[i]:
                want = (1, tags[i]) if tags[i] else (0, len(out) + 1)
                if want != state:
                    if want[0] == 0:
                        want = (0, want[1] + 1)    # the directive itself takes a line
                    out.append(f"#line {want[1]} {want[0]}")
                    out_map.append(0)
                    state = want
            out.append(line)
            out_map.append(tags[i])
            state = (0, 2) if state is None else (state[0], state[1] + 1)
        return "\n".join(out), out_map


def emit_glsl(prog: Program, profile: str = "glsl450", *, line_directives: bool = False,
              comments: bool = False, instruction_text=None) -> GlslOutput:
    """GLSL of a program in ``profile``.  ``line_directives``: ``#line`` so that compiler
    messages name the assembly source line (:meth:`GlslEmitter.finish_lines`); ``comments``: each
    instruction's text (``instruction_text(ins)``, else the IR form) in a comment before its GLSL.
    With both off the text is the same as without them, byte for byte.

    The cyclic garbage collector is paused meanwhile (xlate/gcpause.py), for every caller:
    with it on, the structurizer's and emitter's many small objects made emission of a
    program 8x longer take ~10x the time (tools/bench_scaling.py, nv4-calls)."""
    from ...gcpause import paused
    with paused():
        return GlslEmitter(prog, profile, line_directives=line_directives, comments=comments,
                           instruction_text=instruction_text).emit()
