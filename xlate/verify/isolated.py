"""Verification in a child process, so that a crash of the implementation is a report.

The implementation runs inside the verifying process (llvmpipe and lavapipe are libraries),
and some of its defects end that process: Mesa 22.3's LLVM aborts compiling a fragment shader
that reads ``readFirstInvocationARB`` and indexes a local array (``LLVM ERROR: Cannot
select``; generated TGSI fragment seed 89, inputs seed 31).  ``xlate verify`` therefore
verifies in a :class:`VerifierProcess` -- a child holding the runner, fed one program at a time
over a pipe -- and a child that dies gives that program an ``error`` report naming the signal
and the implementation's last error output, and is replaced for the next program.  The
cluster's workers (:func:`batch.verify_remote`) use the same child.

The child's standard error is relayed to this process's (Mesa's warnings stay visible), and
its last lines are kept for the report of a crash.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_FRAME = struct.Struct(">Q")
#: how much of the child's error output a crash report quotes
_TAIL_BYTES = 4096


def _write_frame(f, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(_FRAME.pack(len(data)) + data)
    f.flush()


def _read_exact(f, n: int) -> bytes:
    chunks, left = [], n
    while left:
        b = f.read(left)
        if not b:
            raise EOFError
        chunks.append(b)
        left -= len(b)
    return b"".join(chunks)


def _read_frame(f):
    (n,) = _FRAME.unpack(_read_exact(f, _FRAME.size))
    return pickle.loads(_read_exact(f, n))


def serve_child(backend: str, profile: str | None = None) -> None:
    """Main of the child process (:class:`VerifierProcess`): make the runner, then verify
    ``(name, data, options)`` frames from standard input -- ``data`` text or file bytes,
    ``options`` the keyword arguments
    of :func:`core.verify_source` -- answering on the original standard output (fd 1 then
    points at stderr: nothing else writes there)."""
    # Ctrl-C reaches the whole process group: the parent stops the run, and this child ends
    # when its pipe closes -- not with a KeyboardInterrupt of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    inp = sys.stdin.buffer
    try:
        _serve(out, inp, backend, profile)
    except BrokenPipeError:
        os._exit(0)             # the parent went away (the run was stopped): nothing to answer


def _serve(out, inp, backend: str, profile: str | None) -> None:
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    from ..fsio import decode_source
    from .core import make_runner, verify_source
    from .glapi import GLUnavailable
    try:
        runner = make_runner(backend, profile=profile)
    except GLUnavailable as e:
        _write_frame(out, ("unavailable", str(e)))
        return
    _write_frame(out, ("ready", runner.describe()))
    while True:
        try:
            item = _read_frame(inp)
        except EOFError:
            return
        if item is None:
            return
        name, data, options = item
        # file bytes as xlate reads a file: text, or the bytes of a TGSI token stream
        text = data if isinstance(data, str) else decode_source(data)
        try:
            rep = verify_source(text, name, backend=backend, runner=runner, **options)
        except GLUnavailable as e:
            _write_frame(out, ("unavailable", str(e)))
            return
        except Exception as e:                     # a crash of the verifier itself
            import traceback
            rep = {"file": name, "status": "crash", "reason": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc()[-2000:]}
        _write_frame(out, ("done", rep))


class ChildUnavailable(Exception):
    """The child could not make its runner: no implementation (GL's or Vulkan's message)."""


class ChildDied(Exception):
    """The child ended while it verified a program; ``str()`` says how (:func:`crash_reason`)."""


class VerifierProcess:
    """A child process verifying programs with one runner (started with this Python and the
    xlate it imports: a subprocess, not multiprocessing, as Dask's worker processes are
    daemons, which multiprocessing forbids to have children).  Raises
    :class:`ChildUnavailable` when the child has no implementation."""

    def __init__(self, backend: str, profile: str | None = None):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
        env.setdefault("EGL_PLATFORM", "surfaceless")
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from xlate.verify.isolated import serve_child; "
             f"serve_child({backend!r}, {profile!r})"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, env=env)
        self._tail = bytearray()
        self._relay = threading.Thread(target=self._relay_errors, daemon=True)
        self._relay.start()
        try:
            kind, self.implementation = self.receive(None)
        except (EOFError, OSError):
            raise ChildUnavailable(self.crash_reason()) from None
        if kind != "ready":
            self.kill()
            raise ChildUnavailable(self.implementation)

    def _relay_errors(self) -> None:
        """Copy the child's standard error to ours, keeping its last bytes."""
        err = self.proc.stderr
        dest = getattr(sys.stderr, "buffer", None)
        while True:
            chunk = err.read1(65536) if hasattr(err, "read1") else err.read(65536)
            if not chunk:
                return
            self._tail += chunk
            del self._tail[:-_TAIL_BYTES]
            try:
                if dest is not None:
                    dest.write(chunk)
                    dest.flush()
                else:                               # a captured stderr (pytest's capsys)
                    sys.stderr.write(chunk.decode("utf-8", "replace"))
            except (OSError, ValueError):
                pass

    def verify(self, name: str, data: str | bytes, options: dict,
               timeout: float | None = None):
        """The child's answer for one program -- ``data`` its text, or file bytes (decoded as
        :func:`fsio.decode_source` decodes them) -- ``("done", report)`` (a
        :class:`core.ProgramReport`, or a ``crash`` dict when the verifier raised), or
        ``("unavailable", message)``.  Raises TimeoutError after ``timeout`` seconds (the
        child is then useless: kill it) and :class:`ChildDied` when it died."""
        try:
            self.send((name, data, options))
            return self.receive(timeout)
        except TimeoutError:            # (an OSError: not a death)
            raise
        except (EOFError, OSError):
            raise ChildDied(self.crash_reason()) from None

    def send(self, item) -> None:
        """Send one ``(name, data, options)`` request (no answer awaited)."""
        _write_frame(self.proc.stdin, item)

    def receive(self, timeout: float | None):
        """The next answer; TimeoutError after ``timeout`` seconds; EOFError when it died."""
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError
        return _read_frame(self.proc.stdout)

    def crash_reason(self) -> str:
        """How the child ended, with the first line of its last error output that says why."""
        try:
            code = self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.proc.returncode
        self._relay.join(5)
        return crash_reason(code, bytes(self._tail).decode("utf-8", "replace"))

    def close(self) -> None:
        """Ask the child to end (it finishes nothing more); kill it if it does not."""
        try:
            _write_frame(self.proc.stdin, None)
            self.proc.stdin.close()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(5)


def crash_reason(returncode: int | None, error_output: str) -> str:
    """``the verifying process died (SIGABRT): LLVM ERROR: Cannot select: ...``: the signal
    (or exit status) and the last line of the error output that names an error -- the whole
    last line where none does."""
    if returncode is not None and returncode < 0:
        try:
            how = signal.Signals(-returncode).name
        except ValueError:
            how = f"signal {-returncode}"
    else:
        how = f"exit status {returncode}"
    lines = [ln.strip() for ln in error_output.splitlines() if ln.strip()]
    said = [ln for ln in lines if "error" in ln.lower() or "Assertion" in ln]
    why = said[0] if said else (lines[-1] if lines else "")
    reason = f"the verifying process died ({how})"
    return f"{reason}: {why[:300]}" if why else reason


def verify_isolated(texts, *, backend: str, profile: str | None = None, **options):
    """Verify ``(text, name)`` pairs in a :class:`VerifierProcess`; yields ``(report,
    implementation)`` in order: a child that dies gives its program an ``error`` report
    (reason ``crash: ...``, :func:`crash_reason`) and is replaced.  ``options``: keyword
    arguments of :func:`core.verify_source`.  Raises :class:`glapi.GLUnavailable` when the
    backend has no implementation."""
    from .core import ProgramReport
    from .glapi import GLUnavailable

    def start():
        try:
            return VerifierProcess(backend, profile)
        except ChildUnavailable as e:
            raise GLUnavailable(f"no implementation available for backend '{backend}': "
                                f"{e}") from None

    child = None
    try:
        for text, name in texts:
            if child is None:
                child = start()
            implementation = child.implementation
            try:
                kind, rep = child.verify(name, text, options)
            except ChildDied as e:
                child = None
                rep = ProgramReport(file=name, status="error", backend=backend,
                                    seed=options.get("seed", 1), reason=f"crash: {e}")
                yield rep, implementation
                continue
            if kind == "unavailable":
                raise GLUnavailable(f"no implementation available for backend '{backend}': "
                                    f"{rep}")
            if isinstance(rep, dict):                # the verifier itself raised: a bug
                rep = ProgramReport(file=name, status="error", backend=backend,
                                    seed=options.get("seed", 1),
                                    reason=f"crash of the verifier: {rep['reason']}",
                                    notes=["please report this traceback: "
                                           + rep["traceback"].strip()])
            yield rep, implementation
    finally:
        if child is not None:
            child.close()
