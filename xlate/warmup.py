"""glslang's built-in tables, built in a background thread while ``xlate check`` parses.

glslang's first compile in a process builds built-in symbol tables for the ``#version`` it
reads: ~60 ms of C for 450 (which also declares the ray-tracing, mesh and task stages), 26 ms
for 440.  ``xlate check`` needs them only at the end, to validate what it emitted, so a thread
builds them meanwhile (ctypes releases the GIL during the C calls) and start-up pays for the
larger of the two, not the sum.

The console script (:mod:`xlate.console`) starts the thread before argparse or the CLI module
exist, from a rough look at ``argv`` (:func:`start_early`); :func:`xlate.check.check_main`
takes it over when the guess was right and starts its own otherwise (:func:`take`).  This
module imports nothing heavy at module level: it runs first.
"""
from __future__ import annotations

import sys

#: (target, thread) of a warm-up started before the arguments were parsed
_early: tuple[str, object] | None = None


def target_for(profile: str | None, no_validate: bool, has_files: bool,
               targets=("glsl",)) -> str | None:
    """The client API whose glslang tables ``check`` will need; None when nothing will be
    compiled as SPIR-V (--no-validate, glsl330/es310, no file, ``--targets spirv``: the direct
    SPIR-V path validates with spirv-val alone)."""
    target = {None: "opengl", "glsl450": "opengl", "vulkan": "vulkan"}.get(profile)
    return None if no_validate or not has_files or "glsl" not in targets else target


def start(target: str):
    """A daemon thread running :func:`xlate.backends.spirv.warm_up` for ``target``."""
    import threading
    from .backends import spirv
    thread = threading.Thread(target=spirv.warm_up, args=(target,), name="xlate-glslang-warm-up",
                              daemon=True)
    thread.start()
    return thread


def start_early(argv: list[str]) -> None:
    """For ``xlate check ARGS`` (``argv`` = ARGS): guess the warm-up :func:`take` will be asked
    for, by a rough scan of the arguments, and start it now.  A wrong guess costs only speed."""
    global _early
    profile, no_validate, has_files, it = None, False, False, iter(argv)
    targets = ("glsl",)
    for arg in it:
        if arg == "--no-validate":
            no_validate = True
        elif arg == "--targets":
            targets = tuple((next(it, None) or "").split(","))
        elif arg.startswith("--targets="):
            targets = tuple(arg.partition("=")[2].split(","))
        elif arg == "--profile":
            profile = next(it, None)
        elif arg.startswith("--profile="):
            profile = arg.partition("=")[2]
        elif not arg.startswith("-"):
            has_files = True
    target = target_for(profile, no_validate, has_files, targets)
    if target is not None:
        _early = (target, start(target))


def take(target: str | None) -> list:
    """The warm-up threads the caller must join before returning: the early one, if any
    (whether or not it guessed right: glslang must not be running at exit), plus a new one
    for ``target`` when the early guess was not it."""
    global _early
    threads = [_early[1]] if _early is not None else []
    if target is not None and (_early is None or _early[0] != target):
        threads.append(start(target))
    _early = None
    return threads


def tune_process() -> None:
    """Process-wide settings that let the warm-up thread run at nearly its single-thread speed
    beside the main thread.  Only for a short-lived console process (``check``): both last
    for the rest of the process.

    * GIL switch interval 0.5 ms (default 5 ms): the thread needs the GIL back after each
      ctypes call, and while the main thread runs Python it waited up to the interval each
      time: measured ~5 ms at the end of the table build alone.
    * glibc malloc: a 16 MiB top pad and a 256 MiB trim threshold.  The thread gets its own
      malloc arena, whose heap glibc grows one mprotect call at a time as glslang's pool
      allocator asks for more (~3,400 calls while building the 450 tables) and trims again
      when pools are freed: ~5 ms of the build.  The pad makes a new arena's heap start that
      large (address space: pages are still only touched when used); the threshold keeps it
      from shrinking.  Skipped where malloc is not glibc's (no ``mallopt``).
    """
    sys.setswitchinterval(0.0005)
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    m_trim_threshold, m_top_pad = -1, -2                 # <malloc.h>
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    mallopt(m_top_pad, 16 << 20)
    mallopt(m_trim_threshold, 256 << 20)
