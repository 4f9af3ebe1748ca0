#!/usr/bin/env python3
"""Fuzz xlate: every input either translates to valid SPIR-V or is rejected with diagnostics.

    python tools/fuzz.py --inputs N [--seed S] [--jobs J] [--frontend nv|tgsi-text|tgsi-binary|all]
                         [--out DIR] [--engine builtin|atheris] [--slow 1.0] [--hard-timeout 10]
    python tools/fuzz.py --replay FILE        # run one saved input, print the outcome
    python tools/fuzz.py --reduce DIR         # shrink a saved failure (DIR/input.bin) in place

The invariant, per input: ``xlate.translate(data, target="spirv")`` returns a translation whose
SPIR-V is present and starts with the SPIR-V magic (translate validates it with SPIRV-Tools), or
raises ``xlate.XlateError`` whose diagnostics are well formed (a known code, a severity, at least
one error, ``file:line:col: error[E####]: message`` headers that render) and are not internal
errors (E7002 glslang rejected the GLSL, E7003 SPIR-V validation failed, E7005 internal error:
xlate bugs).  Anything else is a failure, of one of these kinds:

  crash        any other exception (RecursionError and MemoryError included)
  internal     an E7002/E7003/E7005 diagnostic
  diagnostic   a malformed diagnostic
  slow         the input took more than --slow seconds (timed twice, the faster run counts)
  timeout      the worker did not answer within --hard-timeout seconds (killed and restarted)
  died         the worker process died (a segfault in glslang, the memory limit...)

Inputs (a pure function of --seed and the input number, so a campaign is reproducible):

* ``gen``: grammar-aware random programs of every NV family and TGSI text (tools/fuzz_gen.py),
  sometimes mutated afterwards;
* ``mut``: byte-level mutation of programs of ../shared/corpus (and corpus/): bit flips, byte
  insert/delete, token and line splices between files, line duplication/deletion, number
  boundary substitution (0, -0, 1e38, 4294967295, huge indices), dictionary tokens, truncation;
* ``tgsi-binary``: corpus and generated TGSI encoded as token streams (seed and Mesa layouts,
  xlate.frontends.tgsi.binary), then word mutations (bit flips, interesting values, insert,
  delete, duplicate, truncate), the header's size field fixed up most of the time.

``--engine atheris`` (when ``pip install atheris`` worked) instead runs libFuzzer's
coverage-guided mutator through atheris, seeded with the same inputs, in --jobs processes; the
invariant and failure recording are the same.

Each input runs in a worker process (--jobs of them) under a hard timeout.  Failures are saved
under --out/failures/<kind>-<hash>/ (input.bin, traceback.txt, meta.json), deduplicated by kind +
exception type + innermost xlate source location (diagnostic code + message shape for
``internal``); for each key the smallest input is kept.  The summary gives inputs run, rate,
outcomes and failures by kind; --out/summary.json has the same.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import signal
import struct
import sys
import time
import traceback
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from shared_location import shared_dir  # noqa: E402  (XLATE_SHARED)
SHARED_CORPUS = shared_dir(ROOT) / "corpus"
FRONTENDS = ("nv", "tgsi-text", "tgsi-binary")
INTERNAL_CODES = ("E7002", "E7003", "E7005")
SPIRV_MAGIC = 0x07230203
_HEADER_RE = re.compile(r"^(?:.+:\d+:\d+: )?(?:error|warning|note)\[E\d{4}\]: \S")

# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------
NV_EXTS = (".vp", ".fp", ".gp")


@lru_cache(maxsize=None)
def corpus_files(frontend: str) -> tuple[Path, ...]:
    """Seed programs for ``frontend`` ("nv" or "tgsi-text"), sorted (deterministic): the
    shared corpus (without cgc's GLSL) when present, and the project's corpus/."""
    exts = NV_EXTS if frontend == "nv" else (".tgsi",)
    roots = [SHARED_CORPUS / "collected", SHARED_CORPUS / "cg", ROOT / "corpus"]
    files: list[Path] = []
    for root in roots:
        if root.is_dir():
            files += [p for p in root.rglob("*") if p.suffix in exts and p.is_file()]
    if frontend == "tgsi-text" and not files:
        files = []          # generated TGSI only (see seed_text)
    return tuple(sorted(files))


@lru_cache(maxsize=4096)
def _read(path: Path) -> bytes:
    return path.read_bytes()


def seed_text(frontend: str, rng: random.Random) -> bytes:
    """A corpus program of ``frontend`` (a generated one where no corpus exists)."""
    files = corpus_files(frontend)
    if files:
        return _read(rng.choice(files))
    import fuzz_gen
    dialect = "tgsi" if frontend == "tgsi-text" else rng.choice(
        [d for d, f in fuzz_gen.DIALECTS.items() if f == "nv"])
    return fuzz_gen.generate(dialect, rng, rng.randint(2, 16), wild=False).encode()


# ---------------------------------------------------------------------------------------------
# Byte-level mutator
# ---------------------------------------------------------------------------------------------
BOUNDARY_NUMBERS = [b"0", b"-0", b"1", b"-1", b"0.0", b"-0.0", b"1e38", b"-1e38", b"3.4028236e38",
                    b"1e39", b"1e-45", b"nan", b"inf", b"65535", b"65536", b"2147483647",
                    b"2147483648", b"-2147483648", b"4294967295", b"4294967296", b"99999999",
                    b"18446744073709551616", b"1" + b"0" * 40, b"0x7fffffff", b"0xffffffff",
                    b"255", b"256", b"1023", b"1024", b"4096", b"65537", b"9" * 12]
SPECIAL_BYTES = b"[]{}().,;:|-+*/#$!\"'\\ \t\r\n\x00\x7f\xff_=<>"
TOKENS = [b"IF", b"ELSE", b"ENDIF", b"REP", b"ENDREP", b"LOOP", b"ENDLOOP", b"BRK", b"CONT", b"CAL",
          b"RET", b"BRA", b"END", b"TEMP", b"PARAM", b"ATTRIB", b"OUTPUT", b"ALIAS", b"ADDRESS",
          b"OPTION", b"BUFFER", b"INT", b"UINT", b"FLAT", b"SHORT", b"LONG", b"DECLARE", b"DEFINE",
          b"main:", b"label:", b"TEX", b"TXF", b"KIL", b"EMIT", b"ENDPRIM", b"PRIMITIVE_IN",
          b"VERTICES_OUT", b".CC", b".SAT", b".S", b".U", b".F", b"C", b"_SAT", b"R", b"H",
          b"(GT.x)", b"(EQ)", b"NE.xyzw", b"c[A0.x + 3]", b"c[A0.x - 300]", b"[0..3]", b"[]",
          b"vertex.attrib[", b"result.color[", b"program.local[", b"state.matrix.mvp.row[",
          b"fragment.texcoord[", b"texture[", b"2D", b"CUBE", b"SHADOW2D", b"ARRAY2D", b"RECT",
          b"o[HPOS]", b"v[OPOS]", b"R15", b"A0.x", b"f[TEX0]", b"o[COLR]", b"p[0]",
          b"DCL", b"IMM", b"FLT32", b"UINT32", b"TEMP[", b"IN[", b"OUT[", b"CONST[", b"SAMP[",
          b"ADDR[0].x", b"SVIEW[", b"SV[", b"BGNLOOP", b"BGNSUB", b"ENDSUB", b"SWITCH", b"CASE",
          b"DEFAULT", b"ENDSWITCH", b"UIF", b"PROPERTY", b"GENERIC[", b"POSITION", b"COLOR",
          b":0", b"LOCAL", b"ARRAY(1)", b"_SAT", b"!!NVfp4.0", b"!!VP2.0", b"!!ARBvp1.0",
          b"!!ARBfp1.0", b"!!FP1.0", b"FRAG", b"VERT", b"GEOM", b"{1, 2, 3, 4}", b"|", b"-|"]
_NUM_RE = re.compile(rb"-?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+)")
_TOKEN_RE = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$.]*|\d+|\S")


def _mutate_once(data: bytearray, rng: random.Random, other: bytes) -> bytearray:
    n = len(data)
    r = rng.randrange(14)
    if r == 0 and n:                                   # bit flips
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(n)
            data[i] ^= 1 << rng.randrange(8)
    elif r == 1:                                       # byte insert
        i = rng.randint(0, n)
        b = rng.choice(SPECIAL_BYTES) if rng.random() < 0.7 else rng.randrange(256)
        data[i:i] = bytes([b]) * (1 if rng.random() < 0.9 else rng.randint(2, 64))
    elif r == 2 and n:                                 # byte delete (one or a range)
        i = rng.randrange(n)
        del data[i:i + (1 if rng.random() < 0.6 else rng.randint(2, 32))]
    elif r in (3, 4) and other:                        # token / line splice from another file
        otoks = _TOKEN_RE.findall(other) if r == 3 else other.splitlines(keepends=True)
        if otoks:
            k = rng.randrange(len(otoks))
            piece = (b" " if r == 3 else b"").join(otoks[k:k + rng.randint(1, 6)])
            i = _boundary(data, rng)
            if rng.random() < 0.5 and n:
                j = min(n, i + rng.randint(1, 24))
                data[i:j] = piece
            else:
                data[i:i] = piece
    elif r in (5, 6):                                  # line duplication / deletion / swap
        lines = bytes(data).splitlines(keepends=True)
        if lines:
            k = rng.randrange(len(lines))
            if r == 5:
                lines.insert(k, lines[rng.randrange(len(lines))] * (1 if rng.random() < 0.9
                                                                     else rng.randint(2, 200)))
            elif rng.random() < 0.7:
                del lines[k:k + rng.randint(1, 3)]
            else:
                j = rng.randrange(len(lines))
                lines[k], lines[j] = lines[j], lines[k]
            data = bytearray(b"".join(lines))
    elif r in (7, 8):                                  # number boundary substitution
        nums = list(_NUM_RE.finditer(bytes(data)))
        if nums:
            m = rng.choice(nums)
            data[m.start():m.end()] = rng.choice(BOUNDARY_NUMBERS)
    elif r == 9:                                       # dictionary token
        i = _boundary(data, rng)
        tok = rng.choice(TOKENS)
        data[i:i] = (b" " + tok + b" ") if rng.random() < 0.5 else tok
    elif r == 10 and n:                                # truncation
        del data[rng.randrange(n):]
    elif r == 11 and n:                                # replace a token by another of the file
        toks = list(_TOKEN_RE.finditer(bytes(data)))
        if len(toks) > 1:
            a, b = rng.sample(toks, 2)
            data[a.start():a.end()] = b.group()
    elif r == 12 and n:                                # block duplication (nesting, long lines)
        i = rng.randrange(n)
        j = min(n, i + rng.randint(1, 80))
        data[j:j] = bytes(data[i:j]) * rng.randint(1, 8)
    elif r == 13 and n:                                # swizzle / mask characters
        i = rng.randrange(n)
        data[i:i + 1] = bytes([rng.choice(b"xyzwrgba01.")])
    return data


def _boundary(data: bytearray, rng: random.Random) -> int:
    """An insertion point, at a token boundary most of the time."""
    n = len(data)
    if n == 0:
        return 0
    i = rng.randint(0, n)
    if rng.random() < 0.7:
        while i < n and data[i:i + 1] not in (b" ", b"\n", b",", b";", b"\t"):
            i += 1
    return i


def mutate(data: bytes, rng: random.Random, other: bytes = b"", max_size: int = 1 << 16) -> bytes:
    out = bytearray(data)
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 8])):
        out = _mutate_once(out, rng, other)
        if len(out) > max_size:
            del out[max_size:]
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# TGSI binary: encode, mutate words
# ---------------------------------------------------------------------------------------------
INTERESTING_WORDS = [0, 1, 2, 0xF, 0xFF, 0x100, 0x101, 0xFFFF, 0x10000, 0x7FFFFFFF, 0x80000000,
                     0xFFFFFFFF, 0xFFFFFFFE, 0x3F800000, 0x7F800000, 0x7FC00000, 0x00FFFFFF]


def encode_tgsi(text: bytes, rng: random.Random) -> bytes | None:
    """``text`` (TGSI) as a token stream in the seed or the modern layout, or None."""
    from xlate.diagnostics import DiagnosticSink
    from xlate.frontends.tgsi import binary
    from xlate.frontends.tgsi.text import parse_text
    try:
        src = text.decode("utf-8", "replace")
        shader = parse_text(src, DiagnosticSink("seed", src))
    except Exception:       # noqa: BLE001 - a crash here is found by the text campaign
        return None
    if shader is None:
        return None
    order = [binary.encode_seed, binary.encode_modern]
    if rng.random() < 0.5:
        order.reverse()
    for enc in order:
        try:
            return enc(shader)
        except ValueError:
            continue
    return None


def mutate_words(data: bytes, rng: random.Random) -> bytes:
    n = len(data) // 4
    w = list(struct.unpack(f"<{n}I", data[:n * 4]))
    seed = bool(w) and w[0] == 0x00000101
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        if not w:
            break
        r = rng.randrange(8)
        k = rng.randrange(len(w))
        if r == 0:
            w[k] ^= 1 << rng.randrange(32)
        elif r == 1:
            w[k] = rng.choice(INTERESTING_WORDS)
        elif r == 2:
            w[k] = rng.getrandbits(32)
        elif r == 3:
            w.insert(k, rng.choice(INTERESTING_WORDS + [w[rng.randrange(len(w))]]))
        elif r == 4:
            del w[k:k + rng.randint(1, 3)]
        elif r == 5:
            j = min(len(w), k + rng.randint(1, 8))
            w[j:j] = w[k:j] * rng.randint(1, 4)
        elif r == 6:
            del w[k + 1:]
        else:                        # a small field change: low bits of a token
            w[k] = (w[k] & ~0xFF) | rng.randrange(256)
    if w and rng.random() < 0.75:    # keep the header consistent so decoding goes deeper
        if seed and len(w) >= 3:
            hs = w[1] & 0xFF
            w[1] = hs | ((max(0, len(w) - 1 - hs) & 0xFFFFFF) << 8)
        elif not seed and len(w) >= 2:
            w[0] = 2 | ((len(w) - 2) & 0xFFFFFF) << 8
    out = struct.pack(f"<{len(w)}I", *w)
    if rng.random() < 0.05:
        out = out[:rng.randrange(len(out) + 1)]      # not a multiple of 4
    return out


# ---------------------------------------------------------------------------------------------
# Inputs: a pure function of (seed, number, frontend choice)
# ---------------------------------------------------------------------------------------------
def make_input(seed: int, number: int, frontend: str) -> tuple[bytes | str, dict]:
    import fuzz_gen
    rng = random.Random(f"xlate-fuzz:{seed}:{number}")
    fe = FRONTENDS[number % 3] if frontend == "all" else frontend
    meta = {"seed": seed, "number": number, "frontend": fe}
    if fe == "tgsi-binary":
        if rng.random() < 0.5:
            if corpus_files("tgsi-text"):
                text = seed_text("tgsi-text", rng)
            else:
                # no TGSI corpus (a clone without ../shared): valid programs of the
                # differential generator (ours) stand in, so both paths stay exercised
                from xlate.verify.generate import generate as valid_program
                text = valid_program("tgsi", rng.randrange(1 << 20),
                                     rng.choice(("vertex", "fragment", "geometry"))).encode()
            meta["method"] = "mut-binary"
        else:
            text = fuzz_gen.generate("tgsi", rng, rng.randint(1, 24)).encode()
            meta["method"] = "gen-binary"
        data = encode_tgsi(text, rng)
        if data is None:
            meta["method"] += "-rawbytes"
            data = struct.pack("<3I", 0x101, 2, 1) + mutate(text, rng)[:64]
        if rng.random() < 0.9:
            data = mutate_words(data, rng)
        return data, meta
    if rng.random() < 0.5:
        dialects = [d for d, f in fuzz_gen.DIALECTS.items() if f == fe]
        dialect = rng.choice(dialects)
        size = rng.choice([1, 3, 6, 10, 16, 24, 40])
        text = fuzz_gen.generate(dialect, rng, size)
        meta.update(method="gen", dialect=dialect)
        if rng.random() < 0.25:
            meta["method"] = "gen+mut"
            return mutate(text.encode(), rng, seed_text(fe, rng)), meta
        return text, meta
    meta["method"] = "mut"
    base = seed_text(fe, rng)
    other = seed_text(fe if rng.random() < 0.8 else rng.choice(["nv", "tgsi-text"]), rng)
    return mutate(base, rng, other), meta


# ---------------------------------------------------------------------------------------------
# Running one input (in a worker)
# ---------------------------------------------------------------------------------------------
def _location(tb) -> str:
    """The innermost frame inside the xlate package (else the innermost frame)."""
    frames = traceback.extract_tb(tb)
    pkg = str(ROOT / "xlate")
    inner = [f for f in frames if f.filename.startswith(pkg)] or frames
    if not inner:
        return "?"
    f = inner[-1]
    name = os.path.relpath(f.filename, ROOT) if f.filename.startswith(str(ROOT)) else f.filename
    return f"{name}:{f.lineno}:{f.name}"


def _shape(message: str) -> str:
    """A diagnostic message with numbers and quoted names blanked (dedup key)."""
    return re.sub(r"\d+", "#", message)[:160]


def check_one(data: bytes | str) -> dict:
    """Run the invariant on one input; returns {"status": ok|diag|fail, ...}.  The library's
    default SPIR-V path is xlate's own (direct, falling back to glslang where it does not cover
    the program); where the direct path made the module, the input is translated again through
    the GLSL and glslang, so both emitters are held to the invariant."""
    out, via = _check_via(data, "auto")
    if out["status"] == "ok" and via == "direct":
        out, _ = _check_via(data, "glsl")
        if out["status"] == "fail":
            out["key"] = f"via glsl: {out['key']}"
    return out


def _check_via(data: bytes | str, via: str) -> tuple[dict, str | None]:
    """The invariant through one SPIR-V path; (outcome, the path that made the module)."""
    out = _check_path(data, via)
    return out, out.pop("via", None)


def _check_path(data: bytes | str, via: str) -> dict:
    import xlate
    from xlate.diagnostics import CODES
    try:
        t = xlate.translate(data, filename="fuzz", target="spirv", via=via)
    except xlate.XlateError as e:
        problems = []
        errors = [d for d in e.diagnostics if d.severity == "error"]
        if not errors:
            problems.append("XlateError without an error diagnostic")
        for d in e.diagnostics:
            if d.code not in CODES or d.severity not in ("error", "warning", "note"):
                problems.append(f"unknown code/severity {d.code} {d.severity}")
            if d.span is not None and (d.span.line < 1 or d.span.col < 1):
                problems.append(f"bad span {d.span}")
            if not _HEADER_RE.match(d.header()):
                problems.append(f"malformed header {d.header()[:100]!r}")
        try:
            e.render()
        except Exception as r:      # noqa: BLE001
            return {"status": "fail", "kind": "crash", "key": f"render:{type(r).__name__}:"
                    f"{_location(r.__traceback__)}", "trace": traceback.format_exc()}
        internal = [d for d in errors if d.code in INTERNAL_CODES]
        if internal:
            d = internal[0]
            return {"status": "fail", "kind": "internal", "key": f"{d.code}:{_shape(d.message)}",
                    "trace": e.render()}
        if problems:
            return {"status": "fail", "kind": "diagnostic", "key": _shape(problems[0]),
                    "trace": "\n".join(problems) + "\n\n" + e.render()}
        return {"status": "diag", "code": errors[0].code if errors else ""}
    except BaseException as e:      # noqa: BLE001 - everything else is a finding
        if isinstance(e, KeyboardInterrupt):
            raise
        return {"status": "fail", "kind": "crash",
                "key": f"{type(e).__name__}:{_location(e.__traceback__)}",
                "trace": traceback.format_exc()}
    spv = t.spirv
    if not isinstance(spv, (bytes, bytearray)) or len(spv) < 20 or len(spv) % 4 or \
            struct.unpack("<I", spv[:4])[0] != SPIRV_MAGIC:
        return {"status": "fail", "kind": "crash", "key": "no valid SPIR-V returned",
                "trace": f"spirv={spv[:32]!r}"}
    return {"status": "ok", "via": getattr(t, "spirv_via", None)}


def timed_check(data, slow: float) -> dict:
    """check_one, timed.  An input is slow when it takes more than ``slow`` seconds of wall
    time *and* of CPU time in the faster of two runs: on a shared machine wall time alone
    also measures the neighbours (the CPU time is this input's own)."""
    t0, c0 = time.perf_counter(), time.process_time()
    res = check_one(data)
    el, cpu = time.perf_counter() - t0, time.process_time() - c0
    if el > slow:                   # time it again, the faster run counts
        t0, c0 = time.perf_counter(), time.process_time()
        check_one(data)
        el, cpu = min(el, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
        if el > slow and cpu > slow and res["status"] != "fail":
            res = {"status": "fail", "kind": "slow", "key": "slow",
                   "trace": f"{el:.3f} s wall, {cpu:.3f} s CPU for one input of {len(data)} "
                            f"bytes (limit {slow} s); outcome {res['status']} "
                            f"{res.get('code', '')}"}
    res["elapsed"] = el
    res["cpu"] = cpu
    return res


def _limit_memory(mb: int) -> None:
    if mb <= 0:
        return
    try:
        import resource
        lim = mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    except (ImportError, ValueError, OSError):
        pass


def worker_main(conn, seed: int, frontend: str, slow: float, mem_mb: int,
                selftest: tuple = ()) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _limit_memory(mem_mb)
    import xlate
    try:                              # warm up: imports, glslang, the parser caches
        xlate.translate("!!NVfp4.0\nMOV.F result.color, fragment.color;\nEND\n", target="spirv")
    except Exception:                 # noqa: BLE001
        pass
    conn.send(("ready", os.getpid()))
    while True:
        try:
            msg = conn.recv()
        except EOFError:
            return
        if msg is None:
            return
        number = msg
        data, meta = make_input(seed, number, frontend)
        if number in selftest:           # tests of the driver: this input hangs / dies
            if selftest[0] == "hang":
                time.sleep(3600)
            os._exit(77)
        res = timed_check(data, slow)
        if res["status"] == "fail":
            res["data"] = data if isinstance(data, bytes) else data.encode()
            res["meta"] = meta
        else:
            res["meta"] = {"frontend": meta["frontend"], "method": meta["method"]}
        conn.send((number, res))


# ---------------------------------------------------------------------------------------------
# Failure store
# ---------------------------------------------------------------------------------------------
class Store:
    def __init__(self, out: Path):
        self.dir = out / "failures"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.seen: dict[str, dict] = {}
        for meta_file in self.dir.glob("*/meta.json"):       # earlier campaigns into this --out
            try:
                m = json.loads(meta_file.read_text())
                self.seen[m["kind"] + "|" + m["key"]] = m
            except (OSError, ValueError, KeyError):
                pass
        self.new = 0

    def add(self, kind: str, key: str, data: bytes, trace: str, meta: dict) -> bool:
        full = kind + "|" + key
        digest = hashlib.sha1(full.encode()).hexdigest()[:10]
        folder = self.dir / f"{kind}-{digest}"
        old = self.seen.get(full)
        first = old is None
        if first:
            self.new += 1
        entry = old or {"kind": kind, "key": key, "count": 0, "first": meta}
        entry["count"] = entry.get("count", 0) + 1
        if first or len(data) < entry.get("size", 1 << 62):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "input.bin").write_bytes(data)
            (folder / "traceback.txt").write_text(trace)
            entry["size"] = len(data)
            entry["smallest"] = meta
        self.seen[full] = entry
        (folder / "meta.json").write_text(json.dumps(entry, indent=1, sort_keys=True))
        return first


# ---------------------------------------------------------------------------------------------
# Campaign driver (builtin engine)
# ---------------------------------------------------------------------------------------------
class _Worker:
    def __init__(self, ctx, args):
        self.parent, child = ctx.Pipe()
        selftest = tuple(getattr(args, "selftest", ()) or ())
        self.proc = ctx.Process(target=worker_main, args=(child, args.seed, args.frontend,
                                                           args.slow, args.mem_mb, selftest),
                                daemon=True)
        self.proc.start()
        child.close()
        self.busy: int | None = None
        self.since = 0.0
        self.ready = False

    def kill(self) -> None:
        try:
            self.proc.kill()
        except Exception:            # noqa: BLE001
            pass
        self.proc.join(5)
        self.parent.close()


def campaign(args) -> dict:
    import multiprocessing as mp
    from multiprocessing.connection import wait
    ctx = mp.get_context("spawn")
    out = Path(args.out)
    store = Store(out)
    workers = [_Worker(ctx, args) for _ in range(args.jobs)]
    stats = {"ok": 0, "diag": 0, "fail": 0}
    by_frontend: dict[str, dict[str, int]] = {}
    by_kind: dict[str, int] = {}
    codes: dict[str, int] = {}
    slowest = (0.0, None)
    total_time = 0.0
    next_number = args.start
    end = args.start + args.inputs
    done = 0
    t_start = time.perf_counter()
    last_report = t_start

    def record_failure(number: int, kind: str, key: str, data: bytes, trace: str, meta: dict):
        by_kind[kind] = by_kind.get(kind, 0) + 1
        stats["fail"] += 1
        fe = by_frontend.setdefault(meta.get("frontend", "?"), {"ok": 0, "diag": 0, "fail": 0})
        fe["fail"] += 1
        if store.add(kind, key, data, trace, meta) and not args.quiet:
            print(f"  new failure #{number}: {kind} {key}", flush=True)

    try:
        while done < args.inputs:
            if getattr(args, "max_seconds", 0) and time.perf_counter() - t_start > args.max_seconds:
                end = min(end, next_number)          # time is up: finish what is running
                if all(w.busy is None for w in workers):
                    break
            for w in workers:
                if w.ready and w.busy is None and next_number < end:
                    w.parent.send(next_number)
                    w.busy, w.since = next_number, time.perf_counter()
                    next_number += 1
            now = time.perf_counter()
            deadlines = [w.since + args.hard_timeout - now for w in workers if w.busy is not None]
            timeout = max(0.01, min(deadlines)) if deadlines else 1.0
            ready = wait([w.parent for w in workers] + [w.proc.sentinel for w in workers], timeout)
            now = time.perf_counter()
            for i, w in enumerate(list(workers)):
                lost = None
                if w.parent in ready:
                    try:
                        msg = w.parent.recv()
                    except (EOFError, OSError):
                        msg = None
                        lost = "died"
                    if msg is not None:
                        if msg[0] == "ready":
                            w.ready = True
                            continue
                        number, res = msg
                        w.busy = None
                        done += 1
                        el = res.get("elapsed", 0.0)
                        total_time += el
                        meta = res.get("meta", {})
                        if el > slowest[0]:
                            slowest = (el, number)
                        fe = by_frontend.setdefault(meta.get("frontend", "?"),
                                                    {"ok": 0, "diag": 0, "fail": 0})
                        if res["status"] == "fail":
                            record_failure(number, res["kind"], res["key"], res["data"],
                                           res["trace"], meta)
                        else:
                            stats[res["status"]] += 1
                            fe[res["status"]] += 1
                            if res["status"] == "diag":
                                codes[res["code"]] = codes.get(res["code"], 0) + 1
                        continue
                if lost is None and w.proc.sentinel in ready and not w.proc.is_alive():
                    lost = "died"
                if lost is None and w.busy is not None and now - w.since > args.hard_timeout:
                    lost = "timeout"
                if lost is None:
                    continue
                number = w.busy
                w.kill()
                workers[i] = _Worker(ctx, args)
                if number is None:
                    if not w.ready:
                        raise SystemExit("fuzz: a worker died while starting; see its stderr")
                    continue
                done += 1
                data, meta = make_input(args.seed, number, args.frontend)
                data = data if isinstance(data, bytes) else data.encode()
                code = w.proc.exitcode
                trace = (f"no answer within {args.hard_timeout} s" if lost == "timeout"
                         else f"worker exited with code {code}")
                record_failure(number, lost, lost if lost == "timeout" else f"exit {code}",
                               data, trace, meta)
            if not args.quiet and time.perf_counter() - last_report > args.progress:
                last_report = time.perf_counter()
                el = last_report - t_start
                print(f"  {done} inputs, {done / el:.0f}/s, failures {stats['fail']} "
                      f"({len(store.seen)} distinct)", flush=True)
    finally:
        for w in workers:
            try:
                if w.proc.is_alive():
                    w.parent.send(None)
            except (OSError, BrokenPipeError):
                pass
        for w in workers:
            w.proc.join(2)
            if w.proc.is_alive():
                w.kill()
    wall = time.perf_counter() - t_start
    summary = {
        "engine": "builtin", "seed": args.seed, "start": args.start, "inputs": done,
        "frontend": args.frontend, "jobs": args.jobs, "wall_s": round(wall, 2),
        "rate_per_s": round(done / wall, 1) if wall else 0.0,
        "mean_input_ms": round(1000 * total_time / max(done, 1), 2),
        "slowest_s": round(slowest[0], 3), "slowest_input": slowest[1],
        "outcomes": stats, "by_frontend": by_frontend, "failures_by_kind": by_kind,
        "distinct_failures": {k: v["count"] for k, v in sorted(store.seen.items())},
        "new_distinct_failures": store.new,
        "top_diagnostic_codes": dict(sorted(codes.items(), key=lambda kv: -kv[1])[:12]),
    }
    summary["next_start"] = args.start + done
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    with open(out / "campaigns.jsonl", "a") as log:     # every chunk of a long campaign
        log.write(json.dumps({k: summary[k] for k in ("engine", "seed", "start", "inputs",
                                                       "frontend", "wall_s", "rate_per_s",
                                                       "failures_by_kind")}) + "\n")
    return summary


def print_summary(s: dict) -> None:
    print(f"inputs run: {s['inputs']} in {s['wall_s']} s  ({s['rate_per_s']}/s with "
          f"{s['jobs']} jobs; {s['mean_input_ms']} ms per input; slowest {s['slowest_s']} s, "
          f"input #{s['slowest_input']})")
    o = s["outcomes"]
    if s["engine"] == "atheris":
        print("outcomes: not counted by the atheris engine (libFuzzer runs the inputs); "
              "failures are in the store below")
    else:
        print(f"outcomes: {o['ok']} translated, {o['diag']} rejected with diagnostics, "
              f"{o['fail']} failures")
    for fe, c in sorted(s["by_frontend"].items()):
        print(f"  {fe:12s} ok {c['ok']:7d}  diag {c['diag']:7d}  fail {c['fail']:5d}")
    if s["failures_by_kind"]:
        print("failures by kind: " + ", ".join(f"{k} {v}" for k, v in
                                               sorted(s["failures_by_kind"].items())))
    if s["distinct_failures"]:
        print(f"distinct failures ({len(s['distinct_failures'])}, "
              f"{s['new_distinct_failures']} new):")
        for k, v in s["distinct_failures"].items():
            print(f"  {v:6d}  {k}")
    else:
        print("no failures")


# ---------------------------------------------------------------------------------------------
# atheris engine (coverage-guided; libFuzzer's mutator)
# ---------------------------------------------------------------------------------------------
def atheris_campaign(args) -> dict:
    """Run --jobs libFuzzer processes (atheris), seeded with inputs of the builtin generators;
    each counts its runs; failures land in the same store."""
    import subprocess
    out = Path(args.out)
    seeds = out / "atheris-seeds"
    seeds.mkdir(parents=True, exist_ok=True)
    for n in range(args.start, args.start + 300):
        data, _ = make_input(args.seed, n, args.frontend)
        (seeds / f"s{n}").write_bytes(data if isinstance(data, bytes) else data.encode())
    per_job = max(1, args.inputs // args.jobs)
    procs = []
    t0 = time.perf_counter()
    for j in range(args.jobs):
        work = out / f"atheris-corpus-{j}"
        work.mkdir(exist_ok=True)
        cmd = [sys.executable, __file__, "--atheris-child", "--out", str(out),
               "--slow", str(args.slow), "--", f"-runs={per_job}", f"-seed={args.seed + j + 1}",
               f"-timeout={int(args.hard_timeout)}", f"-rss_limit_mb={args.mem_mb or 4096}",
               "-max_len=65536", f"-artifact_prefix={out}/atheris-artifact-{j}-",
               *([f"-max_total_time={int(args.max_seconds)}"] if args.max_seconds else []),
               "-print_final_stats=1", str(work), str(seeds)]
        log = open(out / f"atheris-{j}.log", "w")
        procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), log))
    runs = 0
    for p, log in procs:
        p.wait()
        log.close()
    for j in range(args.jobs):
        text = (out / f"atheris-{j}.log").read_text(errors="replace")
        m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", text)
        runs += int(m[-1]) if m else 0
    wall = time.perf_counter() - t0
    store = Store(out)
    summary = {"engine": "atheris", "seed": args.seed, "start": args.start, "inputs": runs,
               "frontend": args.frontend, "jobs": args.jobs, "wall_s": round(wall, 2),
               "rate_per_s": round(runs / wall, 1), "mean_input_ms": 0.0, "slowest_s": 0.0,
               "slowest_input": None, "outcomes": {"ok": 0, "diag": 0, "fail": 0},
               "by_frontend": {}, "failures_by_kind": {},
               "distinct_failures": {k: v["count"] for k, v in sorted(store.seen.items())},
               "new_distinct_failures": 0, "top_diagnostic_codes": {}}
    (out / "summary-atheris.json").write_text(json.dumps(summary, indent=1))
    with open(out / "campaigns.jsonl", "a") as log:
        log.write(json.dumps({k: summary[k] for k in ("engine", "seed", "start", "inputs",
                                                       "frontend", "wall_s", "rate_per_s",
                                                       "failures_by_kind")}) + "\n")
    return summary


def atheris_child(args, libfuzzer_argv: list[str]) -> None:
    import atheris
    with atheris.instrument_imports(include=["xlate"]):
        import xlate  # noqa: F401
        import xlate.api, xlate.frontends, xlate.frontends.nv.frontend  # noqa: F401,E401
        import xlate.frontends.tgsi.lower, xlate.frontends.tgsi.binary  # noqa: F401,E401
        import xlate.backends.glsl, xlate.passes.structurize  # noqa: F401,E401
    store = Store(Path(args.out))

    def one(data: bytes) -> None:
        res = timed_check(data, args.slow)
        if res["status"] == "fail":
            store.add(res["kind"], res["key"], data, res["trace"], {"engine": "atheris"})

    atheris.Setup([sys.argv[0]] + libfuzzer_argv, one)
    atheris.Fuzz()


# ---------------------------------------------------------------------------------------------
# Replay and reduce
# ---------------------------------------------------------------------------------------------
def replay(path: Path, slow: float) -> int:
    data = path.read_bytes()
    res = timed_check(data, slow)
    print(f"{path}: {res['status']} {res.get('kind', '')} {res.get('key', res.get('code', ''))} "
          f"({res['elapsed'] * 1000:.1f} ms)")
    if res["status"] == "fail":
        print(res["trace"])
    return 1 if res["status"] == "fail" else 0


def reduce(folder: Path, slow: float) -> int:
    """Delta-debugging over lines, then tokens, then bytes, keeping the failure key."""
    meta = json.loads((folder / "meta.json").read_text())
    data = (folder / "input.bin").read_bytes()
    want = (meta["kind"], meta["key"])
    if want[0] in ("timeout", "died"):
        print("reduce: timeouts and dead workers are not reduced in-process")
        return 2

    def fails(d: bytes) -> bool:
        r = timed_check(d, slow) if want[0] == "slow" else check_one(d)
        return r["status"] == "fail" and (r["kind"], r["key"]) == want

    if not fails(data):
        print("reduce: the saved input does not reproduce its failure")
        return 1

    def ddmin(parts: list[bytes], join: bytes) -> list[bytes]:
        n = 2
        while len(parts) >= 2:
            chunk = max(1, len(parts) // n)
            progress = False
            for i in range(0, len(parts), chunk):
                cand = parts[:i] + parts[i + chunk:]
                if cand and fails(join.join(cand)):
                    parts = cand
                    n = max(n - 1, 2)
                    progress = True
                    break
            if not progress:
                if chunk == 1:
                    break
                n = min(len(parts), n * 2)
        return parts

    lines = ddmin(data.splitlines(keepends=True), b"")
    data = b"".join(lines)
    toks = re.split(rb"(?<=[ ,;\n])", data)
    data = b"".join(ddmin(toks, b""))
    if len(data) < 2000:
        data = b"".join(ddmin([bytes([b]) for b in data], b""))
    (folder / "input.min.bin").write_bytes(data)
    print(f"reduced to {len(data)} bytes: {folder / 'input.min.bin'}")
    print(data.decode("utf-8", "replace"))
    return 0


# ---------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra: list[str] = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--inputs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--start", type=int, default=0, help="first input number (resume a campaign)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--frontend", choices=FRONTENDS + ("all",), default="all")
    p.add_argument("--out", default="fuzz-out")
    p.add_argument("--engine", choices=("builtin", "atheris"), default="builtin")
    p.add_argument("--slow", type=float, default=1.0, help="seconds one input may take")
    p.add_argument("--hard-timeout", type=float, default=10.0,
                   help="seconds before a worker is killed (hang)")
    p.add_argument("--mem-mb", type=int, default=3072, help="address-space limit per worker")
    p.add_argument("--progress", type=float, default=30.0, help="seconds between progress lines")
    p.add_argument("--max-seconds", type=float, default=0.0,
                   help="stop starting inputs after this many seconds (chunks of a long campaign; "
                        "the summary gives next_start)")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--replay", type=Path)
    p.add_argument("--reduce", type=Path)
    p.add_argument("--atheris-child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.slow)
    if args.reduce:
        return reduce(args.reduce, args.slow)
    if args.atheris_child:
        atheris_child(args, extra)
        return 0
    Path(args.out).mkdir(parents=True, exist_ok=True)
    if args.engine == "atheris":
        try:
            import atheris  # noqa: F401
        except ImportError:
            print("fuzz: atheris is not installed (pip install atheris); use --engine builtin",
                  file=sys.stderr)
            return 2
        s = atheris_campaign(args)
    else:
        s = campaign(args)
    print_summary(s)
    return 1 if s["failures_by_kind"] else 0


if __name__ == "__main__":
    sys.exit(main())
