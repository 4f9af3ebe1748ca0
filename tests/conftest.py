"""Shared test configuration: where the shared corpus is, and environment for GL backends."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SHARED_CORPUS = SHARED / "corpus"

# Mesa's shader cache and EGL platform for tests that run shaders (set before moderngl loads)
os.environ.setdefault("MESA_SHADER_CACHE_DIR", str(ROOT / ".cache" / "mesa"))
os.environ.setdefault("EGL_PLATFORM", "surfaceless")
os.environ.setdefault("XLATE_CACHE_DIR", str(ROOT / ".cache" / "xlate"))


def shared_corpus_or_skip() -> Path:
    if not SHARED_CORPUS.is_dir():
        pytest.skip(f"shared corpus not present at {SHARED_CORPUS}")
    return SHARED_CORPUS
