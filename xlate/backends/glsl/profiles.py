"""The GLSL profiles: version, ``precise`` spelling, what each lacks (README, "Profiles")."""
from __future__ import annotations


from dataclasses import dataclass





PROFILES = ("glsl450", "vulkan", "glsl330", "es310")


@dataclass(frozen=True)
class ProfileInfo:
    """What the GLSL version of a profile offers, for the features this backend uses."""

    version: str                   # argument of the #version line
    language: str                  # for messages and the header comment
    es: bool = False               # OpenGL ES: precision statements, no 1D/RECT/BUFFER textures ...
    precise: str | None = "precise"  # the word of 'precise' (GLSL 4.00, ES 3.20), or None
    layouts: bool = True           # layout(location) on uniforms (4.30, ES 3.10), layout(binding) (4.20)
    varying_locations: bool = True  # layout(location) on varyings (4.10, ES 3.10)
    arrays_of_arrays: bool = True  # vec4 a[3][8] (4.30, ES 3.10)
    integer_mix: bool = True       # mix(ivec, ivec, bvec) (4.50, ES 3.10)
    fine_derivatives: bool = True  # dFdxFine / dFdyFine (4.50)
    array_shadow_offset: bool = True  # textureOffset(sampler2DArrayShadow, ...) (4.30; not in ES)
    gather: bool = True            # textureGather[Offset] with a component or a reference (4.00, ES 3.10)
    query_levels: bool = True      # textureQueryLevels (4.30; not in ES 3.10)
    query_lod: bool = True         # textureQueryLod (4.00; not in ES)


# es310: 'precise' where the implementation has GL_EXT_gpu_shader5 or GL_OES_gpu_shader5 (the
# mobile GPUs that fuse multiply-adds have them), else nothing: the header defines xl_precise
# (an xl_ name: no register can have it) as one or the other.  Removing a qualifier leaves a
# valid declaration, so the branch glslang does not take (it has GL_EXT_gpu_shader5) compiles
# too (tests/test_glsl_profiles.py compiles both).
ES_PRECISE = "xl_precise"


ES_PRECISE_HEADER = ("#if defined(GL_EXT_gpu_shader5)\n#extension GL_EXT_gpu_shader5 : enable\n"
                     "#define xl_precise precise\n#elif defined(GL_OES_gpu_shader5)\n"
                     "#extension GL_OES_gpu_shader5 : enable\n#define xl_precise precise\n"
                     "#else\n#define xl_precise\n#endif")


PROFILE_INFO = {
    "glsl450": ProfileInfo("450 core", "GLSL 4.50"),
    "vulkan": ProfileInfo("450", "GLSL 4.50 (Vulkan)"),
    "glsl330": ProfileInfo("330 core", "GLSL 3.30", precise=None, layouts=False,
                           varying_locations=False, arrays_of_arrays=False, integer_mix=False,
                           fine_derivatives=False, array_shadow_offset=False, gather=False,
                           query_levels=False, query_lod=False),
    "es310": ProfileInfo("310 es", "GLSL ES 3.10", es=True, precise=ES_PRECISE, fine_derivatives=False,
                         array_shadow_offset=False, query_levels=False, query_lod=False),
}


#: multisample targets (texelFetch with a sample index, textureSize without a level)
MULTISAMPLE = frozenset({"2DMS", "ARRAY2DMS"})

#: the extension a profile's GLSL needs for a texture target it has no core sampler for
#: (cube-map arrays: GLSL 4.00, ES 3.20; multisample 2D arrays: ES 3.20)
TARGET_EXTENSIONS = {
    ("glsl330", "ARRAYCUBE"): "GL_ARB_texture_cube_map_array",
    ("glsl330", "SHADOWARRAYCUBE"): "GL_ARB_texture_cube_map_array",
    ("es310", "ARRAYCUBE"): "GL_EXT_texture_cube_map_array",
    ("es310", "SHADOWARRAYCUBE"): "GL_EXT_texture_cube_map_array",
    ("es310", "ARRAY2DMS"): "GL_OES_texture_storage_multisample_2d_array",
}

#: es310: texture targets OpenGL ES 3.1 has no sampler for, by the feature named in E7001
ES_MISSING_TARGETS = {"1D": "1D textures", "SHADOW1D": "1D textures", "ARRAY1D": "1D textures",
                      "SHADOWARRAY1D": "1D textures", "RECT": "rectangle textures",
                      "SHADOWRECT": "rectangle textures", "BUFFER": "buffer textures"}


MAX_UNIFORM_LOCATIONS = 1024   # GL_MAX_UNIFORM_LOCATIONS minimum (GL 4.5 Table 23.53)


GLSL_RESERVED = frozenset("""
attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly atomic_uint
layout centroid flat smooth noperspective patch sample break continue do for while switch case default
if else subroutine in out inout float double int void bool true false invariant precise discard return
mat2 mat3 mat4 dmat2 dmat3 dmat4 vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 uint uvec2 uvec3
uvec4 dvec2 dvec3 dvec4 lowp mediump highp precision struct common partition active asm class union
enum typedef template this resource goto inline noinline public static extern external interface long
short half fixed unsigned superp input output hvec2 hvec3 hvec4 fvec2 fvec3 fvec4 filter sizeof cast
namespace using main texture textureLod textureGrad texelFetch textureSize sampler image abs sign floor
ceil trunc round fract mod min max clamp mix step smoothstep sqrt inversesqrt exp exp2 log log2 pow sin
cos tan dot cross normalize length distance reflect refract any all not equal lessThan greaterThan
isnan isinf dFdx dFdy fwidth EmitVertex EndPrimitive
packed row_major column_major std140 std430 shared lowp flat highp superp
""".split()) | frozenset(
    # the type keywords of GLSL 4.50 §3.6 and GLSL ES 3.10 §3.7 (an assembly TEMP may be called
    # "packed" or "sampler2D": found by corpus/dialects/arbfp_nv_pack.fp, which names a TEMP
    # "packed", a reserved word of both)
    [f"{p}mat{c}x{r}" for p in ("", "d") for c in "234" for r in "234"]
    + [f"{p}{kind}{dim}" for p in ("", "i", "u") for kind in ("sampler", "image")
       for dim in ("1D", "2D", "3D", "Cube", "2DRect", "1DArray", "2DArray", "CubeArray",
                   "Buffer", "2DMS", "2DMSArray")]
    + [f"sampler{d}Shadow" for d in ("1D", "2D", "Cube", "2DRect", "1DArray", "2DArray",
                                      "CubeArray")]
    + ["sampler3DRect", "samplerExternalOES", "sampler", "samplerShadow"])


# Qualifier of global variables that receive computed values.  ``highp`` (no effect in desktop
# GLSL, 4.50 §4.7) is not decoration: glslang 13.1 gives a global declared with only ``precise``
# temporary storage -- a Function variable of ``main`` that the other functions then use, which
# spirv-val rejects ("does not dominate its use") and Mesa's GL_ARB_gl_spirv crashes on.
PRECISE_GLOBAL = "precise highp"
