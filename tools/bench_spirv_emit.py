#!/usr/bin/env python3
"""Word-level emission vs SPIR-V assembly text assembled in-process (issue 19's choice).

For each program the direct backend covers: (b) the time of ``emit_spirv`` (the whole direct
backend: middle end, interface plan, instruction templates, words joined); (a) the time
SPIRV-Tools' in-process assembler (``spvTextToBinary``) takes for the same module written as
assembly text (spirv-dis's text of (b)'s module, so exactly the same instructions).  The text
route would pay (a) ON TOP of a generator doing the same work as (b) but formatting text
instead of packing integers, so (a) against (b) says whether assembling text can ever be the
faster route.  Prints medians and totals.

Run:  python tools/bench_spirv_emit.py [--limit N]
"""
from __future__ import annotations

import argparse
import ctypes as C
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from shared_location import shared_dir  # noqa: E402

from xlate.backends import spirv as sp  # noqa: E402
from xlate.backends.spirv_direct import NotCovered, emit_spirv  # noqa: E402
from xlate.frontends import parse_program  # noqa: E402


def assembler():
    tools = sp._spvtools()
    lib = tools.lib

    class Binary(C.Structure):
        _fields_ = [("code", C.POINTER(C.c_uint32)), ("wordCount", C.c_size_t)]
    lib.spvTextToBinary.restype = C.c_int
    lib.spvTextToBinary.argtypes = [C.c_void_p, C.c_char_p, C.c_size_t, C.POINTER(C.POINTER(Binary)),
                                    C.POINTER(tools.PDiag)]
    lib.spvBinaryDestroy.argtypes = [C.POINTER(Binary)]
    ctx = tools.contexts["vulkan"]

    def assemble(text: bytes) -> bytes:
        out, diag = C.POINTER(Binary)(), tools.PDiag()
        rc = lib.spvTextToBinary(ctx, text, len(text), C.byref(out), C.byref(diag))
        if rc != 0:
            raise ValueError(tools._take_diag(diag, rc, "spvTextToBinary"))
        words = C.string_at(out.contents.code, 4 * out.contents.wordCount)
        lib.spvBinaryDestroy(out)
        return words
    return assemble


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    corpus = shared_dir(ROOT) / "corpus"
    files = []
    for sub in ("cg/arbfp1", "cg/arbvp1", "cg/fp40", "cg/gp4vp", "collected/arbfp", "collected/nvvp1.0"):
        files += sorted((corpus / sub).rglob("*.*p"))[: args.limit // 6]
    assemble = assembler()
    emit_t, asm_t, words_n = [], [], []
    for f in files:
        try:
            prog = parse_program(f.read_text(errors="replace"), f.name)
            emit_spirv(prog, "vulkan")
        except (NotCovered, Exception):     # noqa: BLE001 - only covered programs are timed
            continue
        best_e = best_a = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            words = emit_spirv(prog, "vulkan").spirv
            best_e = min(best_e, time.perf_counter() - t0)
        text = sp.disassemble_spirv(words).encode()
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            back = assemble(text)
            best_a = min(best_a, time.perf_counter() - t0)
        assert len(back) == len(words), f.name
        emit_t.append(best_e)
        asm_t.append(best_a)
        words_n.append(len(words) // 4)
    ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
    print(f"{len(emit_t)} programs, median module {statistics.median(words_n):.0f} words")
    print(f"(b) word-level emit_spirv (whole backend): median {ms(emit_t):.3f} ms, "
          f"total {1000 * sum(emit_t):.1f} ms")
    print(f"(a) spvTextToBinary of the same module's text alone: median {ms(asm_t):.3f} ms, "
          f"total {1000 * sum(asm_t):.1f} ms")
    print(f"assembling alone / whole word-level backend: median "
          f"{statistics.median(a / e for a, e in zip(asm_t, emit_t)):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
