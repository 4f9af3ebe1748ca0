"""Cross-check translations on a real implementation: ``xlate verify``.

For a program, :func:`verify` (``xlate verify FILE...``) generates inputs, runs the ORIGINAL
program in the software executor (``xlate.exec``) and the translated GLSL (or the SPIR-V
compiled from it) on OpenGL -- Mesa llvmpipe through a surfaceless EGL context on a machine
without a GPU -- or, with ``backend="vulkan"``, the vulkan-profile SPIR-V on Vulkan (Mesa
lavapipe), and compares every output bit for bit; with ``backend="native"`` it runs the
original assembly on the driver's own interface instead.  When they disagree, the replay shows
which differences the specifications permit, or names the instruction that departs.

Modules:

* ``inputs``   value generation from a seed (edge values, integer patterns, loop counts,
               texture coordinates), :mod:`analysis` the data-flow facts it needs
* ``textures`` random textures + sampler state, identical on both sides
* ``glapi``    ctypes OpenGL over EGL (core and compatibility contexts)
* ``gl``       the harness: transform feedback / render targets, GLSL interface edits
* ``vulkan``   the same harness on Vulkan (``--backend vulkan``; the ``vulkan`` package);
               ``vulkan_compute`` its compute dispatch, ``vulkan_tess`` its tessellation
               pipelines (``gl_compute``, ``gl_tess``, ``gl_tcs``: the GL ones, whose
               verdicts both APIs share)
* ``native``   the original program through ``glProgramStringARB`` (``--backend native``):
               the driver interface; ``native_text`` the harness's edits of the text,
               ``native_state`` the ``state.*`` parameters read back through the driver,
               ``native_verify`` its pipeline, ``native_probe`` probes of the original text
               for the replay
* ``compare``  the strict comparison, the approximate opcodes' bounds, ``EXPLANATIONS``
* ``trace``    probes: instrumenting a program so both sides show an instruction's value
* ``replay``   the executor replayed against the implementation's probed values
* ``permits``  one rule per freedom the specifications grant (the verdicts)
* ``core``     the pipeline for one program (:func:`verify_source`)
* ``compute_verify``  compute programs' verdict: a dispatch compared word by word and texel by
               texel, differences judged by the same replay through ``compute_replay`` (probes
               stored per invocation into a harness buffer); racy programs ``unsupported``
* ``cli``      ``xlate verify``;  ``batch`` worker pool (tools/diffcheck.py)
* ``mutants``  faults injected into translations, to prove the verifier catches them
* ``generate`` random valid programs of every dialect (a package, one module per family);
               ``oracle`` cgc's own GLSL as an independent oracle

Verdicts (``permits``, spec passages in ``compare.EXPLANATIONS``): the freedoms ``tolerance``,
``ftz``, ``signedzero``, ``nonfinite``, ``range``, ``undefined``, ``boundary``, ``lod``,
``implementation`` and ``reassociated`` (native only: a sum of products added in another order
or fused), each adopted only where its rule holds (a freedom to give any value is that
instruction's own: what is computed from it is checked exactly); and the unexplained ``divergence`` (a result differs), ``cc`` (a condition
test's outcome), ``flow`` (the executor ran an instruction more often), ``interface`` (every
probed value agreed, an output does not).  A program passes when the executor, adopting the
permitted values, reproduces every output exactly.
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
