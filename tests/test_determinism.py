"""Deterministic output: the same input gives the same bytes in every process.

Subprocesses with PYTHONHASHSEED 0, 1, 12345 and "random" (string hashing, hence set and dict
iteration order of strings, differs between them) translate the same programs -- the
project's corpus, a sample of every dialect folder of the shared corpus, generated programs of
every dialect (tools/fuzz_gen.py), TGSI token streams, and rejected inputs -- and print a digest
of every output: GLSL (glsl450), SPIR-V (vulkan), the reflection JSON as written by
``xlate convert --target reflect`` / ``xlate batch``, the IR text, and the rendered
diagnostics.  All must be byte-identical.

Batch determinism across ``-j 1/2/3`` and resuming after SIGKILL are tested in
tests/test_batch.py (test_outputs_identical_whatever_the_number_of_jobs,
test_sigkill_leaves_complete_outputs_and_the_next_run_resumes).
"""
from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from conftest import REQUIRE_CORPUS, SHARED_CORPUS, no_corpus, required

ROOT = Path(__file__).resolve().parents[1]
SHARED = SHARED_CORPUS

CHILD = r"""
import hashlib, sys
from pathlib import Path
import xlate
from xlate.batch.outputs import reflection_json

def digest(b):
    return hashlib.sha256(b).hexdigest()[:16]

for path in sorted(Path(sys.argv[1]).iterdir()):
    data = path.read_bytes()
    src = data if path.suffix == ".bin" else data.decode("utf-8", "replace")
    row = [path.name]
    for target, profile in (("glsl", "glsl450"), ("spirv", "vulkan"), ("ir", None)):
        try:
            t = xlate.translate(src, filename=path.name, target=target, profile=profile)
            out = t.spirv if target == "spirv" else t.glsl.encode()
            row += [target, digest(out), digest(reflection_json(t.reflection))]
            if target == "ir":
                from xlate.ir.printer import print_program
                row.append(digest(print_program(t.program).encode()))
        except xlate.XlateError as e:
            row += [target, "rejected", digest(e.render().encode())]
    print(" ".join(row), flush=True)
"""


def inputs(folder: Path) -> int:
    """Write the programs to ``folder``; returns how many."""
    sys.path.insert(0, str(ROOT / "tools"))
    import fuzz_gen
    files: list[tuple[str, bytes]] = []
    for p in sorted((ROOT / "corpus").rglob("*")):
        if p.suffix in (".fp", ".vp", ".gp"):
            files.append((f"repo-{p.parent.name}-{p.name}", p.read_bytes()))
    if SHARED.is_dir():
        for dialect in sorted(d for d in (SHARED / "collected").iterdir() if d.is_dir()) + \
                sorted(d for d in (SHARED / "cg").iterdir() if d.is_dir() and "glsl" not in d.name):
            progs = sorted(p for p in dialect.rglob("*") if p.suffix in (".fp", ".vp", ".gp",
                                                                             ".tgsi"))
            for p in progs[::max(1, len(progs) // 8)][:8]:
                files.append((f"shared-{dialect.name}-{p.name}", p.read_bytes()))
    elif required(REQUIRE_CORPUS):
        no_corpus(f"{SHARED} (this test then covers the repository's programs only)")
    # valid programs of every dialect (xlate.verify.generate, ours): enough programs even
    # without ../shared
    from xlate.verify.generate import DIALECTS, generate
    for d in DIALECTS.values():
        for st in d.stages:
            for seed in (1, 2):
                files.append((f"valid-{d.name}-{st}-{seed}.txt",
                              generate(d.name, seed, st).encode()))
    for dialect in sorted(fuzz_gen.DIALECTS):
        for k in range(3):
            text = fuzz_gen.generate(dialect, random.Random(f"det:{dialect}:{k}"), 12, wild=k == 2)
            files.append((f"gen-{dialect}-{k}.txt", text.encode()))
    from xlate.diagnostics import DiagnosticSink
    from xlate.frontends.tgsi import binary
    from xlate.frontends.tgsi.text import parse_text
    tgsi = [data for name, data in files if name.endswith(".tgsi") or "gen-tgsi" in name]
    for k, data in enumerate(tgsi[:12]):
        text = data.decode("utf-8", "replace")
        sh = parse_text(text, DiagnosticSink("x", text))
        for enc in (binary.encode_modern, binary.encode_seed):
            try:
                files.append((f"bin-{k}-{enc.__name__}.bin", enc(sh)))
            except (ValueError, AttributeError):
                pass
    for k, (name, data) in enumerate(files):
        (folder / f"{k:04d}-{name}").write_bytes(data)
    return len(files)


def test_outputs_identical_across_hash_seeds(tmp_path):
    progs = tmp_path / "programs"
    progs.mkdir()
    n = inputs(progs)
    assert n > 100
    procs = {}
    for seed in ("0", "1", "12345", "random"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        procs[seed] = subprocess.Popen([sys.executable, "-c", CHILD, str(progs)], cwd=ROOT,
                                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True)
    results = {}
    for seed, p in procs.items():
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err
        results[seed] = out.splitlines()
    first = results["0"]
    assert len(first) == n
    translated = sum(" rejected " not in line for line in first)
    assert translated > n // 2
    for seed, lines in results.items():
        diff = [(a, b) for a, b in zip(first, lines) if a != b]
        assert not diff, f"PYTHONHASHSEED={seed} differs from 0:\n" + "\n".join(
            f"  {a}\n  {b}" for a, b in diff[:5])
