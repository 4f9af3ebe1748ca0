"""File input and output shared by every command: bounded reading of program files, the
regular-file test of tree walks, and atomic writes.

Reading is bounded: at most the source limit plus one byte is read (:data:`MAX_SOURCE_BYTES`,
the limit the frontends enforce too), so a character device (``/dev/zero``), a file that
grows while it is read or an endless pipe is answered with E1008 instead of filling memory.
A file named by the user is opened whatever it is (``<(cmd)`` and ``/dev/stdin`` are pipes a
user means); a tree walk takes regular files only (:func:`not_regular_reason`), because opening
a FIFO nobody writes to blocks forever.
"""
from __future__ import annotations

import errno
import functools
import os
import stat
import sys

TMP_PREFIX = ".xlate-tmp-"      # temporary files: .xlate-tmp-<pid>-<random>
STDIN = "-"
#: the largest program input (E1008 beyond; xlate.frontends re-exports it)
MAX_SOURCE_BYTES = 16 * 1024 * 1024


class SourceTooLarge(Exception):
    """A program input over the size limit; ``diagnostic`` is its E1008."""

    def __init__(self, diagnostic):
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def source_limit() -> int:
    """The size limit in force (read at call time: tests lower it on xlate.frontends)."""
    import sys as _sys
    frontends = _sys.modules.get(__package__ + ".frontends")
    return getattr(frontends, "MAX_SOURCE_BYTES", MAX_SOURCE_BYTES)


def read_bounded(f, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of the binary stream ``f`` (one more than allowed, so that
    the caller can tell "exactly the limit" from "more")."""
    chunks, left = [], limit + 1
    while left > 0:
        chunk = f.read(min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_program_bytes(path: str) -> tuple[bytes, str]:
    """(bytes, display name) of the program file ``path`` (``-``: standard input).

    Raises OSError when it cannot be read and :class:`SourceTooLarge` when it holds more than
    the source limit."""
    limit = source_limit()
    if path == STDIN:
        data, name = read_bounded(sys.stdin.buffer, limit), "<stdin>"
    else:
        with open(path, "rb", buffering=0) as f:
            data, name = read_bounded(f, limit), path
    if len(data) > limit:
        from .diagnostics import Diagnostic, Span
        raise SourceTooLarge(Diagnostic("E1008", "error", f"input is more than {limit} bytes "
                                        f"(the limit); reading stopped there", Span(name, 1, 1)))
    return data, name


def read_program(path: str) -> tuple[str | bytes, str]:
    """(source, display name): :func:`read_program_bytes` decoded by :func:`decode_source`
    (text, or the bytes of a TGSI token stream)."""
    data, name = read_program_bytes(path)
    return decode_source(data), name


def decode_source(data: bytes) -> str | bytes:
    """Program text from file bytes: UTF-8, else Latin-1 (every byte sequence decodes).  A TGSI
    binary token stream is returned as the bytes themselves (the frontends take both)."""
    if looks_binary(data):
        return data                  # binary: a TGSI token stream or nothing (frontends decide)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def looks_binary(data: bytes) -> bool:
    """Bytes that are no program text: a NUL among the first 16 bytes of something that is not
    an NV/ARB program (those may carry a NUL after END, cut out of C sources).  Such input goes
    to the TGSI token-stream decoder, which either reads it or says why not (E1009)."""
    return b"\x00" in data[:16] and not data.startswith(b"!!")


# ---- tree walks: regular files only ---------------------------------------------------------------
_KIND = ((stat.S_ISFIFO, "named pipe (FIFO)"), (stat.S_ISCHR, "character device"),
         (stat.S_ISBLK, "block device"), (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder"))


def kind_of(mode: int) -> str | None:
    """What a non-regular file is ("named pipe (FIFO)" ...), or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, name in _KIND:
        if test(mode):
            return name
    return "special file"


def not_regular_reason(path: str) -> str | None:
    """Why a tree walk does not open ``path``, or None when it is a regular file (after
    following symbolic links).  An unreadable regular file is None: reading it reports the
    error."""
    try:
        st = os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return "symbolic link loop"
        if e.errno == errno.ENOENT and os.path.islink(path):
            return "broken symbolic link"
        return None
    kind = kind_of(st.st_mode)
    if kind is not None and os.path.islink(path):
        return f"symbolic link to a {kind}"
    return kind


def open_regular(path: str):
    """Open ``path`` for reading only when it is a regular file; returns the binary file, or a
    string saying what it is instead.  O_NONBLOCK: a FIFO put in place of the file after the
    walk looked at it still does not block the open (the fstat then refuses it)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        reason = not_regular_reason(path)
        if reason is not None:
            return reason
        raise
    try:
        kind = kind_of(os.fstat(fd).st_mode)
        if kind is not None:
            os.close(fd)
            return f"symbolic link to a {kind}" if os.path.islink(path) else kind
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        try:
            os.close(fd)
        except OSError:
            pass
        raise


# ---- writing --------------------------------------------------------------------------------------
def output_folder_problem(path: str, *, create: bool = False) -> str | None:
    """Why an output file cannot be written at ``path`` -- its folder is missing, is not a
    folder, or is not writable -- checked before any work; None when it can.

    Outputs named by the user (``-o FILE``, ``--report``, ``--json``, ``--depfile``) need an
    existing folder, as a compiler's ``-o`` does: a typo in a path must not create folders
    anywhere (as root, under /).  ``xlate batch``'s OUTDIR is the one folder xlate creates
    (``create``: only its parent must exist then)."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path) and not create:
        return f"{path} is a folder"
    if not os.path.exists(folder):
        # the nearest existing ancestor says whether a path component is a file
        up = folder
        while up and not os.path.exists(up):
            parent = os.path.dirname(up)
            if parent == up:
                break
            up = parent
        if os.path.exists(up) and not os.path.isdir(up):
            return f"{up} is not a folder"
        return f"folder {folder} does not exist"
    if not os.path.isdir(folder):
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"folder {folder} is not writable"
    return None


def atomic_write(path: str, data: bytes, *, tmp_dir: str | None = None, fsync: bool = True,
                 make_folders: bool = False) -> None:
    """Write via a temporary file and rename it into place: readers never see a partial file.

    The temporary file lives in ``tmp_dir`` (which must be on the same file system; ``xlate
    batch`` keeps them out of the output tree) or else beside ``path``; its name carries the
    writer's pid so that a later run can remove what a killed writer left
    (:func:`remove_stale_temporaries`).  The folder of ``path`` must exist unless
    ``make_folders`` (outputs mirrored under a batch's OUTDIR, the cache)."""
    import stat
    import tempfile
    try:
        existing = os.stat(path).st_mode
    except OSError:
        existing = None
    if existing is not None and not stat.S_ISREG(existing) and not stat.S_ISDIR(existing):
        # a device or a pipe (``-o /dev/null``, ``-o /dev/stdout``, a FIFO): it is written to,
        # never replaced -- renaming a file onto /dev/null would make it a regular file
        with open(path, "wb") as f:
            f.write(data)
        return
    folder = os.path.dirname(os.path.abspath(path))
    if make_folders:
        os.makedirs(folder, exist_ok=True)
    if tmp_dir is not None:
        os.makedirs(tmp_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{os.getpid()}-", dir=tmp_dir or folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            # mkstemp creates 0600: give the file the mode it had, or what the umask allows
            try:
                mode = os.stat(path).st_mode & 0o7777
            except OSError:
                mode = 0o666 & ~_umask()
            os.fchmod(f.fileno(), mode)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@functools.lru_cache(maxsize=1)
def _umask() -> int:
    current = os.umask(0o22)      # reading the umask means setting it; put it back
    os.umask(current)
    return current


def remove_stale_temporaries(folder: str) -> int:
    """Delete the temporary files of :func:`atomic_write` in ``folder`` whose writer is gone."""
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if not name.startswith(TMP_PREFIX):
            continue
        pid = name[len(TMP_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed += 1
        except OSError:
            pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:        # exists, owned by someone else
        return True
    return True
