"""The content-hash cache of ``xlate batch``.

Key: SHA-256 over the input bytes and everything else the outputs depend on: the xlate version
and a hash of the code and templates a translation runs (so an edited checkout does not serve
stale outputs), the options (targets, profile, validation, line directives and comments), the name the program is translated
under (it appears in the GLSL header comment and in diagnostics) and the output folder.

Record: ``<cache>/<key[:2]>/<key>.json``, written atomically after the outputs, holding the
status, the diagnostics and, per output file, its size and modification time.  A record is
used only when every output still has that size and time; otherwise the input is translated
again.  So an interrupted run resumes where it stopped, and deleting or editing an output
rebuilds it.  Inputs whose diagnostics depend on the environment (toolchain missing, an
unreadable file, an internal error) are not recorded.

Location: ``$XLATE_CACHE_DIR/batch`` when that variable is set, else ``OUTDIR/.xlate-cache``.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

UNCACHED_CODES = ("E7004", "E7005", "E8001", "E8002")
RECORD_VERSION = 1


def cache_dir(outdir: str) -> str:
    base = os.environ.get("XLATE_CACHE_DIR")
    return os.path.join(base, "batch") if base else os.path.join(outdir, ".xlate-cache")


# what a translation depends on: the package minus the executor, the verifier and the modules
# that only drive or report a batch (pages.py and templates/report/: the HTML reports)
_FINGERPRINT_SKIP = ("exec" + os.sep, "verify" + os.sep, "check.py", "pages.py", "report" + os.sep,
                     os.path.join("batch", "runner.py"), os.path.join("batch", "report.py"),
                     os.path.join("batch", "cache.py"))


def code_fingerprint(pkg: Path | None = None) -> str:
    """Hash of the version and of every file a translation depends on (sources, grammar,
    templates): an edited checkout never serves outputs of the code before the edit.
    ``pkg``: the package folder (default: this xlate's)."""
    from .. import __version__
    h = hashlib.sha256(f"xlate {__version__}".encode())
    pkg = pkg or Path(__file__).resolve().parents[1]
    roots = [pkg]
    if (pkg.parent / "pyproject.toml").is_file():      # a checkout: templates/ beside the package
        roots.append(pkg.parent / "templates")
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                if name.endswith((".pyc", ".cache")) or rel.startswith(_FINGERPRINT_SKIP):
                    continue
                with open(path, "rb") as f:
                    h.update(f"{rel}\0".encode() + hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def options_prefix(fingerprint: str, targets, profile, validate: bool, outdir: str,
                   glsl_options: dict | None = None) -> bytes:
    """``glsl_options``: the GLSL text options (line directives, comments) that are on; the
    key of a run without them is what it was before they existed."""
    options = {"code": fingerprint, "targets": list(targets), "profile": profile,
               "validate": validate, "outdir": os.path.realpath(outdir), "record": RECORD_VERSION}
    if glsl_options:
        options["glsl"] = dict(sorted(glsl_options.items()))
    return json.dumps(options, sort_keys=True).encode()


def key_of(prefix: bytes, name: str, data: bytes) -> str:
    h = hashlib.sha256(prefix)
    h.update(b"\0" + name.encode("utf-8", "surrogateescape") + b"\0")
    h.update(data)
    return h.hexdigest()


def record_path(cache: str, key: str) -> str:
    return os.path.join(cache, key[:2], key + ".json")


def load_record(cache: str, key: str, outdir: str, need_linemap: bool) -> dict | None:
    """The record of ``key`` if its outputs are still those it wrote, else None."""
    try:
        with open(record_path(cache, key), "rb") as f:
            record = json.loads(f.read())
    except (OSError, ValueError):
        return None
    if need_linemap and "glsl" not in record and record.get("status") != "error":
        return None
    for rel, (size, mtime_ns) in record.get("stamps", {}).items():
        try:
            st = os.stat(os.path.join(outdir, rel))
        except OSError:
            return None
        if st.st_size != size or st.st_mtime_ns != mtime_ns:
            return None
    return record


def cacheable(record: dict) -> bool:
    return not any(d["code"] in UNCACHED_CODES for d in record.get("diagnostics", ()))


def store_record(cache: str, key: str, record: dict, tmp_dir: str) -> None:
    from ..fsio import atomic_write
    atomic_write(record_path(cache, key), json.dumps(record, sort_keys=True).encode(),
                 tmp_dir=tmp_dir, fsync=False, make_folders=True)
