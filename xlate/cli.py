"""Command line: ``xlate convert``, ``xlate explain``.

Exit codes (stable):
  0  success (warnings may have been printed)
  1  the input has errors (diagnostics printed to stderr)
  2  usage error (bad arguments, unreadable input, unwritable output)
  3  the toolchain (glslang / SPIRV-Tools) is unavailable

Imports are lazy: ``xlate --help`` and ``xlate explain`` never load the parser, numpy or
glslang.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

EXIT_OK, EXIT_ERRORS, EXIT_USAGE, EXIT_TOOLCHAIN = 0, 1, 2, 3


def atomic_write(path: str, data: bytes) -> None:
    """Write via a temporary file in the same folder and rename: never a partial file."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".xlate-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _read_input(path: str) -> tuple[str, str]:
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        with open(path, "rb") as f:
            data = f.read()
        name = path
    try:
        return data.decode("utf-8"), name
    except UnicodeDecodeError:
        return data.decode("latin-1"), name


def _print_diagnostics(diags, source) -> None:
    from .diagnostics import use_color
    color = use_color(sys.stderr)
    for d in diags:
        print(d.render(source, color), file=sys.stderr)


def cmd_convert(args) -> int:
    from .diagnostics import XlateError
    try:
        text, name = _read_input(args.file)
    except OSError as e:
        print(f"xlate: error[E8001]: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return EXIT_USAGE
    from . import api
    target = args.target
    try:
        if target == "ir":
            from .ir.printer import print_program
            prog = api.parse(text, filename=name)
            _print_diagnostics(prog.diagnostics, text)
            payload = print_program(prog).encode()
        else:
            result = api.translate(text, filename=name, target=target, profile=args.profile,
                                   validate=not args.no_validate)
            _print_diagnostics(result.diagnostics, text)
            if target == "glsl":
                payload = result.glsl.encode()
            elif target == "reflect":
                payload = (json.dumps(result.reflection, indent=2, sort_keys=False) + "\n").encode()
            elif target == "spirv":
                payload = result.spirv
            else:
                from .backends.spirv import disassemble_spirv
                payload = disassemble_spirv(result.spirv).encode()
    except XlateError as e:
        # internal-error diagnostics (E7xxx) point into generated GLSL, not the input
        internal = any(d.code.startswith("E7") for d in e.diagnostics)
        _print_diagnostics(e.diagnostics, None if internal else text)
        if any(d.code == "E7004" for d in e.diagnostics):
            return EXIT_TOOLCHAIN
        return EXIT_ERRORS
    out = args.output
    if out in (None, "-"):
        if target == "spirv" and sys.stdout.isatty():
            print("xlate: error: refusing to write binary SPIR-V to a terminal; use -o FILE",
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
    return EXIT_OK


def cmd_explain(args) -> int:
    from .diagnostics import CODES
    code = args.code.upper()
    if code not in CODES:
        print(f"xlate: unknown diagnostic code '{args.code}' (codes: E1001-E8002; "
              "'xlate explain --list' lists them)", file=sys.stderr)
        return EXIT_USAGE
    title, text = CODES[code]
    print(f"{code}: {title}\n\n{text}")
    return EXIT_OK


def cmd_list_codes() -> int:
    from .diagnostics import CODES
    for code, (title, _) in CODES.items():
        print(f"{code}  {title}")
    return EXIT_OK


def _run_arguments(p) -> None:
    p.add_argument("file", metavar="FILE", help="program to run")
    p.add_argument("--inputs", metavar="FILE", help="inputs: .json or .npz, keyed by attribute "
                   "binding (vertex.attrib[0]) or variable name")
    p.add_argument("--params", metavar="FILE", help="program parameters (.json/.npz), keyed by "
                   "binding (program.local[0], state.matrix.mvp.row[0]) or PARAM name")
    p.add_argument("--textures", metavar="FILE", help="textures (.npz or .json), see the docs")
    p.add_argument("--lanes", type=int, default=None, help="number of invocations")
    p.add_argument("-o", "--output", metavar="OUT", help="write outputs (.npz or .json) instead of printing")


def _verify_arguments(p) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="programs to verify")
    p.add_argument("--lanes", type=int, default=4096, help="invocations per program")
    p.add_argument("--seed", type=int, default=1, help="seed of the generated inputs")
    p.add_argument("--backend", choices=["gl", "gl-spirv", "vulkan"], default="gl")
    p.add_argument("--json", metavar="REPORT", help="write a JSON report")


# subcommands implemented beside their subsystem (module.main(args) -> exit code); the module
# is imported only when its command runs, so start-up never pays for numpy or moderngl
_DELEGATED = (
    ("run", "xlate.exec.cli", "run the original program in the software executor", _run_arguments),
    ("verify", "xlate.verify.cli", "cross-check translations on a real GL/Vulkan implementation",
     _verify_arguments),
)


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    p = argparse.ArgumentParser(prog="xlate", description="Translate legacy GPU assembly shaders "
                                "(NVIDIA/ARB assembly, TGSI) to GLSL and SPIR-V.")
    p.add_argument("--version", action="version", version=f"xlate {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    c = sub.add_parser("convert", help="translate one program",
                       description="Translate one program to GLSL, SPIR-V, reflection JSON or IR text.")
    c.add_argument("file", metavar="FILE", help="input program, or - for standard input")
    c.add_argument("-o", "--output", metavar="OUT", help="output file (default: standard output)")
    c.add_argument("--target", default="glsl", choices=["glsl", "spirv", "spirv-asm", "reflect", "ir"])
    c.add_argument("--profile", choices=["glsl450", "vulkan"], default=None,
                   help="GLSL profile (default glsl450; vulkan for SPIR-V targets)")
    c.add_argument("--no-validate", action="store_true",
                   help="do not compile the generated GLSL with glslang")
    # subcommands implemented beside their subsystem; each module has add_arguments(p) and
    # main(args) -> exit code, and is imported only when its command runs
    for name, module, help_text, add_arguments in _DELEGATED:
        sp = sub.add_parser(name, help=help_text, description=help_text)
        sp.set_defaults(_module=module)
        add_arguments(sp)
    e = sub.add_parser("explain", help="explain a diagnostic code")
    e.add_argument("code", nargs="?", help="for example E2003")
    e.add_argument("--list", action="store_true", help="list every code")
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code not in (0, None) else EXIT_OK
    if args.command == "convert":
        return cmd_convert(args)
    if getattr(args, "_module", None):
        import importlib
        try:
            mod = importlib.import_module(args._module)
        except ImportError as e:
            print(f"xlate: error: '{args.command}' is unavailable: {e}", file=sys.stderr)
            return EXIT_USAGE
        return mod.main(args)
    if args.command == "explain":
        if args.list or not args.code:
            return cmd_list_codes()
        return cmd_explain(args)
    parser.print_help()
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
