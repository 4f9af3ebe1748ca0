"""``xlate batch SRC... -o OUTDIR``: walk, detect, translate in a process pool, report.

Exit codes: 0 every program translated (warnings allowed), 1 some inputs had errors,
2 usage (bad arguments, a missing SRC, an unusable OUTDIR or report path), 3 glslang /
SPIRV-Tools unavailable, 130 interrupted.  See docs/batch.md.
"""
from __future__ import annotations

import errno
import os
import sys
import time
from dataclasses import dataclass, field

from ..usage import EXIT_ERRORS, EXIT_OK, EXIT_TOOLCHAIN, EXIT_USAGE
from . import cache as C
from .outputs import diagnostic_from_json, diagnostic_to_json, output_name

HEAD_BYTES = 64           # enough for a BOM and the longest header
TMP_DIR = ".xlate-tmp"    # OUTDIR/.xlate-tmp: temporaries of atomic writes, out of the tree


class UsageError(Exception):
    """Bad arguments, missing sources, unusable output folder (exit code 2)."""


@dataclass
class Entry:
    """One input file."""

    path: str                     # as opened
    display: str                  # as shown in diagnostics and the GLSL header
    rel: str                      # relative to the mirrored root (output names derive from it)
    data: bytes | None = None     # file content (programs only)
    key: str | None = None
    record: dict | None = None    # result: see _translate_group
    cached: bool = False
    skipped: bool = False         # not a shader program, or not a regular file
    named: bool = False           # named on the command line: always taken
    skip_reason: str | None = None    # why a skipped file was not read ("named pipe (FIFO)" ...)


@dataclass
class Summary:
    entries: list[Entry]
    seconds: float
    targets: tuple
    profile: str | None
    outdir: str
    jobs: int
    counts: dict = field(default_factory=dict)
    exit_code: int = EXIT_OK
    cluster: str | None = None    # --cluster ADDRESS the translations ran on (jobs: its workers)


# ---- discovering inputs ------------------------------------------------------------------------
def discover(sources: list[str], outdir: str) -> list[Entry]:
    """Every file under the sources, in sorted order, relative to the deepest common folder.

    Folders whose name starts with '.' (.git, .xlate-cache, ...) and the output folder are not
    walked; a file named on the command line is always taken."""
    out_real = os.path.realpath(outdir)
    found: list[tuple[str, str, bool]] = []     # (path, display, named)
    for src in sources:
        if os.path.isdir(src):
            for folder, dirs, files in os.walk(src):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".")
                                 and os.path.realpath(os.path.join(folder, d)) != out_real)
                for name in sorted(files):
                    path = os.path.join(folder, name)
                    found.append((path, os.path.normpath(path), False))
        elif os.path.isfile(src):
            found.append((src, os.path.normpath(src), True))
        elif os.path.exists(src):
            raise UsageError(f"error[E8001]: cannot read {src}: not a regular file or folder")
        else:
            raise UsageError(f"error[E8001]: cannot read {src}: No such file or directory")
    roots = [os.path.realpath(s if os.path.isdir(s) else os.path.dirname(os.path.abspath(s)))
             for s in sources]
    base = os.path.commonpath(roots)
    seen, entries = set(), []
    for path, display, named in found:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        rel = os.path.relpath(os.path.join(os.path.realpath(os.path.dirname(path)),
                                           os.path.basename(path)), base)
        entries.append(Entry(path, display, rel, named=named))
    entries.sort(key=lambda e: e.rel)
    return entries


def _read(entry: Entry):
    """Read a file when it is a program; mark it skipped otherwise.  OSError propagates;
    :class:`xlate.fsio.SourceTooLarge` for a program over the size limit.

    A tree walk reads regular files only (a FIFO would block the open, a device would never
    end: xlate.fsio) and takes what starts like a program of any dialect ``convert`` takes:
    an NV/ARB header, a TGSI processor name, or a TGSI token stream.  A file named on the
    command line is always read and translated; the frontend says what is wrong with it."""
    from ..frontends.detect import detect_header, is_tgsi_text
    from ..fsio import looks_binary
    from ..fsio import SourceTooLarge, open_regular, read_bounded, source_limit
    f = open_regular(entry.path)
    if isinstance(f, str):
        entry.skipped, entry.skip_reason = True, f
        return
    limit = source_limit()
    with f:
        head = f.read(HEAD_BYTES)
        binary = looks_binary(head)
        if not entry.named and not binary:
            text = head.decode("utf-8", "replace")
            if detect_header(text) is None and not is_tgsi_text(text):
                entry.skipped = True
                return
        data = head + read_bounded(f, limit - len(head))
    if len(data) > limit:
        from ..diagnostics import Diagnostic, Span
        raise SourceTooLarge(Diagnostic("E1008", "error", f"input is more than {limit} bytes "
                                        "(the limit); reading stopped there",
                                        Span(entry.display, 1, 1)))
    if binary and not entry.named:
        from ..frontends.tgsi.binary import detect_layout
        if detect_layout(data) is None:       # an image, an archive ...: not a token stream
            entry.skipped = True
            return
    entry.data = data


# ---- translating (runs in worker processes) ------------------------------------------------------
_OPTS: dict = {}          # options of the run, set once per worker process (_worker_init)


def _translate_group(group: list[tuple]) -> list[dict]:
    """Translate inputs that share an output stem, in order; write outputs and cache records.

    ``group``: (display, rel, data, key) per input.  Returns one record per input."""
    taken: dict[str, str] = {}
    return [_write_outputs(display, rel, key, *_translate(display, data, _OPTS), taken, _OPTS)
            for display, rel, data, key in group]


def _translate(display: str, data: bytes, opts: dict) -> tuple[dict, dict | None]:
    """Translate one input, writing nothing: its record (status, stage, dialect, diagnostics;
    no outputs yet) and its payload per target (None when it did not translate)."""
    from ..diagnostics import Diagnostic, Span, XlateError
    from ..frontends.detect import detect_header
    from ..fsio import decode_source
    from .outputs import translate_outputs
    text = decode_source(data)
    header = detect_header(text) if isinstance(text, str) else None    # bytes: a token stream
    record = {"source": display, "dialect": header[2:] if header else None, "outputs": [],
              "stamps": {}, "diagnostics": []}
    try:
        res = translate_outputs(text, display, opts["targets"], opts["profile"],
                                opts["validate"], opts["linemap"], **opts["glsl_options"])
    except XlateError as e:
        record.update(status="error", diagnostics=[diagnostic_to_json(d) for d in e.diagnostics])
        return record, None
    except Exception as e:   # a bug in xlate: report it, carry on with the next file
        record.update(status="error", diagnostics=[diagnostic_to_json(Diagnostic(
            "E7005", "error", f"internal error: {type(e).__name__}: {e}", Span(display, 1, 1)))])
        return record, None
    record.update(status="warning" if res.diagnostics else "ok", stage=res.stage,
                  dialect=res.dialect, diagnostics=[diagnostic_to_json(d) for d in res.diagnostics])
    if opts["linemap"]:
        record.update(glsl=res.glsl, glsl_profile=res.glsl_profile, linemap=res.linemap)
    return record, {t: res.payloads[t] for t in opts["targets"]}


def _write_outputs(display: str, rel: str, key: str, record: dict, payloads: dict | None,
                   taken: dict[str, str], opts: dict) -> dict:
    """Write the outputs of one translated input (those of the same stem before it are in
    ``taken``) and its cache record; returns the record, completed."""
    from ..diagnostics import Diagnostic, Span
    from ..fsio import atomic_write
    outdir, tmp = opts["outdir"], opts["tmp_dir"]
    if payloads is not None:
        problems = []
        names = {t: output_name(rel, record["stage"], t, opts["profile"]) for t in opts["targets"]}
        # outputs another input of this run already wrote (water.fp and water.fp.txt ->
        # water.frag): this input loses them all, with one error naming both inputs, and
        # writes nothing -- half of its outputs beside the other's would be a trap
        clashes = [names[t] for t in opts["targets"] if names[t] in taken]
        if clashes:
            record.update(status="error", duplicate_of=taken[clashes[0]])
            record["diagnostics"].append(diagnostic_to_json(Diagnostic(
                "E8002", "error", f"{display} is not translated: its output"
                f"{'s' if len(clashes) > 1 else ''} {', '.join(clashes)} "
                f"{'are' if len(clashes) > 1 else 'is'} already written from "
                f"{taken[clashes[0]]} (outputs are named after the file name without its "
                "last extension; rename one of the two)", Span(display, 1, 1))))
        for target in () if clashes else opts["targets"]:
            payload = payloads[target]
            out_rel = names[target]
            path = os.path.join(outdir, out_rel)
            if os.path.realpath(path) in opts["inputs"]:
                problems.append(f"output {out_rel} would overwrite an input")
                continue
            try:
                if _content(path) != payload:
                    try:
                        atomic_write(path, payload, tmp_dir=tmp, make_folders=True)
                    except OSError as e:
                        if e.errno != errno.EXDEV:     # OUTDIR spans file systems
                            raise
                        atomic_write(path, payload, make_folders=True)
                st = os.stat(path)
            except OSError as e:
                problems.append(f"cannot write {path}: {e.strerror}")
                continue
            taken[out_rel] = display
            record["outputs"].append(out_rel)
            record["stamps"][out_rel] = [st.st_size, st.st_mtime_ns]
        if problems:
            record["status"] = "error"
            record["diagnostics"] += [diagnostic_to_json(Diagnostic("E8002", "error", p, None))
                                      for p in problems]
    if C.cacheable(record) and not opts["no_cache"]:
        try:
            C.store_record(opts["cache"], key, record, os.path.join(opts["cache"], TMP_DIR))
        except OSError:
            pass              # a read-only cache only costs the next run time
    return record


def translate_remote(opts: dict, groups: list[list[tuple]]) -> list[list[tuple]]:
    """The task of ``--cluster`` (runs on a cluster worker): translate a chunk of groups,
    ``(display, data)`` per input, writing nothing; returns ``(record, payloads)`` per input.
    The client writes the outputs and the cache (:func:`_write_outputs`), so workers need
    no access to its files."""
    return [[_translate(display, data, opts) for display, data in group] for group in groups]


def _content(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _worker_init(opts: dict, in_pool: bool = True) -> None:
    _OPTS.clear()
    _OPTS.update(opts)
    if in_pool:
        # workers ignore Ctrl-C: the parent cancels what is queued and waits for what runs
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)


# ---- the run ------------------------------------------------------------------------------------------
def run_batch(sources: list[str], outdir: str, *, jobs: int | None = None,
              targets=("glsl", "spirv", "reflect"), profile: str | None = None,
              validate: bool = True, use_cache: bool = True, linemap: bool = False,
              line_directives: bool = False, comments: bool = False,
              on_result=None, progress=None, cluster: str | None = None) -> Summary:
    """Translate every program under ``sources`` into ``outdir``; returns a :class:`Summary`.

    ``line_directives``/``comments``: options of the GLSL outputs (``xlate.translate``).

    ``on_result(entry)`` is called for every input in sorted order as soon as it and every
    input before it are done; ``progress(done, total, failed)`` whenever an input finishes.
    ``cluster``: translate on the Dask cluster at this address (:mod:`xlate.cluster`) instead
    of local processes; outputs, cache and records are the same.
    Raises :class:`UsageError` for missing sources, an unusable output folder, or SPIR-V asked of
    a GLSL-only profile (glsl330, es310); :class:`xlate.cluster.ClusterUnavailable` when the
    cluster is needed and cannot be used."""
    from ..usage import spirv_profile_error
    from ..fsio import remove_stale_temporaries
    start = time.perf_counter()
    problem = spirv_profile_error(profile, targets)
    if problem:                  # a GLSL-only profile asked for SPIR-V: before any work
        raise UsageError(problem[len("xlate: "):])
    jobs = jobs or _cpu_count()
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise UsageError(f"error[E8002]: cannot write to {outdir}: not a folder")
    entries = discover(sources, outdir)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        raise UsageError(f"error[E8002]: cannot create {outdir}: {e.strerror}") from None
    cache = C.cache_dir(outdir)
    tmp_dir = os.path.join(outdir, TMP_DIR)
    for folder in (tmp_dir, os.path.join(cache, TMP_DIR)):
        remove_stale_temporaries(folder)
    glsl_options = {k: True for k, on in (("line_directives", line_directives),
                                          ("comments", comments)) if on}
    prefix = C.options_prefix(C.code_fingerprint(), targets, profile, validate, outdir,
                              glsl_options)
    out_real = os.path.join(os.path.realpath(outdir), "")
    opts = {"outdir": outdir, "tmp_dir": tmp_dir, "cache": cache, "targets": tuple(targets),
            "profile": profile, "validate": validate, "linemap": linemap, "no_cache": not use_cache,
            "glsl_options": glsl_options,
            # inputs inside OUTDIR, which an output must never replace
            "inputs": {r for r in (os.path.realpath(e.path) for e in entries)
                       if r.startswith(out_real)}}

    # read, detect, look up the cache; group the rest by output stem (same stem -> same job)
    groups: dict[str, list[Entry]] = {}
    from ..fsio import SourceTooLarge
    for e in entries:
        try:
            _read(e)
        except OSError as err:
            e.record = _error_record(e, "E8001", f"cannot read {e.display}: {err.strerror}")
            continue
        except SourceTooLarge as err:
            e.record = {"source": e.display, "status": "error", "outputs": [], "stamps": {},
                        "diagnostics": [diagnostic_to_json(err.diagnostic)]}
            continue
        if e.skipped:
            continue
        e.key = C.key_of(prefix, e.display, e.data)
        if use_cache:
            e.record = C.load_record(cache, e.key, outdir, linemap)
            e.cached = e.record is not None
        groups.setdefault(os.path.splitext(e.rel)[0], []).append(e)
    work = []
    for members in groups.values():
        if any(not m.cached for m in members):
            for m in members:
                m.record, m.cached = None, False
            work.append(members)

    programs = [e for e in entries if not e.skipped]
    done = [e for e in programs if e.record is not None]
    state = {"done": len(done), "failed": sum(1 for e in done if e.record["status"] == "error"),
             "next": 0}

    def finished(group: list[Entry], records: list[dict]) -> None:
        for e, r in zip(group, records):
            e.record = r
        state["done"] += len(group)
        state["failed"] += sum(1 for r in records if r["status"] == "error")
        if progress:
            progress(state["done"], len(programs), state["failed"])
        while state["next"] < len(entries) and (entries[state["next"]].skipped
                                                 or entries[state["next"]].record is not None):
            if on_result:
                on_result(entries[state["next"]])
            state["next"] += 1

    finished([], [])
    payload = [[(m.display, m.rel, m.data, m.key) for m in members] for members in work]
    if cluster is not None:
        jobs = _run_cluster(cluster, work, opts, finished) if work else jobs
    elif jobs == 1 or len(work) <= 1:
        _worker_init(opts, in_pool=False)
        for members, group in zip(work, payload):
            finished(members, _translate_group(group))
    else:
        _run_pool(work, payload, opts, min(jobs, len(work)), finished)
    summary = Summary(entries, time.perf_counter() - start, tuple(targets), profile, outdir, jobs,
                      cluster=cluster)
    summary.counts = _counts(entries)
    summary.exit_code = _exit_code(entries)
    return summary


def _run_pool(work, payload, opts, jobs: int, finished) -> None:
    """Run the groups in a process pool, at most two per worker queued at a time.

    A worker that dies (a crash in glslang, the OOM killer) breaks the pool; the groups in
    flight then are suspects: each runs again alone in a one-worker pool, and one that kills
    that worker too is reported as an internal error (E7005).  The other groups go on in a
    fresh pool."""
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    queue = deque(range(len(work)))
    context = _mp_context()
    while queue:
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_worker_init,
                                   initargs=(opts,))
        running: dict = {}
        suspects: list[int] = []
        try:
            while queue or running:
                broken = False
                while queue and len(running) < 2 * jobs:
                    try:
                        fut = pool.submit(_translate_group, payload[queue[0]])
                    except BrokenProcessPool:
                        # a worker died since the last wait (on 2 cores this race is real):
                        # submit() refuses at once.  Everything in flight is a suspect; the
                        # refused group is not, and goes to the fresh pool.
                        broken = True
                        break
                    running[fut] = queue.popleft()
                if broken:
                    suspects += running.values()
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = running.pop(fut)
                    try:
                        finished(work[i], fut.result())
                    except BrokenProcessPool:
                        suspects.append(i)
                if suspects:
                    suspects += running.values()
                    break
        except KeyboardInterrupt:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True, cancel_futures=True)
        for i in sorted(suspects):
            alone = ProcessPoolExecutor(max_workers=1, mp_context=context,
                                        initializer=_worker_init, initargs=(opts,))
            try:
                records = alone.submit(_translate_group, payload[i]).result()
            except BrokenProcessPool:
                records = [_error_record(m, "E7005", "internal error: the process translating "
                                         "this file died") for m in work[i]]
            finally:
                alone.shutdown(wait=True)
            finished(work[i], records)


def _run_cluster(address: str, work, opts, finished) -> int:
    """Translate the groups on the cluster at ``address``, several groups a task; write their
    outputs and cache records here as they come back.  Returns the cluster's worker count."""
    from ..cluster import TaskFailed, chunk_size, connect
    from functools import partial
    remote_opts = {k: opts[k] for k in ("targets", "profile", "validate", "linemap",
                                        "glsl_options")}
    with connect(address) as cluster:
        workers = cluster.workers
        size = chunk_size(len(work), workers)
        chunks = [list(range(i, min(i + size, len(work)))) for i in range(0, len(work), size)]
        items = [[[(m.display, m.data) for m in work[g]] for g in chunk] for chunk in chunks]

        def done(i: int, result) -> None:
            for n, g in enumerate(chunks[i]):
                taken: dict[str, str] = {}
                if isinstance(result, TaskFailed):
                    records = [_error_record(m, "E7005", f"internal error: the cluster task "
                                             f"translating this file failed: {result}")
                               for m in work[g]]
                else:
                    records = [_write_outputs(m.display, m.rel, m.key, record, payloads, taken,
                                              opts)
                               for m, (record, payloads) in zip(work[g], result[n])]
                finished(work[g], records)

        cluster.run(partial(translate_remote, remote_opts), items, done)
    return workers


def _mp_context():
    """fork where it is safe (POSIX, one thread): workers start at once with what the parent
    imported; else the platform's default (spawn / forkserver)."""
    import multiprocessing
    import threading
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return None


def _error_record(e: Entry, code: str, message: str) -> dict:
    from ..diagnostics import Diagnostic, Span
    d = Diagnostic(code, "error", message, Span(e.display, 1, 1) if code != "E8001" else None)
    return {"source": e.display, "status": "error", "outputs": [], "stamps": {},
            "diagnostics": [diagnostic_to_json(d)]}


def _cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def _counts(entries: list[Entry]) -> dict:
    programs = [e for e in entries if not e.skipped]
    return {"inputs": len(entries), "skipped": len(entries) - len(programs),
            "programs": len(programs),
            "ok": sum(1 for e in programs if e.record["status"] != "error"),
            "warnings": sum(1 for e in programs if e.record["status"] == "warning"),
            "errors": sum(1 for e in programs if e.record["status"] == "error"),
            "cached": sum(1 for e in programs if e.cached),
            # an input that lost its outputs to another of the same name is not translated
            "translated": sum(1 for e in programs if not e.cached
                              and not e.record.get("duplicate_of")),
            "not_regular": _reasons(entries)}


def _reasons(entries: list[Entry]) -> dict[str, int]:
    """Files a tree walk did not open, by what they are ({"named pipe (FIFO)": 1, ...})."""
    out: dict[str, int] = {}
    for e in entries:
        if e.skip_reason:
            out[e.skip_reason] = out.get(e.skip_reason, 0) + 1
    return dict(sorted(out.items()))


def _exit_code(entries: list[Entry]) -> int:
    codes = {d["code"] for e in entries if e.record for d in e.record["diagnostics"]
             if d["severity"] == "error"}
    if "E7004" in codes:
        return EXIT_TOOLCHAIN
    return EXIT_ERRORS if any(e.record and e.record["status"] == "error" for e in entries) else EXIT_OK


# ---- terminal output ---------------------------------------------------------------------------------
class Progress:
    """One status line on a terminal, redrawn at most 10 times a second."""

    def __init__(self, stream):
        self.stream = stream
        self.start = time.perf_counter()
        self.last = 0.0
        self.line = ""
        self.first_done: int | None = None

    def update(self, done: int, total: int, failed: int, force: bool = False) -> None:
        now = time.perf_counter()
        if self.first_done is None:
            self.first_done = done          # served from the cache before any work
            self.start = now
        if not force and now - self.last < 0.1 and done < total:
            return
        self.last = now
        width = 30
        filled = width * done // total if total else width
        rate = (done - self.first_done) / max(now - self.start, 1e-9)
        self.line = (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
                     f"  {failed} failed  {rate:.1f} files/s")
        self.stream.write("\r\x1b[K" + self.line)
        self.stream.flush()

    def clear(self) -> None:
        if self.line:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def redraw(self) -> None:
        if self.line:
            self.stream.write(self.line)
            self.stream.flush()


def main(args) -> int:
    """The ``xlate batch`` command (arguments defined in xlate.cli)."""
    from ..diagnostics import INTERNAL_CODES, use_color
    report = args.report
    if report and not report.endswith((".html", ".htm", ".json")):
        print(f"xlate: error: --report {report}: the name must end in .html or .json",
              file=sys.stderr)
        return EXIT_USAGE
    err = sys.stderr
    from ..usage import GLSL_ONLY_PROFILES, OUTPUT_TARGETS, spirv_profile_error
    # the default targets of a GLSL-only profile leave SPIR-V out; asking for it is an error
    targets = args.targets or (("glsl", "reflect") if args.profile in GLSL_ONLY_PROFILES
                               else OUTPUT_TARGETS)
    problem = spirv_profile_error(args.profile, targets)
    if problem:
        print(problem, file=err)
        return EXIT_USAGE
    from ..fsio import output_folder_problem
    outdir = os.path.abspath(args.output)
    for path in (report, args.depfile):
        # a report or depfile that cannot be written is found before the work, not after it;
        # one directly in OUTDIR is fine: the run creates OUTDIR (or says why not) first
        if path and os.path.dirname(os.path.abspath(path)) == outdir:
            continue
        why = output_folder_problem(path) if path else None
        if why:
            print(f"xlate: error[E8002]: cannot write {path}: {why}", file=err)
            return EXIT_USAGE
    color = use_color(err)
    bar = Progress(err) if err.isatty() else None

    def on_result(entry: Entry) -> None:
        if args.quiet or entry.skipped or not entry.record["diagnostics"]:
            return
        from ..fsio import looks_binary
        text = entry.data.decode("utf-8", "replace") if entry.data is not None \
            and not looks_binary(entry.data) else None
        if bar:
            bar.clear()
        for d in entry.record["diagnostics"]:
            internal = d["code"] in INTERNAL_CODES
            print(diagnostic_from_json(d).render(None if internal else text, color), file=err)
        if bar:
            bar.redraw()

    from ..cluster import ClusterUnavailable
    try:
        summary = run_batch(args.sources, args.output, jobs=args.jobs, targets=targets,
                            profile=args.profile, validate=not args.no_validate,
                            use_cache=not args.no_cache, linemap=bool(report and not
                                                                     report.endswith(".json")),
                            line_directives=args.line_directives, comments=args.comments,
                            on_result=on_result, progress=bar.update if bar else None,
                            cluster=getattr(args, "cluster", None))
    except UsageError as e:
        print(f"xlate: {e}", file=err)
        return EXIT_USAGE
    except ClusterUnavailable as e:
        if bar:
            bar.clear()
        print(f"xlate: error: {e}", file=err)
        return EXIT_TOOLCHAIN         # 3: something the run needs is not available
    except KeyboardInterrupt:
        if bar:
            bar.clear()
        print("xlate: interrupted; outputs written so far are complete and cached", file=err)
        return 130
    if bar:
        bar.clear()
    print(summary_line(summary), file=err)
    if report:
        from .report import write_report
        try:
            write_report(summary, report)
        except OSError as e:
            print(f"xlate: error[E8002]: cannot write {report}: {e.strerror}", file=err)
            return EXIT_USAGE
    if args.depfile:
        outputs, inputs = dependencies(summary)
        if outputs:              # no output, no rule: the depfile of the last run stays
            from ..depfile import write_depfile
            problem = write_depfile(args.depfile, outputs, inputs)
            if problem:
                print(f"xlate: error[E8002]: {problem}", file=err)
                return EXIT_USAGE
    return summary.exit_code


def dependencies(s: Summary) -> tuple[list[str], list[str]]:
    """(outputs, inputs) of a run for its depfile: every output file of every program
    (written now or kept from the cache), as OUTDIR/name, and every program it read -- those
    with errors too, so that fixing one reruns the batch -- in the run's sorted order.  Files
    that are not programs are not inputs."""
    outputs, inputs = [], []
    for e in s.entries:
        if e.skipped or e.record is None:
            continue
        inputs.append(e.display)
        outputs += [os.path.join(s.outdir, rel) for rel in e.record.get("outputs", ())]
    return outputs, inputs


def summary_line(s: Summary) -> str:
    c = s.counts
    rate = f", {c['translated'] / s.seconds:.1f} programs/s" if c["translated"] and s.seconds else ""
    odd = c.get("not_regular") or {}
    odd_text = (f" ({sum(odd.values())} not regular files: "
                + ", ".join(f"{n} {what}" for what, n in odd.items()) + ")") if odd else ""
    return (f"xlate batch: {c['programs']} programs: {c['ok']} ok ({c['warnings']} with warnings), "
            f"{c['errors']} with errors; {c['skipped']} other files skipped{odd_text}; "
            f"{c['translated']} translated, {c['cached']} unchanged (cache); "
            f"{s.seconds:.2f} s{rate}, {s.jobs} jobs"
            + (f" on cluster {s.cluster}" if s.cluster else ""))
