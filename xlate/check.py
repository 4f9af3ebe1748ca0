"""``xlate check FILE...`` and ``xlate sync FILE...``: the pre-commit hooks.

``check``: every file must parse, translate and (unless ``--no-validate``) compile with
glslang.  Diagnostics as ``xlate convert`` prints them; nothing is printed for a clean file.

``sync``: regenerate the outputs committed next to each program (``water.fp`` ->
``water.frag``, names as ``xlate batch`` gives them, :mod:`xlate.batch.outputs`) and fail when
one was missing or different, so that a commit never carries stale generated shaders.
``--check`` reports without writing (for CI).

Exit codes: 0 all good; 1 a file has errors, or (sync) an output was missing or stale;
2 usage (bad arguments, an unreadable file, an unwritable output); 3 glslang unavailable.

Start-up is kept small (docs/batch.md): this module imports only the parser and the GLSL
backend, glslang when it validates, and never numpy or moderngl.
"""
from __future__ import annotations

import os
import sys

from .cli import EXIT_ERRORS, EXIT_OK, EXIT_TOOLCHAIN, EXIT_USAGE, decode_source


def _read(path: str, err) -> str | None:
    try:
        with open(path, "rb") as f:
            return decode_source(f.read())
    except OSError as e:
        print(f"xlate: error[E8001]: cannot read {path}: {e.strerror}", file=err)
        return None


def _report(diags, text: str, err) -> None:
    from .diagnostics import INTERNAL_CODES, use_color
    color = use_color(err)
    for d in diags:
        # internal errors point into generated GLSL, not the input
        print(d.render(None if d.code in INTERNAL_CODES else text, color), file=err)


def _worst(codes: set[str], failed: bool, unreadable: bool) -> int:
    if unreadable:
        return EXIT_USAGE
    if "E7004" in codes:
        return EXIT_TOOLCHAIN
    return EXIT_ERRORS if failed else EXIT_OK


def _warm_target(profile: str | None, no_validate: bool, has_files: bool) -> str | None:
    """The client API whose glslang tables ``check`` will need; None when nothing will be
    compiled as SPIR-V (--no-validate, glsl330/es310, no file)."""
    target = {None: "opengl", "glsl450": "opengl", "vulkan": "vulkan"}.get(profile)
    return None if no_validate or not has_files else target


def _start_warm_up(target: str):
    """glslang's first compile in a process builds its built-in tables (~60 ms of C for
    #version 450, which declares the ray-tracing and mesh stages too; 26 ms for 440); a
    background thread does it while this one reads, parses and emits (ctypes releases the
    GIL), so start-up pays for the larger of the two, not the sum."""
    import threading
    from .backends import spirv
    thread = threading.Thread(target=spirv.warm_up, args=(target,), name="xlate-glslang-warm-up",
                              daemon=True)
    thread.start()
    return thread


#: (target, thread) of a warm-up the console script started before parsing the arguments
_early: tuple[str, object] | None = None


def start_early(argv: list[str]) -> None:
    """Called by the console script for ``xlate check ARGS`` before argparse is even built:
    a rough scan of ``argv`` guesses the warm-up :func:`check_main` will need and starts it
    ~3 ms sooner.  A wrong guess costs only speed: check_main starts the right one itself."""
    global _early
    profile, no_validate, has_files, it = None, False, False, iter(argv)
    for arg in it:
        if arg == "--no-validate":
            no_validate = True
        elif arg == "--profile":
            profile = next(it, None)
        elif arg.startswith("--profile="):
            profile = arg.partition("=")[2]
        elif not arg.startswith("-"):
            has_files = True
    target = _warm_target(profile, no_validate, has_files)
    if target is not None:
        _early = (target, _start_warm_up(target))


def check_main(args) -> int:
    global _early
    target = _warm_target(args.profile, args.no_validate, bool(args.files))
    threads = [_early[1]] if _early is not None else []
    if target is not None and (_early is None or _early[0] != target):
        threads.append(_start_warm_up(target))
    _early = None
    try:
        return _check(args)
    finally:
        for thread in threads:     # never exit while glslang runs in another thread
            thread.join()


def _check(args) -> int:
    from . import api
    from .diagnostics import XlateError
    err = sys.stderr
    failed = unreadable = False
    codes: set[str] = set()
    for path in args.files:
        text = _read(path, err)
        if text is None:
            unreadable = True
            continue
        try:
            result = api.translate(text, filename=path, target="glsl", profile=args.profile,
                                   validate=not args.no_validate)
        except XlateError as e:
            _report(e.diagnostics, text, err)
            codes.update(d.code for d in e.diagnostics)
            failed = True
            continue
        _report(result.diagnostics, text, err)
    return _worst(codes, failed, unreadable)


def sync_main(args) -> int:
    from .batch.outputs import output_name, translate_outputs
    from .cli import atomic_write, spirv_profile_error
    from .diagnostics import XlateError
    err = sys.stderr
    problem = spirv_profile_error(args.profile, args.targets)
    if problem:
        print(problem, file=err)
        return EXIT_USAGE
    failed = unreadable = stale = False
    codes: set[str] = set()
    for path in args.files:
        text = _read(path, err)
        if text is None:
            unreadable = True
            continue
        try:
            res = translate_outputs(text, path, args.targets, args.profile,
                                    line_directives=args.line_directives, comments=args.comments)
        except XlateError as e:
            _report(e.diagnostics, text, err)
            codes.update(d.code for d in e.diagnostics)
            failed = True
            continue
        _report(res.diagnostics, text, err)
        for target in args.targets:
            out = output_name(path, res.stage, target)
            if os.path.abspath(out) == os.path.abspath(path):
                print(f"xlate: error[E8002]: {path}: output {out} would overwrite the program; "
                      "rename it", file=err)
                failed = True
                continue
            payload = res.payloads[target]
            try:
                with open(out, "rb") as f:
                    current = f.read()
            except OSError:
                current = None
            if current == payload:
                continue
            stale = True
            what = "missing" if current is None else "out of date"
            if args.check:
                hint = "" if args.targets == ("glsl",) else f"--targets {','.join(args.targets)} "
                print(f"xlate: {out} is {what} (regenerate with: xlate sync {hint}{path})",
                      file=err)
                continue
            try:
                atomic_write(out, payload)
            except OSError as e:
                print(f"xlate: error[E8002]: cannot write {out}: {e.strerror}", file=err)
                unreadable = True
                continue
            print(f"xlate: {'created' if current is None else 'updated'} {out} (from {path})",
                  file=err)
    return _worst(codes, failed or stale, unreadable)
