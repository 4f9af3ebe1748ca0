"""Run the ``glsl330`` and ``es310`` translations on the OpenGL harness (issue 17 §5).

The harness (:mod:`xlate.verify.gl`) reads values back through a 4.50 interface: explicit
``location``\\ s on every varying, ``xfb_buffer``/``xfb_offset`` on vertex outputs, explicit
uniform locations and sampler/block ``binding``\\ s.  The two older profiles declare their
interface without them, so :func:`harness_text` makes the interface explicit again -- the
declarations only, never the code between them -- and the translation then runs like any
other:

``glsl330``
  * ``#version 330 core`` stays; the extensions that give a 3.30 shader the harness's
    qualifiers are enabled after it (GL_ARB_enhanced_layouts: ``xfb_*``;
    GL_ARB_separate_shader_objects: ``location`` on varyings; GL_ARB_shading_language_420pack:
    ``binding`` on the textures the harness feeds fragment inputs from).  Mesa's GLSL compiler
    accepts each of them in a 3.30 shader;
  * the varying blocks the profile uses to match stages by name (``out xl_varying5 { vec4 v; }
    result_texcoord_0;``) become the plain variable at the block's location (the ``5`` of its
    block name: the location the 4.50 translation gives it), and ``name.v`` becomes ``name``:
    a renaming of the one member, which does not change what the code computes;
  * uniforms, samplers and uniform blocks stay as declared: the runner sets them by name, with
    the units and binding points of the reflection, as the reflection tells an engine to
    (:meth:`xlate.verify.gl.Runner._bind_by_name`), which checks the glsl330 reflection too.

  What stays of the profile: the 3.30 compiler's rules and every helper and expression written
  for 3.30 (``name@glsl330`` rows of ops.txt and helpers.glsl) -- and no ``precise``, so the
  implementation may contract ``a * b + c`` (README, Profiles); a difference that comes from
  that is shown by re-running the same text with ``precise`` added (a runner made with
  ``precise=True``; :func:`harness_text`).

``es310``
  * ``#version 310 es`` becomes ``#version 450 core`` (a program object cannot mix ES and
    desktop shaders, and the harness's own shaders and transform feedback qualifiers are
    desktop GLSL).  Every variable of the translation is ``highp`` already, which is what
    desktop GLSL computes in, so the arithmetic is the same;
  * the ``xl_precise`` header becomes ``#define xl_precise precise``: the run is that of an ES
    implementation with GL_EXT_gpu_shader5 or GL_OES_gpu_shader5;
  * the ES extensions are replaced by what desktop 4.50 has (:data:`ES_EXTENSIONS`); any
    other is refused with its name, never dropped silently.

What stays of the profile: its helpers and expressions (``@es310`` rows), its refusals and the
ES forms of the interface (``gl_FragCoord`` handling, built-in outputs).
"""
from __future__ import annotations

import re

from ..backends.glsl.profiles import ES_PRECISE_HEADER
from ..backends.glsl.tables import precise_helper
from .glapi import GLError

#: profiles :func:`harness_text` adapts (the others run as they are)
ADAPTED_PROFILES = ("glsl330", "es310")

GLSL330_EXTENSIONS = ("GL_ARB_enhanced_layouts", "GL_ARB_separate_shader_objects",
                      "GL_ARB_shading_language_420pack")

#: ES extension -> its desktop GLSL 4.50 form ("" when 4.50 has it in core)
ES_EXTENSIONS = {"GL_EXT_geometry_shader": "", "GL_OES_geometry_shader": "",
                 "GL_EXT_geometry_point_size": "", "GL_OES_geometry_point_size": "",
                 "GL_EXT_gpu_shader5": "", "GL_OES_gpu_shader5": "",
                 "GL_EXT_shader_io_blocks": "", "GL_OES_shader_io_blocks": "",
                 "GL_OES_sample_variables": "GL_ARB_sample_shading",
                 "GL_EXT_texture_buffer": "", "GL_OES_texture_buffer": "",
                 "GL_EXT_texture_cube_map_array": "", "GL_OES_texture_cube_map_array": "",
                 "GL_OES_texture_storage_multisample_2d_array": "",
                 "GL_OES_shader_multisample_interpolation": "",
                 "GL_EXT_clip_cull_distance": ""}

_OUTPUT = re.compile(r"^(layout\(location = \d+\) (?:flat |noperspective |centroid |smooth )*)"
                     r"(out (?:vec4|float|ivec4|uvec4|int|uint) \w+;)$", re.M)
_EXTENSION = re.compile(r"^#extension (\w+) : (?:require|enable)$", re.M)
# (qualifiers) in|out xl_varyingN { (member qualifiers) TYPE v; } NAME([])?;
_VARYING_BLOCK = re.compile(r"^((?:\w+ )*)(in|out) xl_varying(\d+) \{ ((?:\w+ )*)(\w+) v; \} "
                            r"(\w+)(\[\])?;$", re.M)


def harness_text(src: str, profile: str, reflection: dict, *, precise: bool = False) -> str:
    """The translation in ``profile`` with the interface the harness reads (module docstring).
    Unchanged for ``glsl450`` and ``vulkan``.  ``precise``: the text is about to get
    ``precise`` qualifiers (the runner's counterfactual of contraction,
    :func:`xlate.verify.capture.make_precise`), a GLSL 4.00 keyword: a glsl330 text is then compiled
    as ``#version 450 core``, which changes nothing else it computes."""
    if profile == "glsl330":
        src = _glsl330(src, reflection)
        if not precise:
            return src
        # the helpers' locals and results through precise locals, as the glsl450 profile
        # writes them (the runner's make_precise then qualifies the globals and main's locals)
        src = precise_helper(src.replace("#version 330 core\n", "#version 450 core\n", 1))
        # and the outputs written in place, as glsl450 declares them
        return _OUTPUT.sub(r"\1precise \2", src)
    if profile == "es310":
        return _es310(src)
    return src


def _glsl330(src: str, reflection: dict) -> str:
    if not src.startswith("#version 330 core\n"):
        raise GLError("glsl330 translation without '#version 330 core'")
    members = []

    def varying(m: re.Match) -> str:
        quals, direction, loc, member_quals, gtype, name, array = m.groups()
        members.append(name)
        return f"layout(location = {loc}) {quals}{member_quals}{direction} {gtype} {name}{array or ''};"

    src = _VARYING_BLOCK.sub(varying, src)
    for name in members:
        # name.v, name[i].v (geometry inputs) -> name, name[i]
        src = re.sub(rf"\b{name}((?:\[[^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*\])?)\.v\b", rf"{name}\1",
                     src)
    head, _, rest = src.partition("\n")
    return "\n".join([head] + [f"#extension {e} : require" for e in GLSL330_EXTENSIONS]) \
        + "\n" + rest


def _es310(src: str) -> str:
    if not src.startswith("#version 310 es\n"):
        raise GLError("es310 translation without '#version 310 es'")
    src = src.replace("#version 310 es\n", "#version 450 core\n", 1)
    src = src.replace(ES_PRECISE_HEADER, "#define xl_precise precise")

    def extension(m: re.Match) -> str:
        name = m.group(1)
        if name not in ES_EXTENSIONS:
            raise GLError(f"es310 extension {name} has no desktop GLSL 4.50 form in the harness")
        desktop = ES_EXTENSIONS[name]
        return f"#extension {desktop} : require" if desktop else f"// {name}: core in GLSL 4.50"

    src = _EXTENSION.sub(extension, src)
    # #extension must precede any declaration: move the ones left to right after #version
    lines = src.split("\n")
    ext = [x for x in lines if x.startswith("#extension ")]
    rest = [x for x in lines[1:] if not x.startswith("#extension ")]
    return "\n".join([lines[0]] + ext + rest)

