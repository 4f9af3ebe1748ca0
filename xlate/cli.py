"""Command line: ``xlate convert|batch|check|sync|run|verify|explain`` (docs/cli.md).

Exit codes (stable, every command):
  0  success (warnings may have been printed)
  1  an input has errors (diagnostics printed to stderr)
  2  usage error (bad arguments, unreadable input, unwritable output)
  3  the toolchain (glslang / SPIRV-Tools) is unavailable

Imports are lazy: ``xlate --help`` and ``xlate explain`` never load the parser, numpy or
glslang; ``xlate check`` loads the parser and templates, and glslang only when it validates.
"""
from __future__ import annotations

import argparse
import os
import sys

# exit codes, profiles, output targets and the profile check: xlate/usage.py (shared with the
# commands' engines, which must not import the command line)
from .usage import (EXIT_ERRORS, EXIT_OK, EXIT_TOOLCHAIN, EXIT_USAGE,  # noqa: F401
                    GLSL_ONLY_PROFILES, OUTPUT_TARGETS, PROFILES, spirv_profile_error)
# file reading and atomic writes live in xlate/fsio.py; these names stay importable from here
from .fsio import (TMP_PREFIX, atomic_write, decode_source,  # noqa: E402,F401
                   remove_stale_temporaries)


#: convert targets that write TGSI itself (TGSI input only), and what each writes
TGSI_TARGETS = {"tgsi": "tgsi_dump text", "tgsi-tokens": "token stream in Mesa's layout",
                "tgsi-seed-tokens": "seed-layout token stream"}


def _read_input(path: str) -> tuple[str | bytes, str]:
    from .fsio import read_program
    return read_program(path)


def _print_diagnostics(diags, source) -> None:
    from .diagnostics import use_color
    color = use_color(sys.stderr)
    if isinstance(source, (bytes, bytearray)):
        source = None                # a binary token stream has no lines to show
    for d in diags:
        print(d.render(source, color), file=sys.stderr)


#: output file extensions -> the --target they mean (``-o water.frag.spv`` is SPIR-V)
TARGET_OF_EXTENSION = {".spv": "spirv", ".spvasm": "spirv-asm", ".reflect.json": "reflect",
                       ".ir": "ir", ".tgsi": "tgsi",
                       **{f".{e}": "glsl" for e in ("glsl", "vert", "frag", "geom", "comp",
                                                     "tesc", "tese")}}


def target_of_output(path: str | None) -> str | None:
    """The target an output name's extension means (:data:`TARGET_OF_EXTENSION`), or None."""
    if path in (None, "-"):
        return None
    name = os.path.basename(path).lower()
    for ext in sorted(TARGET_OF_EXTENSION, key=len, reverse=True):    # .reflect.json first
        if name.endswith(ext) and len(name) > len(ext):
            return TARGET_OF_EXTENSION[ext]
    return None


def _convert_target(args) -> tuple[str | None, str | None]:
    """(target, usage problem): ``--target`` when given -- refused when ``-o``'s extension
    means another (a .spv holding GLSL text is never what was asked); else the extension's
    target; else glsl."""
    implied = target_of_output(args.output)
    if args.target is None:
        return implied or "glsl", None
    if implied is not None and implied != args.target:
        return None, (f"xlate: error: -o {args.output} names a {implied} output but --target is "
                      f"{args.target}; drop --target (the extension picks {implied}) or name the "
                      f"output for {args.target}")
    return args.target, None


def cmd_convert(args) -> int:
    from .diagnostics import XlateError
    from .fsio import SourceTooLarge, output_folder_problem
    if len(args.file) > 1:
        print(f"xlate: error: convert translates one program ({len(args.file)} given); "
              f"translate several with 'xlate batch {' '.join(args.file)} -o OUTDIR'",
              file=sys.stderr)
        return EXIT_USAGE
    args.file = args.file[0]
    args.target, problem = _convert_target(args)
    if problem is None:
        problem = spirv_profile_error(args.profile, [args.target])
    if problem is None and args.depfile and (args.output in (None, "-") or args.file == "-"):
        problem = ("xlate: error: --depfile needs an input file and an output file "
                   "(-o FILE): a make rule names both")
    if problem is None:
        # an unwritable destination is found before the work, not after it
        for path in (args.output, args.depfile):
            why = output_folder_problem(path) if path not in (None, "-") else None
            if why:
                problem = f"xlate: error[E8002]: cannot write {path}: {why}"
                break
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        text, name = _read_input(args.file)
    except OSError as e:
        print(f"xlate: error[E8001]: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    except SourceTooLarge as e:
        _print_diagnostics([e.diagnostic], None)
        return EXIT_ERRORS
    from . import api
    target = args.target
    try:
        if target == "ir":
            from .ir.printer import print_program
            prog = api.parse(text, filename=name)
            _print_diagnostics(prog.diagnostics, text)
            payload = print_program(prog).encode()
        elif target in TGSI_TARGETS:
            # TGSI in (text or binary tokens), TGSI out: tgsi_dump-style text (a disassembler
            # for token streams, a normaliser for text) or a token stream in Mesa's layout or
            # the seed layout (an assembler); frontends/tgsi/printer.py and binary.py
            prog = api.parse(text, filename=name)       # checks the program translates
            _print_diagnostics(prog.diagnostics, text)
            from .frontends import parse_tgsi_shader
            from .frontends.tgsi.binary import encode_modern, encode_seed
            from .frontends.tgsi.printer import print_shader
            form = TGSI_TARGETS[target]
            try:
                shader = parse_tgsi_shader(text, name)
                payload = print_shader(shader).encode() if target == "tgsi" else \
                    encode_modern(shader) if target == "tgsi-tokens" else encode_seed(shader)
            except ValueError as e:
                # what the chosen form cannot spell (an empty write mask in text, properties in
                # the seed layout, NV condition codes outside it ...)
                from .diagnostics import Diagnostic, Span
                raise XlateError([Diagnostic("E7001", "error", f"{e}; no {form} for this "
                                             "program", Span(name, 1, 1))]) from None
        else:
            spirv = target in ("spirv", "spirv-asm")
            result = api.translate(text, filename=name, target=target, profile=args.profile,
                                   validate=not args.no_validate,
                                   line_directives=args.line_directives, comments=args.comments,
                                   via=args.via if spirv else "glsl",
                                   spirv_source=args.spirv_source and spirv)
            _print_diagnostics(result.diagnostics, text)
            if target == "glsl":
                payload = result.glsl.encode()
            elif target == "reflect":
                from .batch.outputs import reflection_json
                payload = reflection_json(result.reflection)
            elif target == "spirv":
                payload = result.spirv
            else:
                from .backends.spirv import disassemble_spirv
                payload = disassemble_spirv(result.spirv).encode()
    except XlateError as e:
        # internal-error diagnostics point into generated GLSL, not the input
        from .diagnostics import INTERNAL_CODES
        internal = any(d.code in INTERNAL_CODES for d in e.diagnostics)
        _print_diagnostics(e.diagnostics, None if internal else text)
        if any(d.code == "E7004" for d in e.diagnostics):
            return EXIT_TOOLCHAIN
        return EXIT_ERRORS
    out = args.output
    if out in (None, "-"):
        if target in ("spirv", "tgsi-tokens", "tgsi-seed-tokens") and sys.stdout.isatty():
            what = "SPIR-V" if target == "spirv" else "TGSI tokens"
            print(f"xlate: error: refusing to write binary {what} to a terminal; use -o FILE",
                  file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.buffer.write(payload)
        sys.stdout.flush()
    else:
        try:
            atomic_write(out, payload)
        except OSError as e:
            print(f"xlate: error[E8002]: cannot write {out}: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
    if args.depfile:
        from .depfile import write_depfile
        problem = write_depfile(args.depfile, [out], [args.file])
        if problem:
            print(f"xlate: error[E8002]: {problem}", file=sys.stderr)
            return EXIT_USAGE
    return EXIT_OK


def cmd_explain(args) -> int:
    from .diagnostics import CODES
    code = args.code.upper()
    if code not in CODES:
        print(f"xlate: unknown diagnostic code '{args.code}' (codes: {min(CODES)}-{max(CODES)}; "
              "'xlate explain --list' lists them)", file=sys.stderr)
        return EXIT_USAGE
    title, text = CODES[code]
    print(f"{code}: {title}\n\n{text}")
    return EXIT_OK


def cmd_list_codes() -> int:
    from .diagnostics import CODES
    for code, (title, _) in sorted(CODES.items()):
        print(f"{code}  {title}")
    return EXIT_OK


def _run_arguments(p) -> None:
    p.add_argument("file", metavar="FILE", help="program to run, or - for standard input")
    p.add_argument("--inputs", metavar="FILE|random", help="inputs: .json or .npz, keyed by "
                   "attribute binding (vertex.attrib[0]) or variable name; 'random': drawn "
                   "from --seed, with the parameters and textures not given")
    p.add_argument("--params", metavar="FILE|random", help="program parameters (.json/.npz), "
                   "keyed by binding (program.local[0], state.matrix.mvp.row[0]) or PARAM name")
    p.add_argument("--textures", metavar="FILE|random", help="textures (.npz or .json), see "
                   "docs/cli.md")
    p.add_argument("--seed", type=int, default=1, help="seed of the values 'random' and "
                   "--template draw (default 1)")
    p.add_argument("--template", metavar="PREFIX", help="write PREFIX.inputs.json (and "
                   "PREFIX.params.json, PREFIX.textures.json when the program has them) with "
                   "every key the program needs, filled from --seed, then stop")
    p.add_argument("--lanes", type=int, default=None, help="number of invocations (default: "
                   "from the inputs; 4 with 'random' or --template)")
    p.add_argument("-o", "--output", metavar="OUT", help="write outputs (.npz or .json) instead of printing")


def _verify_arguments(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="programs to verify")
    p.add_argument("--lanes", type=int, default=4096, help="invocations per program")
    p.add_argument("--seed", type=int, default=1, help="seed of the generated inputs")
    p.add_argument("--backend", choices=["gl", "gl-spirv", "vulkan", "native"], default="gl",
                   help="gl: the GLSL on OpenGL (default); gl-spirv: glslang's SPIR-V through "
                        "GL_ARB_gl_spirv; vulkan: the vulkan-profile SPIR-V on Vulkan (lavapipe); "
                        "native: the original assembly program on the driver's own "
                        "ARB/NV program interface (compatibility profile)")
    p.add_argument("--profile", choices=["glsl450", "glsl330", "es310"], default=None,
                   help="the GLSL profile to translate into and run (backend gl; default "
                        "glsl450): glsl330 and es310 run on the same OpenGL harness with their "
                        "interface made explicit (docs/cli.md)")
    p.add_argument("--via", choices=["auto", "direct", "glsl"], default="auto",
                   help="backends gl-spirv and vulkan: which SPIR-V runs -- auto (default: "
                   "xlate's own SPIR-V where the direct path covers the program, else glslang's "
                   "compile of the GLSL), direct (only xlate's own), glsl (glslang's)")
    p.add_argument("--json", metavar="REPORT", help="write a JSON report")
    p.add_argument("--report", metavar="FILE.html", help="write an HTML report: the outputs' "
                   "images (fragment) or lane plots (vertex, geometry), the localized "
                   "instructions and the evidence of every verdict")
    p.add_argument("--in-process", action="store_true",
                   help="verify in this process, not in a child process: starts faster, but a "
                        "crash of the implementation (a driver's abort) ends xlate instead of "
                        "giving that program an ERROR report")
    _cluster_argument(p)


def _targets(text: str) -> tuple[str, ...]:
    """``--targets glsl,spirv,reflect``: a comma list, in the canonical order, no repeats."""
    wanted = {t.strip() for t in text.split(",") if t.strip()}
    unknown = sorted(wanted - set(OUTPUT_TARGETS))
    if unknown or not wanted:
        raise argparse.ArgumentTypeError(
            f"invalid targets {text!r} (a comma list of {', '.join(OUTPUT_TARGETS)})")
    return tuple(t for t in OUTPUT_TARGETS if t in wanted)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _profile_argument(p, help_text: str) -> None:
    p.add_argument("--profile", choices=PROFILES, default=None, help=help_text)


def _glsl_option_arguments(p) -> None:
    """--line-directives and --comments: options of the GLSL text (off: the same bytes)."""
    p.add_argument("--line-directives", action="store_true",
                   help="#line directives: compiler messages name the assembly source line "
                   "(source string 1; 0 is the GLSL text itself)")
    p.add_argument("--comments", action="store_true",
                   help="each instruction's source text in a comment before its GLSL")


def _depfile_argument(p) -> None:
    p.add_argument("--depfile", metavar="FILE",
                   help="write a make rule 'outputs: inputs' to FILE (for make/ninja)")


def _cluster_address(text: str) -> str:
    """``--cluster``: local, local:N (N >= 1), or a scheduler address (checked on connection)."""
    n = text[len("local:"):] if text.startswith("local:") else "1"
    if not text.strip() or not n.isdigit() or int(n) < 1:
        raise argparse.ArgumentTypeError(f"invalid cluster address {text!r} (local, local:N or "
                                         "tcp://HOST:PORT of a Dask scheduler)")
    return text


def _cluster_argument(p) -> None:
    p.add_argument("--cluster", metavar="ADDRESS", type=_cluster_address,
                   help="run the work on a Dask cluster instead of local processes: "
                   "tcp://HOST:PORT of a scheduler, or local[:N] to start N local workers "
                   "(needs pip install 'xlate[cluster]'; docs/cluster.md)")


def _batch_arguments(p) -> None:
    p.add_argument("sources", nargs="+", metavar="SRC", help="program files and folders (walked)")
    p.add_argument("-o", "--output", metavar="OUTDIR", required=True,
                   help="output folder; the source tree is mirrored under it")
    p.add_argument("-j", "--jobs", type=_positive, default=None, metavar="N",
                   help="worker processes (default: the number of CPUs)")
    _cluster_argument(p)
    p.add_argument("--targets", type=_targets, default=None, metavar="LIST",
                   help="comma list of glsl, spirv, reflect (default: all three; glsl,reflect "
                   "with --profile glsl330 or es310)")
    _profile_argument(p, "profile of every output (default: glsl450 for GLSL and reflection, "
                      "vulkan for SPIR-V)")
    _glsl_option_arguments(p)
    _depfile_argument(p)
    p.add_argument("--report", metavar="FILE", help="write a report: FILE.html or FILE.json")
    p.add_argument("--no-validate", action="store_true",
                   help="do not compile GLSL outputs with glslang (SPIR-V is always validated)")
    p.add_argument("--no-cache", action="store_true", help="translate every input again")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the summary, not each file's diagnostics")


def _check_arguments(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="programs to check")
    _profile_argument(p, "GLSL profile to translate to (default glsl450)")
    p.add_argument("--targets", type=_targets, default=("glsl",), metavar="LIST",
                   help="comma list of glsl, spirv, reflect (default: glsl); spirv checks the "
                   "direct SPIR-V with spirv-val only (vulkan, or glsl450 = OpenGL SPIR-V)")
    p.add_argument("--no-validate", action="store_true",
                   help="parse and translate only; do not compile the GLSL with glslang")


def _sync_arguments(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="programs whose outputs to regenerate")
    p.add_argument("--targets", type=_targets, default=("glsl",), metavar="LIST",
                   help="comma list of glsl, spirv, reflect (default: glsl)")
    _profile_argument(p, "profile of every output (default: glsl450 for GLSL and reflection, "
                      "vulkan for SPIR-V)")
    _glsl_option_arguments(p)
    p.add_argument("--check", action="store_true",
                   help="only report stale or missing outputs; write nothing")


# subcommands implemented in their own module ("module:function", called with the parsed
# arguments, returning the exit code); the module is imported only when its command runs, so
# start-up never pays for numpy, moderngl or a process pool
_DELEGATED = (
    ("batch", "xlate.batch.runner:main", "translate whole trees of programs in parallel",
     _batch_arguments),
    ("check", "xlate.check:check_main", "check that programs parse, translate and validate "
     "(pre-commit hook xlate-check)", _check_arguments),
    ("sync", "xlate.check:sync_main", "regenerate the outputs committed next to programs "
     "(pre-commit hook xlate-sync)", _sync_arguments),
    ("run", "xlate.exec.cli:main", "run the original program in the software executor",
     _run_arguments),
    ("verify", "xlate.verify.cli:main", "cross-check translations on a real GL/Vulkan "
     "implementation", _verify_arguments),
)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    p = argparse.ArgumentParser(prog="xlate", description="Translate legacy GPU assembly shaders "
                                "(NVIDIA/ARB assembly, TGSI) to GLSL and SPIR-V.")
    p.add_argument("--version", action="version", version=f"xlate {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    c = sub.add_parser("convert", help="translate one program",
                       description="Translate one program to GLSL, SPIR-V, reflection JSON or IR text.")
    # nargs="+": two files get the hint to use batch, not argparse's "unrecognized arguments"
    c.add_argument("file", metavar="FILE", nargs="+", help="input program, or - for standard input")
    c.add_argument("-o", "--output", metavar="OUT", help="output file (default: standard output); "
                   "its folder must exist")
    c.add_argument("--target", default=None,
                   choices=["glsl", "spirv", "spirv-asm", "reflect", "ir", *TGSI_TARGETS],
                   help="default: from -o's extension (.spv spirv, .spvasm spirv-asm, "
                   ".reflect.json reflect, .ir ir, .tgsi tgsi, .frag/.vert/.geom/.glsl ... glsl), "
                   "else glsl; tgsi: TGSI input printed as tgsi_dump text (disassembles token "
                   "streams); tgsi-tokens / tgsi-seed-tokens: TGSI input written as a binary "
                   "token stream in Mesa's layout / the seed (VERSION 1.1) layout")
    c.add_argument("--profile", choices=PROFILES, default=None,
                   help="GLSL profile (default glsl450; vulkan for SPIR-V targets; glsl330 and "
                   "es310 give GLSL only)")
    c.add_argument("--no-validate", action="store_true",
                   help="do not compile the generated GLSL with glslang")
    c.add_argument("--via", choices=["auto", "direct", "glsl"], default="auto",
                   help="how SPIR-V targets are made: auto (default: xlate's own SPIR-V, and "
                   "glslang's compile of the GLSL for a program it does not cover, with note "
                   "E7006), direct (only xlate's own: E7006 is an error), glsl (glslang's)")
    c.add_argument("--spirv-source", action="store_true",
                   help="direct SPIR-V: embed the assembly text (OpSource) and an OpLine per "
                   "instruction, for SPIR-V debuggers and RenderDoc")
    _glsl_option_arguments(c)
    _depfile_argument(c)
    for name, target, help_text, add_arguments in _DELEGATED:
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_delegate=target)
        add_arguments(sp)
    e = sub.add_parser("explain", help="explain a diagnostic code")
    e.add_argument("code", nargs="?", help="for example E2003")
    e.add_argument("--list", action="store_true", help="list every code")
    return p


def main(argv: list[str] | None = None) -> int:
    """The command line (``argv`` without the program name; default ``sys.argv[1:]``); returns
    the exit code."""
    return _run(argv)[0]


def _run(argv: list[str] | None) -> tuple[int, str | None]:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return (EXIT_USAGE if e.code not in (0, None) else EXIT_OK), None
    return _dispatch(parser, args), args.command


#: packages outside the base install that a command may need -> what to install
_OPTIONAL_MODULES = {"numpy": "numpy", "moderngl": "moderngl", "vulkan": "vulkan"}


def _dispatch(parser: argparse.ArgumentParser, args) -> int:
    if args.command == "convert":
        return cmd_convert(args)
    if getattr(args, "_delegate", None):
        import importlib
        module, function = args._delegate.split(":")
        try:
            mod = importlib.import_module(module)
            return getattr(mod, function)(args)
        except ModuleNotFoundError as e:
            # the executor and the verifier need numpy (and their imports are lazy): one line
            # with the install hint, exit 3 (unavailable), never a traceback
            if e.name not in _OPTIONAL_MODULES:
                raise
            print(f"xlate: error: '{args.command}' needs the Python package '{e.name}' "
                  f"(python3 -m pip install {_OPTIONAL_MODULES[e.name]})", file=sys.stderr)
            return 3
    if args.command == "explain":
        if args.list or not args.code:
            return cmd_list_codes()
        return cmd_explain(args)
    parser.print_help()
    return EXIT_USAGE


#: Commands that leave nothing to the interpreter's shutdown -- no open output files, no worker
#: processes, no threads still running -- so the console script ends them with ``os._exit`` once
#: standard output and error are flushed.  Shutdown otherwise frees glslang's built-in symbol
#: tables and the module graph: about 13 ms of the ~110 ms a one-file ``xlate check`` takes, the
#: pre-commit hook whose start-up issue 7 bounds.  In-process callers of :func:`main` (tests, an
#: engine's build script) never take this path.
QUICK_EXIT_COMMANDS = frozenset({"check", "sync"})


def console_main() -> None:
    """:func:`main` on ``sys.argv``, then the exit: the body of the ``xlate`` console script
    (:mod:`xlate.console`, which may start ``check``'s glslang warm-up first)."""
    try:
        code, command = _run(None)
        sys.stdout.flush()
    except KeyboardInterrupt:
        # Ctrl-C: a one-line message and the shell's code for it, not a traceback (what a
        # command had written stays written; batch reports its own interruption the same way)
        print("xlate: interrupted", file=sys.stderr)
        sys.stdout.flush()
        os._exit(130)
    except BrokenPipeError:
        # the reader went away (xlate explain --list | head -1): what it wanted it has; the
        # rest of the output goes nowhere instead of into a traceback at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os._exit(141)                 # 128 + SIGPIPE, what a shell reports for such a writer
    if command in QUICK_EXIT_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):     # a closed pipe: let the normal exit report it
            pass
        else:
            os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    console_main()
