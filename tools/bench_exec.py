#!/usr/bin/env python3
"""Benchmark the executor on straight-line float ALU code, and compare with Mesa llvmpipe.

A 20-instruction NVvp4.0 vertex program of MAD/MUL/ADD/DP4/RSQ runs at 1M lanes on one core;
the executor's lane-instructions per second are printed.  When moderngl can open a
surfaceless EGL context (llvmpipe), the same program translated to GLSL
(``xlate.translate(src).glsl``) runs through transform feedback on the same inputs; its time,
the agreement of the two results and the ratio executor/llvmpipe are printed too.

    python tools/bench_exec.py [--lanes N] [--chunk N] [--repeat N] [--no-gl]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

# one core: keep BLAS/OpenMP pools (if any) from spreading out; NumPy ufuncs are single-threaded
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
os.environ.setdefault("EGL_PLATFORM", "surfaceless")   # before moderngl/EGL load

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import xlate  # noqa: E402
from xlate.exec import execute  # noqa: E402

SOURCE = """!!NVvp4.0
# 20 float ALU instructions: transform, normalize, a few MAD/ADD chains
PARAM mvp[4] = { state.matrix.mvp };
PARAM k = program.local[0];
ATTRIB pos = vertex.position;
ATTRIB nrm = vertex.normal;
TEMP R0, R1, R2;
DP4 result.position.x, mvp[0], pos;
DP4 result.position.y, mvp[1], pos;
DP4 result.position.z, mvp[2], pos;
DP4 result.position.w, mvp[3], pos;
MUL R0, nrm, k.x;
DP4 R1.x, R0, R0;
RSQ R1.y, R1.x;
MUL R0, R0, R1.y;
MAD R2, R0, k.y, pos;
ADD R2, R2, -R0.yzxw;
MAD R2, R2, R2, k.z;
MUL R1, R2, k.w;
ADD R1, R1, pos;
DP4 R0.w, R1, R2;
RSQ R0.z, R0.w;
MAD R1, R1, R0.z, R2;
MUL R2, R1, R1;
ADD R2, R2, k;
MAD R1, R2, R0.z, R1;
ADD result.color, R1, k.x;
END
"""


def make_inputs(n: int):
    rng = np.random.default_rng(1)
    inputs = {
        "vertex.position": np.concatenate([rng.random((n, 3), np.float32),
                                           np.ones((n, 1), np.float32)], axis=1),
        "vertex.normal": rng.random((n, 4), np.float32) - np.float32(0.5),
    }
    params = {
        "state.matrix.mvp.row": rng.random((4, 4), np.float32),
        "program.local[0]": np.array([0.5, 1.5, 0.25, 2.0], np.float32),
    }
    return inputs, params


def bench_executor(prog, inputs, params, chunk: int, repeat: int):
    best, res = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = execute(prog, inputs, params=params, chunk=chunk)
        best = min(best, time.perf_counter() - t0)
    return best, res


def bench_llvmpipe(inputs, params, repeat: int):
    """The translated GLSL through transform feedback on llvmpipe.  Returns (seconds per run
    including read-back, {binding: (n, 4) float32}, renderer) or raises on any problem."""
    import moderngl
    t = xlate.translate(SOURCE, validate=False)
    refl = t.reflection
    ctx = moderngl.create_context(standalone=True, backend="egl", require=450)
    # a surfaceless context has no default framebuffer: without an FBO bound, transform
    # feedback silently writes nothing (shared/design/toolchain.md §2.2)
    ctx.framebuffer(color_attachments=[ctx.renderbuffer((1, 1))]).use()
    outs = refl["outputs"]
    prog = ctx.program(vertex_shader=t.glsl, varyings=[o["name"] for o in outs])
    for u in refl["uniforms"]:
        if u["name"] not in prog:
            continue
        vals = np.zeros((u["array_size"] or 1, 4), np.float32)
        for e, b in u["elements"].items():
            if b in params:
                vals[int(e)] = params[b]
            elif b.startswith("state.matrix.mvp.row["):
                vals[int(e)] = params["state.matrix.mvp.row"][int(b[-2])]
        prog[u["name"]].write(vals.tobytes())
    n = len(next(iter(inputs.values())))
    content = []
    for i in refl["inputs"]:
        if i["name"] in prog:
            buf = ctx.buffer(np.ascontiguousarray(inputs[i["binding"]], np.float32).tobytes())
            content.append((buf, "4f", i["name"]))
    vao = ctx.vertex_array(prog, content)
    out = ctx.buffer(reserve=n * 16 * len(outs))
    vao.transform(out, mode=moderngl.POINTS, vertices=n)       # warm-up: JIT, allocation
    ctx.finish()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        vao.transform(out, mode=moderngl.POINTS, vertices=n)
        data = out.read()
        best = min(best, time.perf_counter() - t0)
    err = ctx.error
    if err != "GL_NO_ERROR":
        raise RuntimeError(err)
    arr = np.frombuffer(data, np.float32).reshape(n, len(outs), 4)
    renderer = ctx.info.get("GL_RENDERER", "?")
    ctx.release()
    return best, {o["binding"]: arr[:, k] for k, o in enumerate(outs)}, renderer


def max_ulp(a: np.ndarray, b: np.ndarray) -> int:
    ia = a.view(np.int32).astype(np.int64)
    ib = b.view(np.int32).astype(np.int64)
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return int(np.abs(ia - ib).max()) if a.size else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lanes", type=int, default=1 << 20)
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-gl", action="store_true", help="skip the llvmpipe comparison")
    args = ap.parse_args()

    prog = xlate.parse(SOURCE, filename="bench.vp")
    n_ins = len(prog.instructions)
    n = args.lanes
    inputs, params = make_inputs(n)
    ex_t, res = bench_executor(prog, inputs, params, args.chunk, args.repeat)
    count = n_ins * n
    ex_rate = count / ex_t
    print(f"executor: {n_ins} instructions x {n} lanes (chunk {args.chunk}): best of "
          f"{args.repeat}: {ex_t * 1e3:.1f} ms -> {ex_rate / 1e6:.1f} M lane-instructions/s")
    assert res.outputs["result.color"].shape == (n, 4)
    if args.no_gl:
        return
    try:
        gl_t, gl_out, renderer = bench_llvmpipe(inputs, params, args.repeat)
    except Exception as e:  # no moderngl, no EGL, no llvmpipe ...
        print(f"llvmpipe comparison skipped: {type(e).__name__}: {e}")
        return
    gl_rate = count / gl_t
    print(f"llvmpipe: the translated GLSL via transform feedback ({renderer}): best of "
          f"{args.repeat}: {gl_t * 1e3:.1f} ms (draw + read-back) -> "
          f"{gl_rate / 1e6:.1f} M lane-instructions/s")
    for b in ("result.position", "result.color"):
        ulp = max_ulp(res.float(b), gl_out[b])
        print(f"  {b}: max difference executor vs llvmpipe {ulp} ulp")
    print(f"executor/llvmpipe: {ex_rate / gl_rate:.3f} (time ratio {ex_t / gl_t:.2f}x)")


if __name__ == "__main__":
    main()
