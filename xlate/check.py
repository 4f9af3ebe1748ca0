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

from .usage import EXIT_ERRORS, EXIT_OK, EXIT_TOOLCHAIN, EXIT_USAGE


def _read(path: str, err) -> tuple[str | bytes, str] | tuple[None, None]:
    """(source, display name) of ``path`` (``-``: standard input), or (None, None) after
    printing why it cannot be read.  A program over the size limit is an input error
    (E1008, exit 1), returned as the empty text with the diagnostic printed."""
    from .fsio import SourceTooLarge, read_program
    try:
        return read_program(path)
    except OSError as e:
        print(f"xlate: error[E8001]: cannot read {path}: {e.strerror}", file=err)
    except SourceTooLarge as e:
        _report([e.diagnostic], None, err)
        return "", ""
    return None, None


def _report(diags, text: str, err) -> None:
    from .diagnostics import INTERNAL_CODES, use_color
    color = use_color(err)
    for d in diags:
        # internal errors point into generated GLSL, not the input
        shown = None if d.code in INTERNAL_CODES or not isinstance(text, str) else text
        print(d.render(shown, color), file=err)


def _worst(codes: set[str], failed: bool, unreadable: bool) -> int:
    if unreadable:
        return EXIT_USAGE
    if "E7004" in codes:
        return EXIT_TOOLCHAIN
    return EXIT_ERRORS if failed else EXIT_OK


def check_main(args) -> int:
    from . import warmup
    threads = warmup.take(warmup.target_for(args.profile, args.no_validate, bool(args.files),
                                            args.targets))
    try:
        return _check(args)
    finally:
        for thread in threads:     # never exit while glslang runs in another thread
            thread.join()


def _check(args) -> int:
    from . import api
    from .diagnostics import XlateError
    err = sys.stderr
    from .usage import spirv_profile_error
    problem = spirv_profile_error(args.profile, args.targets)
    if problem:
        print(problem, file=err)
        return EXIT_USAGE
    failed = unreadable = False
    codes: set[str] = set()
    for path in args.files:
        text, name = _read(path, err)
        if text is None:
            unreadable = True
            continue
        if not name:                   # too large: reported
            codes.add("E1008")
            failed = True
            continue
        try:
            diags = []
            if "glsl" in args.targets or "reflect" in args.targets:
                diags = api.translate(text, filename=name, target="glsl", profile=args.profile,
                                      validate=not args.no_validate).diagnostics
            if "spirv" in args.targets:
                # the direct path, validated by spirv-val alone (no glslang start-up); a program
                # it does not cover is checked through glslang, quietly: the hook prints
                # nothing for a clean file
                result = api.translate(text, filename=name, target="spirv",
                                       profile=args.profile if args.profile == "glsl450" else "vulkan",
                                       via="auto")
                diags = diags or [d for d in result.diagnostics if d.code != "E7006"]
        except XlateError as e:
            _report(e.diagnostics, text, err)
            codes.update(d.code for d in e.diagnostics)
            failed = True
            continue
        _report(diags, text, err)
    return _worst(codes, failed, unreadable)


def sync_main(args) -> int:
    from .batch.outputs import output_name, translate_outputs
    from .usage import spirv_profile_error
    from .fsio import atomic_write
    from .diagnostics import XlateError
    err = sys.stderr
    problem = spirv_profile_error(args.profile, args.targets)
    if problem:
        print(problem, file=err)
        return EXIT_USAGE
    if "-" in args.files:
        # outputs are named after the program file and written beside it: standard input has
        # neither (xlate convert - writes one translation to standard output)
        print("xlate: error: sync cannot take '-' (standard input): its outputs are named after "
              "the program file and written beside it; use 'xlate convert - -o FILE'", file=err)
        return EXIT_USAGE
    failed = unreadable = stale = False
    codes: set[str] = set()
    for path in args.files:
        text, name = _read(path, err)
        if text is None:
            unreadable = True
            continue
        if not name:
            codes.add("E1008")
            failed = True
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
