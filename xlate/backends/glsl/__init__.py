"""Structured IR -> GLSL source (profiles ``glsl450``, ``vulkan``, ``glsl330`` and ``es310``).

Per-opcode expressions come from one table (``templates/glsl/ops.txt``), helper functions from
``templates/glsl/helpers.glsl`` (emitted only when used), the file layout from
``templates/glsl/program.j2`` (Jinja, StrictUndefined).  The ``#version`` header is rendered last,
from requirements collected while the body was emitted.  Interface mapping: ``backends/interface.py``.

Where the value model matters:
* registers hold raw 32-bit words in the IR; a GLSL register gets the type the ``types`` pass
  chose and every access whose type differs is a bitcast (never a conversion);
* a write with a condition-code mask or a CC update goes through a temporary and ``mix`` with a
  boolean vector (an exact select, never an arithmetic blend);
* relative indices are clamped into the array (the executor does the same; the specs leave
  out-of-range reads undefined);
* every variable that receives computed values is declared ``precise`` (GLSL 4.50 §4.7.1;
  glslang decorates the operations ``NoContraction``): registers, staged outputs, the write
  temporaries, and the results and locals of the helper functions (:func:`precise_helper`).
  NV_gpu_program4 issue 18 has every instruction round its result, so the implementation may
  not contract ``MAD``+``ADD`` into one fused multiply-add or reassociate.  The input staging
  arrays and parameter copies are only copied into, and stay unqualified.

Profiles (:data:`PROFILE_INFO`; README "Profiles").  GLSL 3.30 has no ``precise`` (GLSL 4.00;
glslang refuses it through GL_ARB_gpu_shader5 in a 3.30 shader): the glsl330 output is the same
program without the qualifier, and says so in its header comment.  That is a documented
reading, not an equivalence: an implementation that contracts ``a * b + c`` into a fused
multiply-add rounds once where the assembly rounds twice, and llvmpipe does contract (measured:
corpus/nv4/vp4_wave_float_ops.vp differs from the executor without ``precise``).  es310 keeps it
as ``xl_precise`` where GL_EXT/OES_gpu_shader5 exist (:data:`ES_PRECISE_HEADER`).  Features a
profile lacks are either written in plain GLSL of that
version where that is exact (helpers.glsl sections ``name@glsl330``: carries, high products,
fp16/unorm packing, integer selects) or rejected with E7001 naming the feature, the profile and
the instruction or declaration that needs it -- never replaced by something with other results.
Line map: every emitted line is tagged with the source line of the IR node it came from
(:data:`_TAG`), which gives :attr:`GlslOutput.line_map`, the optional ``#line`` directives and the
optional instruction comments; the tags are removed before the text is returned.

Expressions: a value read once, by the next instructions of the same straight-line run, is
printed inside its reader instead of being stored (``R0 = (a + b) * c;`` for an ADD and a MUL);
``expressions.py`` holds the one policy that decides (values read twice, across control flow, or
held in outputs stay in their registers), the precedence-aware placement, and the check that keeps
inlined arithmetic out from under swizzles of rvalues (where glslang drops NoContraction).

Modules of this package: ``profiles`` (the profile table), ``tables`` (ops.txt, helpers.glsl, the
CC tests), ``text`` (literals, swizzles, bitcasts), ``expressions`` (the temporaries policy and
precedence), ``emitter`` (state, naming, the file layout) and its parts ``declarations``,
``operands``, ``instructions``, ``textures``, ``control``.
"""
from .emitter import GlslEmitter, emit_glsl
from .profiles import (ES_MISSING_TARGETS, ES_PRECISE, ES_PRECISE_HEADER, MAX_UNIFORM_LOCATIONS,
                       PRECISE_GLOBAL, PROFILE_INFO, PROFILES, ProfileInfo)
from .records import GlslOutput
from .tables import (_template_dir, cc_tests, cc_value_tests, helper_library, precise_helper,
                     snippet_table)
from .text import bitcast, float_literal, int_literal, literal, vec_type

__all__ = ["ES_MISSING_TARGETS", "ES_PRECISE", "ES_PRECISE_HEADER", "GlslEmitter", "GlslOutput",
           "MAX_UNIFORM_LOCATIONS", "PRECISE_GLOBAL", "PROFILES", "PROFILE_INFO", "ProfileInfo",
           "_template_dir", "bitcast", "cc_tests", "cc_value_tests", "emit_glsl", "float_literal",
           "helper_library", "int_literal", "literal", "precise_helper", "snippet_table", "vec_type"]
