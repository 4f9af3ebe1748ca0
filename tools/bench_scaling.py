#!/usr/bin/env python3
"""Scaling: does xlate's work grow linearly with the program?

For each case a program of size n and the same program 8x longer (8n) are translated to
validated SPIR-V (parse + passes + GLSL + glslang + spirv-val) and run in the executor
(the parsed program on 256 lanes: binding, compile, run); the ratios 8n/n are printed.  Goal
(issue 8): <= 9x.  The glslang and spirv-val columns are the two libraries' own growth:
glslang's call-graph checks compare every call edge with every other, so GLSL of many
functions grows quadratically there; xlate splices the subroutines called from one place into
their caller (nv4-calls), one called from several places stays a function.  Each measurement
is the best of --repeat runs, the n and 8n programs taking turns (this machine's speed
drifts).

Cases:
  nv4-alu        NVfp4.0, a block of 10 ALU instructions repeated
  arbfp          ARBfp1.0, the same block (the ARB instruction limit bounds 8n)
  tgsi           TGSI text, the same arithmetic
  nv4-if         NVfp4.0, a sequence of IF/ELSE/ENDIF blocks
  nv4-calls      NVfp4.0, n subroutines called one after the other from the main program,
                 each calling one shared leaf subroutine (spliced in but the leaf; a chain
                 would be cut at the call-depth limit of 4)
  structurizer   ARBvp1.0 + NV_vertex_program2: labels and conditional forward branches
                 (the dominator-tree structurizer, or the dispatch loop past its depth limit)
  labels         labels without branches (fall-through markers; folded into one block)
  dispatch       an irreducible graph of labels and branches (the dispatch loop)
  nested-skips   ARBvp1.0 + NV_vertex_program3: groups of BRAs to labels placed in reverse
                 (blocks nested 20 deep), n groups one after the other
  nested-loops   the same with backward branches: n nests of 4 loops, each nest skipped by a
                 branch around it (else the code after a loop is structured inside the loop and
                 every nest would add levels)
  (Nesting deeper, not longer, grows the GLSL text quadratically by its indentation, up to
  the structurizer's bound of 160 levels; tests/test_structurize_cfg.py counts the
  structurizer's own work for deeper and deeper graphs.)

Deep nesting that the frontends reject (E4005, one error at the first block past the limit):
the time to the rejection, n and 8n nesting levels (nv4-deep-if, nv4-deep-rep, fp2-deep-loop,
tgsi-deep-if).  The same goal; counting the open blocks at every IF made these quadratic.

Then the largest inputs: a program at the NV statement limit (131,072), a TGSI program at the
65,536-instruction limit, and 10 MB inputs (rejected before parsing), with their times.

    python tools/bench_scaling.py [--n N] [--repeat R] [--no-exec] [--no-largest]
"""
from __future__ import annotations

import argparse
import gc
import itertools
import os
import sys
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import xlate  # noqa: E402

ALU = ["MUL{t} R0, R1, c[0];", "MAD{t} R1, R0, c[1], R2;", "ADD{t} R2, R1, -R0.yzxw;",
       "DP4{t} R3.x, R2, R1;", "RSQ{t} R3.y, R3.x;", "MUL{t} R0, R2, R3.y;",
       "MAX{t} R1, R0, c[2];", "MIN{t} R2, R1, c[3];", "FRC{t} R3, R2;", "ADD{t} R1, R3, R0;"]


def nv4_alu(n: int) -> str:
    body = "\n".join(i.format(t=".F") for i in ALU) + "\n"
    return ("!!NVfp4.0\nPARAM c[4] = { program.local[0..3] };\nTEMP R0, R1, R2, R3;\n"
            "MOV.F R1, fragment.texcoord[0];\nMOV.F R2, fragment.color;\n" + body * n +
            "MOV.F result.color, R1;\nEND\n")


def arbfp(n: int) -> str:
    body = "\n".join(i.format(t="") for i in ALU) + "\n"
    return ("!!ARBfp1.0\nPARAM c[4] = { program.local[0..3] };\nTEMP R0, R1, R2, R3;\n"
            "MOV R1, fragment.texcoord[0];\nMOV R2, fragment.color;\n" + body * n +
            "MOV result.color, R1;\nEND\n")


def tgsi(n: int) -> str:
    body = ("  MUL TEMP[0], TEMP[1], CONST[0]\n  MAD TEMP[1], TEMP[0], CONST[1], TEMP[2]\n"
            "  ADD TEMP[2], TEMP[1], -TEMP[0].yzxw\n  DP4 TEMP[3].x, TEMP[2], TEMP[1]\n"
            "  RSQ TEMP[3].y, TEMP[3].xxxx\n  MUL TEMP[0], TEMP[2], TEMP[3].yyyy\n"
            "  MAX TEMP[1], TEMP[0], CONST[2]\n  MIN TEMP[2], TEMP[1], CONST[3]\n"
            "  FRC TEMP[3], TEMP[2]\n  ADD TEMP[1], TEMP[3], TEMP[0]\n")
    return ("FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], COLOR, COLOR\nDCL OUT[0], COLOR\n"
            "DCL CONST[0..3]\nDCL TEMP[0..3]\n  MOV TEMP[1], IN[0]\n  MOV TEMP[2], IN[1]\n" +
            body * n + "  MOV OUT[0], TEMP[1]\n  END\n")


def nv4_if(n: int) -> str:
    block = ("MOV.F.CC R3.x, R1.x;\nIF GT.x;\nMAD.F R1, R1, c[0], c[1];\nELSE;\n"
             "ADD.F R1, R1, c[2];\nENDIF;\n")
    return ("!!NVfp4.0\nPARAM c[4] = { program.local[0..3] };\nTEMP R0, R1, R2, R3;\n"
            "MOV.F R1, fragment.texcoord[0];\n" + block * n + "MOV.F result.color, R1;\nEND\n")


def nv4_calls(n: int) -> str:
    calls = "".join(f"CAL s{i};\n" for i in range(n))
    subs = "".join(f"s{i}: MAD.F R1, R1, c[0], c[1];\nCAL leaf;\nRET;\n" for i in range(n))
    return ("!!NVfp4.0\nPARAM c[4] = { program.local[0..3] };\nTEMP R1;\n"
            "MOV.F R1, fragment.texcoord[0];\n" + calls + "MOV.F result.color, R1;\nRET;\n" +
            subs + "leaf: ADD.F R1, R1, c[2];\nRET;\nEND\n")


def structurizer(n: int) -> str:
    body = "".join(f"L{i}: ADD R0, R0, c[{i % 4}];\nMOVC R1.x, R0.x;\nBRA L{i + 1} (GT.x);\n"
                   f"MUL R0, R0, c[1];\n" for i in range(n))
    return ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nPARAM c[4] = { program.env[0..3] };\n"
            "TEMP R0, R1;\nMOV R0, vertex.position;\n" + body +
            f"L{n}: MOV result.position, R0;\nEND\n")


def labels(n: int) -> str:
    body = "".join(f"L{i}: ADD R0, R0, c[{i % 4}];\n" for i in range(n))
    return ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nPARAM c[4] = { program.env[0..3] };\n"
            "TEMP R0;\nMOV R0, vertex.position;\n" + body + "MOV result.position, R0;\nEND\n")


def irreducible(n: int) -> str:
    """Branches into each other's middle: irreducible, the dispatch loop."""
    body = "".join(f"L{i}: ADD R0, R0, c[{i % 4}];\nMOVC R1.x, R0.x;\nBRA L{(i * 7 + 3) % n} (GT.x);\n"
                   for i in range(n))
    return ("!!ARBvp1.0\nOPTION NV_vertex_program2;\nPARAM c[4] = { program.env[0..3] };\n"
            "TEMP R0, R1;\nMOV R0, vertex.position;\n" + body + "MOV result.position, R0;\nEND\n")


def nested_skips(n: int, depth: int = 20) -> str:
    def group(g):
        return "".join(f"BRA L{g}_{i} (GT.x);\nADD R0, R0, c[{i % 4}];\n"
                       for i in range(depth)) + \
            "".join(f"L{g}_{depth - 1 - i}: MUL R0, R0, c[{i % 4}];\n" for i in range(depth))
    return ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nPARAM c[4] = { program.env[0..3] };\n"
            "TEMP R0;\nMOVC R0, vertex.position;\n" + "".join(group(g) for g in range(n)) +
            "MOV result.position, R0;\nEND\n")


def nested_loops(n: int, depth: int = 4) -> str:
    def group(g):
        return f"BRA E{g} (LT.y);\n" + \
            "".join(f"L{g}_{i}: ADD R0, R0, c[{i % 4}];\n" for i in range(depth)) + \
            "".join(f"ADDC R1.x, R1.x, -one.x;\nBRA L{g}_{depth - 1 - i} (GT.x);\n"
                    for i in range(depth)) + f"E{g}:\n"
    return ("!!ARBvp1.0\nOPTION NV_vertex_program3;\nPARAM c[4] = { program.env[0..3] };\n"
            "PARAM one = { 1, 1, 1, 1 };\n"
            "TEMP R0, R1;\nMOV R0, vertex.position;\nMOV R1, vertex.attrib[1];\n" +
            "".join(group(g) for g in range(n)) + "MOV result.position, R0;\nEND\n")


def deep(head: str, open_: str, inner: str, close: str, tail: str):
    return lambda n: head + open_ * n + inner + close * n + tail


# name -> (generator, n of the small program)
REJECTED = {
    "nv4-deep-if": (deep("!!NVfp4.0\nTEMP R0;\nMOV.F.CC R0, fragment.color;\n", "IF GT.x;\n",
                         "MOV.F R0, 1;\n", "ENDIF;\n", "MOV.F result.color, R0;\nEND\n"), 1000),
    "nv4-deep-rep": (deep("!!NVfp4.0\nTEMP R0;\nMOV.F R0, fragment.color;\n", "REP 2;\n",
                          "ADD.F R0, R0, 1;\n", "ENDREP;\n", "MOV.F result.color, R0;\nEND\n"),
                     1000),
    "fp2-deep-loop": (deep("!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP R0;\n"
                           "MOV R0, fragment.color;\n", "LOOP {2, 0, 1};\n", "ADD R0, R0, 1;\n",
                           "ENDLOOP;\n", "MOV result.color, R0;\nEND\n"), 1000),
    "tgsi-deep-if": (deep("FRAG\nDCL IN[0], COLOR, COLOR\nDCL OUT[0], COLOR\nDCL TEMP[0]\n"
                          "  MOV TEMP[0], IN[0]\n", "  IF TEMP[0].xxxx\n",
                          "  ADD TEMP[0], TEMP[0], IN[0]\n", "  ENDIF\n",
                          "  MOV OUT[0], TEMP[0]\n  END\n"), 1000),
}

CASES = {
    "nv4-alu": (nv4_alu, 40), "arbfp": (arbfp, 40), "tgsi": (tgsi, 40), "nv4-if": (nv4_if, 60),
    "nv4-calls": (nv4_calls, 300), "structurizer": (structurizer, 9), "labels": (labels, 300),
    "dispatch": (irreducible, 40), "nested-skips": (nested_skips, 4),
    "nested-loops": (nested_loops, 4),
}


def best_pair(fn, small, big, repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` seconds of fn(small) and fn(big), measured in turns."""
    times: tuple[list, list] = ([], [])
    for _ in range(repeat):
        for arg, out in zip((small, big), times):
            gc.collect()
            t = time.perf_counter()
            fn(arg)
            out.append(time.perf_counter() - t)
    return min(times[0]), min(times[1])


def exec_inputs(prog, lanes: int = 256):
    """Random inputs and parameters for every input and parameter binding of ``prog``."""
    import numpy as np
    rng = np.random.default_rng(1)
    inputs = {}
    for reg in prog.registers.values():
        if reg.kind.name == "INPUT" and reg.bindings and reg.bindings[0] is not None:
            shape = (lanes, reg.size, 4) if reg.size else (lanes, 4)
            inputs[reg.bindings[0].text() if reg.size is None else reg.name] = \
                rng.uniform(-1, 1, shape).astype(np.float32)
    params = {path: rng.uniform(-1, 1, (4, 4)).astype(np.float32)
              for path in {b.path for r in prog.registers.values() if r.kind.name == "PARAM"
                           for b in r.bindings if b is not None}}
    return prog, inputs, params, lanes


def run_exec(case) -> None:
    prog, inputs, params, lanes = case
    xlate.execute(prog, inputs, lanes=lanes, params=params)


def rejected(src: str) -> str:
    """Translate an input xlate rejects; its diagnostic codes and how many."""
    try:
        xlate.translate(src, target="spirv")
    except xlate.XlateError as e:
        codes: dict[str, int] = {}
        for d in e.diagnostics:
            codes[d.code] = codes.get(d.code, 0) + 1
        return " ".join(f"{k} x{v}" for k, v in sorted(codes.items()))
    return "translated"


def stages(srcs: tuple[str, ...], repeat: int) -> list[dict[str, float]]:
    """Best-of-``repeat`` seconds of each stage of a validated SPIR-V translation, per source
    (the sources take turns)."""
    from xlate.api import SPIRV_STAGE
    from xlate.backends import spirv as sp
    from xlate.backends.glsl import emit_glsl
    bests: list[dict[str, float]] = [{} for _ in srcs]
    for _, (src, best) in itertools.product(range(repeat), zip(srcs, bests)):
        gc.collect()
        t0 = time.perf_counter()
        prog = xlate.parse(src)
        t1 = time.perf_counter()
        glsl = emit_glsl(prog, "vulkan").source
        t2 = time.perf_counter()
        words = sp.compile_glsl(glsl, SPIRV_STAGE[prog.stage], target="vulkan")
        t3 = time.perf_counter()
        assert sp.validate_spirv(words, target="vulkan") is None
        t4 = time.perf_counter()
        for k, v in (("parse", t1 - t0), ("glsl", t2 - t1), ("glslang", t3 - t2),
                     ("spirv-val", t4 - t3), ("total", t4 - t0)):
            best[k] = min(best.get(k, v), v)
    return bests


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every case's n")
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (best counts)")
    ap.add_argument("--no-exec", action="store_true")
    ap.add_argument("--no-largest", action="store_true")
    ap.add_argument("--case", action="append", help="run only these cases")
    args = ap.parse_args()
    xlate.translate(nv4_alu(1), target="spirv")          # warm up (imports, glslang)
    print("ratio = time(8n) / time(n); per stage: parse (frontend), glsl (passes + GLSL), "
          "glslang, spirv-val (SPIRV-Tools)")
    print(f"{'case':13s} {'n':>5s} {'8n':>5s} {'total n':>9s} {'8n':>9s} {'ratio':>6s} | "
          f"{'parse':>6s} {'glsl':>6s} {'glslang':>7s} {'val':>6s} | {'exec n':>8s} {'8n':>8s} "
          f"{'ratio':>6s}  mode")
    worst = {"total": 0.0, "parse": 0.0, "glsl": 0.0, "exec": 0.0}
    for name, (gen, n) in CASES.items():
        if args.case and name not in args.case:
            continue
        n = max(1, int(n * args.scale))
        small, big = gen(n), gen(8 * n)
        a, b = stages((small, big), args.repeat)
        from xlate.passes.structurize import structurize
        mode = structurize(xlate.parse(big)).mode
        r = {k: b[k] / a[k] for k in a}
        for k in ("total", "parse", "glsl"):
            worst[k] = max(worst[k], r[k])
        line = (f"{name:13s} {n:5d} {8 * n:5d} {a['total'] * 1000:7.1f}ms {b['total'] * 1000:7.1f}ms "
                f"{r['total']:5.2f}x | {r['parse']:5.2f}x {r['glsl']:5.2f}x {r['glslang']:6.2f}x "
                f"{r['spirv-val']:5.2f}x |")
        if args.no_exec or name == "dispatch":     # dispatch: runs to the iteration guard
            line += f" {'-':>8s} {'-':>8s} {'-':>6s}"
        else:
            es, eb = best_pair(run_exec, exec_inputs(xlate.parse(small)),
                               exec_inputs(xlate.parse(big)), args.repeat)
            line += f" {es * 1000:6.1f}ms {eb * 1000:6.1f}ms {eb / es:5.2f}x"
            worst["exec"] = max(worst["exec"], eb / es)
        print(line + f"  {mode}", flush=True)
    print("\nrejected (E4005): time to the diagnostics")
    for name, (gen, n) in REJECTED.items():
        if args.case and name not in args.case:
            continue
        n = max(1, int(n * args.scale))
        small, big = gen(n), gen(8 * n)
        a, b = best_pair(rejected, small, big, args.repeat)
        worst["parse"] = max(worst["parse"], b / a)
        print(f"{name:13s} {n:5d} {8 * n:5d} {a * 1000:7.1f}ms {b * 1000:7.1f}ms {b / a:5.2f}x  "
              f"{rejected(big)}", flush=True)
    print("worst ratios (goal <= 9x): " +
          ", ".join(f"{k} {worst[k]:.2f}x" for k in ("parse", "glsl", "exec")) +
          f", end to end (glslang and spirv-val included) {worst['total']:.2f}x")
    if args.no_largest:
        return 0
    print("\nlargest inputs:")
    largest = [
        ("NVfp4.0, 100,000 ALU instructions (8 k + 10 x 10,000)", nv4_alu(10000)),
        ("TGSI, 20,000 instructions", tgsi(2000)),
        ("10 MB NVfp4.0 of repeated instructions (E1008)", nv4_alu(10 * (1 << 20) // 230)),
        ("10 MB TGSI of repeated instructions (E1008)", tgsi(10 * (1 << 20) // 300)),
    ]
    for what, src in largest:
        t = time.perf_counter()
        try:
            prog = xlate.parse(src)
            tp = time.perf_counter() - t
            r = xlate.translate(src, target="spirv")
            out = f"translated ({len(r.spirv)} bytes of SPIR-V; parse {tp:.2f} s)"
        except xlate.XlateError as e:
            out = f"{e.diagnostics[0].code}: {e.diagnostics[0].message}"
        el = time.perf_counter() - t
        print(f"  {what}: {len(src) / (1 << 20):.2f} MB in {el:.2f} s -> {out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
