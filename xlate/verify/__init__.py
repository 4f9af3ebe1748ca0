"""Cross-check translations on a real implementation: ``xlate verify``.

For a program, :func:`verify` (``xlate verify FILE...``) generates inputs, runs the ORIGINAL
program in the software executor (``xlate.exec``) and the translated GLSL (or the SPIR-V
compiled from it) on OpenGL -- Mesa llvmpipe through a surfaceless EGL context on a machine
without a GPU -- or, with ``backend="vulkan"``, the vulkan-profile SPIR-V on Vulkan (Mesa
lavapipe), and compares every output.  When they disagree it names the first
instruction whose value differs and classifies the difference.

Modules:

* ``inputs``   value generation from a seed (edge values, integer patterns, loop counts,
               texture coordinates), :mod:`analysis` the data-flow facts it needs
* ``textures`` random textures + sampler state, identical on both sides
* ``glapi``    ctypes OpenGL over EGL (core and compatibility contexts)
* ``gl``       the harness: transform feedback / render targets, GLSL interface edits
* ``vulkan``   the same harness on Vulkan (``--backend vulkan``; the ``vulkan`` package)
* ``compare``  comparison rules and tolerances
* ``trace``    localization by probes, verdicts
* ``core``     the pipeline for one program (:func:`verify_source`)
* ``cli``      ``xlate verify``;  ``batch`` worker pool (tools/diffcheck.py)
* ``generate`` random valid programs of every dialect (a package, one module per family);
               ``oracle`` cgc's own GLSL as an independent oracle

Verdicts of a localized difference (``trace``): ``divergence`` / ``operands`` /
``interface`` / ``cc`` (a real disagreement to investigate), ``precise`` (vanishes when the
GLSL is ``precise``: the implementation reassociated float math), and the implementation
freedoms ``ftz`` (denormal flushing), ``nonfinite`` (NaN/Inf, which GLSL does not
guarantee), ``range`` (sin/cos beyond 2^23), ``tolerance`` (approximate opcodes),
``undefined`` (operands for which NV_gpu_program4 leaves the result undefined), ``lod`` and
``boundary`` (texture LOD and texel-edge freedoms), ``signedzero`` (an instruction that tells
apart zeros whose sign GLSL lost upstream).  A program
whose differences are all freedoms that vanish with finite inputs passes.
"""
from __future__ import annotations

__all__ = ["verify", "verify_source"]


def verify_source(text: str, filename: str = "<input>", **kw):
    """See :func:`xlate.verify.core.verify_source`."""
    from .core import verify_source as _v
    return _v(text, filename, **kw)


def verify(path: str, **kw):
    """Verify one file; keyword arguments as :func:`verify_source` (lanes, seed, backend,
    runner, localize).  Returns a :class:`xlate.verify.core.ProgramReport`."""
    with open(path, "rb") as f:
        data = f.read()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return verify_source(text, path, **kw)
