"""Texture objects and the texture opcodes (TEX TXB TXD TXF TXL TXP TXQ).

The rules are those of the OpenGL 4.5 core specification (§8.13 cube map face selection,
§8.14 LOD, §8.14.2 wrapping and texel selection, §8.14.3 mipmapping, §8.15 magnification,
§8.22 texture comparison) as the assembly side reaches them through NV_gpu_program4 (GP4)
§2.X.4.4 (TextureSample, TexelFetch, ComputePartials, Tables X.17/X.18) and §2.X.8.Z
TEX ... TXQ.  Wherever GLSL's mapping differs from the assembly text, the executor does what
the GLSL backend (``xlate/backends/glsl/textures.py`` ``emit_tex``/``tex_coord``/``fetch_expr``) makes a
GL implementation do, so that ``xlate verify`` can compare the two:

* RECT/SHADOWRECT: TXL's LOD and TXB's bias are ignored (GLSL has no ``textureLod`` for
  rectangle samplers; the backend calls ``texture()``); the LOD only decides minification vs
  magnification anyway, as a rectangle texture has one level.  TXF/TXQ ignore ``w``/``x``.
* vertex/geometry programs: TEX/TXB/TXP have zero partials (GP4 §2.X.4.4) -> lambda = -inf,
  i.e. the base level with the magnification filter (GLSL: ``textureGrad`` with zero
  gradients, which also ignores TXB's bias).
* shadow results are (r, r, r, 1) (GLSL ``vec4(r, r, r, 1.0)``).
* TXQ components beyond the target's dimension are 0 (GLSL ``ivec4(textureSize(..), 0..)``).

Project choices where the specs leave the result undefined or implementation-dependent
(each also commented at the code implementing it):

* implicit derivatives (fragment TEX/TXB/TXP, RECT TXL): lanes 4k..4k+3 are a 2x2 quad
  (x0y0, x1y0, x0y1, x1y1; the DDX/DDY layout); *coarse* differences, one pair per quad:
  d/dx = lane 4k+1 - lane 4k, d/dy = lane 4k+2 - lane 4k (as Mesa llvmpipe computes one LOD per
  quad); a partner past the last lane counts as the lane itself (derivative 0); neighbours
  contribute their current register values even when they did not execute the instruction.
  (llvmpipe differentiates a cube map's direction with *fine* differences instead, an LOD
  per pixel -- GLSL 4.50 §8.14.1 leaves coarse or fine to the implementation; ``xlate
  verify`` shows that case by recomputing with ``_texture(..., fine=True)``.)
* rho = max(|(du/dx, dv/dx, dw/dx)|, |(du/dy, dv/dy, dw/dy)|) with exact Euclidean lengths
  (GL eq. 8.7-8.8, no approximation), lambda_base = log2(rho), all in float32.
* cube maps: major axis ties go to Z, then Y, then X (as llvmpipe: Z when |z| >= max(|x|,
  |y|), else X only when |x| > |y|); cube partials (implicit
  or TXD) are projected onto the selected face by the chain rule,
  d(sc/|ma|) = (d sc * |ma| - sc * d|ma|) / ma^2 (GP4 TXD: "implementation-dependent").
* total LOD bias clamp: MAX_TEXTURE_LOD_BIAS = 16 (llvmpipe's value).
* linear filtering is evaluated as nested lerps a + alpha * (b - a) in float32 (x, then y,
  then z, then between mip levels), algebraically the GL weighted sum.
* NaN texture coordinates are treated as 0; NaN LODs select magnification; coordinates are
  clamped to +-2^40 texels before conversion to integers.
* array layer = clamp(floor(coord + 0.5), 0, layers - 1) (GL §8.14.2).
* shadow comparisons: the texel's first component is D_t, clamped to [0, 1] as a
  DEPTH_COMPONENT32F image stores it; D_ref is not clamped (a floating-point depth format,
  GL §8.22.1); with LINEAR filtering the 0/1 comparison results are filtered
  (percentage-closer filtering).
* cube maps filter seamlessly by default (``seamless=True``, as Vulkan always does and as
  moderngl enables TEXTURE_CUBE_MAP_SEAMLESS on its contexts; the GL's own default is off):
  footprint texels beyond a face edge come from the adjacent face, and the missing texel of a
  corner is the average of the other three (the GL §8.13.1 recommendation); a NEAREST texel
  coordinate is clamped to the face.  With ``seamless=False`` the face coordinates use the
  texture's wrap modes (GL §8.13).
* TXF: texel coordinates, layers or LODs out of range return (0, 0, 0, 0) (as robust buffer
  access and llvmpipe do); a non-base LOD is fetched whatever the minification filter.
  TXQ for a level out of range returns (0, 0, 0, 0).
* the magnification/minification switch-over c is 0.5 when the mag filter is LINEAR and the
  min filter is NEAREST_MIPMAP_NEAREST or NEAREST_MIPMAP_LINEAR, else 0 (GL §8.15).
* ``execute(..., sampling="llvmpipe")`` departs from the GL formulas where Mesa llvmpipe does
  (a piecewise-linear log2 for lambda, c always 0, TEXTURE_LOD_BIAS in steps of 1/256, RECT
  derivatives scaled by the size), so that results compare bit for bit with llvmpipe; the
  default "spec" follows the formulas (see :func:`prepare`).

Errors (:class:`ExecError`, raised before anything runs): a texture unit used but not given, a
unit given but not used, an instruction target that does not match ``Texture.target``, a
texel type that does not match the instruction's data type (.F float32, .S int32, .U uint32;
GP4: undefined), an incomplete texture (GL §8.17: mipmap chain sizes, integer textures with
LINEAR filters, rectangle textures with mipmap filters or REPEAT/MIRRORED wraps), and the
target/opcode combinations GP4 rejects at load time (TXF on CUBE/SHADOW*, TXB/TXL/TXP on
SHADOWCUBE/SHADOWARRAY2D, sampling a BUFFER, offsets on cube maps).

The opcode functions receive the same arguments as ALU functions (see ``alu.py``): ``x``
(``x.inst.tex`` is the :class:`~xlate.ir.model.TexRef`; ``x.st.textures`` the prepared
``{unit: _Prepared}``) and the loaded operands; they return (k|1, 4) arrays of the result type.
"""
from __future__ import annotations

from .texture_objects import (BASE_TARGET, COMPARE_FUNCS, CUBES, LEVEL_SHAPES, MAG_FILTERS,
                              MAX_TEXTURE_LOD_BIAS, MIN_FILTERS, MULTISAMPLE, SAMPLING_MODES,
                              TARGETS, WRAPS, Texture, prepare)
from .texture_ops import TEX, _implicit_partials, _lod_query, _project, _texture
from .texture_sampling import _cube_project, _cube_remap, _cube_select

__all__ = ["BASE_TARGET", "COMPARE_FUNCS", "CUBES", "LEVEL_SHAPES", "MAG_FILTERS",
           "MAX_TEXTURE_LOD_BIAS", "MIN_FILTERS", "MULTISAMPLE", "SAMPLING_MODES", "TARGETS",
           "TEX", "WRAPS", "Texture", "prepare", "_cube_project", "_cube_remap", "_cube_select",
           "_implicit_partials", "_lod_query", "_project", "_texture"]
