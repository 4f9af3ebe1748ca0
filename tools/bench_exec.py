#!/usr/bin/env python3
"""Benchmark the executor on straight-line float ALU code.

Builds a ~20-instruction program of MAD/MUL/ADD/DP4/RSQ by hand (IR, no frontend), runs it at
1M lanes on one core and prints lane-instructions per second.

    python tools/bench_exec.py [--lanes N] [--chunk N] [--repeat N]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# one core: keep BLAS/OpenMP pools (if any) from spreading out; NumPy ufuncs are single-threaded
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from xlate.exec import execute  # noqa: E402
from xlate.ir.model import (Binding, DataType, Dest, Instruction, Program, Register,  # noqa: E402
                            RegKind, Source, Stage)

XYZW = (True, True, True, True)


def build_program() -> Program:
    regs = {
        "pos": Register("pos", RegKind.INPUT, bindings=(Binding("vertex.position"),)),
        "nrm": Register("nrm", RegKind.INPUT, bindings=(Binding("vertex.normal"),)),
        "mvp": Register("mvp", RegKind.PARAM, size=4,
                        bindings=tuple(Binding("state.matrix.mvp.row", i) for i in range(4))),
        "k": Register("k", RegKind.PARAM, bindings=(Binding("program.local", 0),)),
        "R0": Register("R0", RegKind.TEMP),
        "R1": Register("R1", RegKind.TEMP),
        "R2": Register("R2", RegKind.TEMP),
        "opos": Register("opos", RegKind.OUTPUT, bindings=(Binding("result.position"),)),
        "ocol": Register("ocol", RegKind.OUTPUT, bindings=(Binding("result.color"),)),
    }
    from xlate.ir.model import Index

    def s(reg, swz=(0, 1, 2, 3), neg=False, index=None):
        return Source(reg, Index(index) if index is not None else None, swizzle=swz, neg=neg)

    def d(reg, mask=XYZW):
        return Dest(reg, mask=mask)

    def i(op, dst, *srcs):
        return Instruction(op, DataType.FLOAT, dst, tuple(srcs))

    X, Y, Z, W = ((c,) * 4 for c in range(4))
    m = lambda c: tuple(j == c for j in range(4))  # noqa: E731
    code = [
        i("DP4", d("opos", m(0)), s("mvp", index=0), s("pos")),
        i("DP4", d("opos", m(1)), s("mvp", index=1), s("pos")),
        i("DP4", d("opos", m(2)), s("mvp", index=2), s("pos")),
        i("DP4", d("opos", m(3)), s("mvp", index=3), s("pos")),
        i("MUL", d("R0"), s("nrm"), s("k", X)),
        i("DP4", d("R1", m(0)), s("R0"), s("R0")),
        i("RSQ", d("R1", m(1)), s("R1", X)),
        i("MUL", d("R0"), s("R0"), s("R1", Y)),
        i("MAD", d("R2"), s("R0"), s("k", Y), s("pos")),
        i("ADD", d("R2"), s("R2"), s("R0", (1, 2, 0, 3), neg=True)),
        i("MAD", d("R2"), s("R2"), s("R2"), s("k", Z)),
        i("MUL", d("R1"), s("R2"), s("k", W)),
        i("ADD", d("R1"), s("R1"), s("pos")),
        i("DP4", d("R0", m(3)), s("R1"), s("R2")),
        i("RSQ", d("R0", m(2)), s("R0", W)),
        i("MAD", d("R1"), s("R1"), s("R0", Z), s("R2")),
        i("MUL", d("R2"), s("R1"), s("R1")),
        i("ADD", d("R2"), s("R2"), s("k")),
        i("MAD", d("ocol"), s("R2"), s("R0", Z), s("R1")),
        i("ADD", d("ocol", m(3)), s("ocol"), s("k", X)),
    ]
    return Program(Stage.VERTEX, "NVvp4.0", regs, code)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanes", type=int, default=1 << 20)
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    prog = build_program()
    rng = np.random.default_rng(1)
    n = args.lanes
    inputs = {
        "vertex.position": np.concatenate([rng.random((n, 3), np.float32),
                                           np.ones((n, 1), np.float32)], axis=1),
        "vertex.normal": rng.random((n, 4), np.float32) - 0.5,
    }
    params = {
        "state.matrix.mvp.row": rng.random((4, 4), np.float32),
        "program.local[0]": [0.5, 1.5, 0.25, 2.0],
    }
    best = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        res = execute(prog, inputs, params=params, chunk=args.chunk)
        best = min(best, time.perf_counter() - t0)
    count = len(prog.instructions) * n
    print(f"{len(prog.instructions)} instructions x {n} lanes (chunk {args.chunk}): "
          f"best of {args.repeat}: {best * 1e3:.1f} ms -> {count / best / 1e6:.1f} M lane-instructions/s")
    assert res.outputs["ocol"].shape == (n, 4)


if __name__ == "__main__":
    main()
