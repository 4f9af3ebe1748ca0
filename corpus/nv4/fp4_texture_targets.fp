!!NVfp4.0
# Material compositing from one texture of every non-shadow target.
# Exercises NV_gpu_program4 2.X.4.4 / Table X.17 and X.18: the 1D, 2D, 3D, CUBE, RECT, ARRAY1D,
# ARRAY2D and BUFFER targets; TEX, TXB (LOD bias), TXL (explicit LOD), TXP (projective), TXD
# (explicit partials), TXF (texel fetch, with a texel offset) and TXQ (size query); texel offsets
# with one, two and three components including negative ones; .S and .U texture results read
# from integer textures; fragment.texcoord[n] and fragment.color.secondary.
ATTRIB tc0 = fragment.texcoord[0];
ATTRIB tc1 = fragment.texcoord[1];
ATTRIB dir = fragment.texcoord[2];
PARAM  k   = program.local[0];          # (bias, lod, layer, blend)
INT TEMP ic, sz;
UINT TEMP id;
TEMP c, t, a, g;
TEX    c, tc0, texture[0], 1D, (2);                     # gradient ramp, 1 component offset
MOV    t, tc0;
MOV    t.w, k.x;
TXB    a, t, texture[1], 2D, (-1, 1);                   # detail map with LOD bias
MUL    c, c, a;
MOV    t, tc1;
MOV    t.w, k.y;
TXL    a, t, texture[2], 3D, (1, -2, 3);                # volume noise at a fixed LOD
MAD    c, a, k.w, c;
DDX    g, dir;
DDY    t, dir;
TXD    a, dir, g, t, texture[3], CUBE;                  # environment map, explicit partials
LRP    c, k.w, a, c;
TXP    a, tc1, texture[4], RECT, (3, 3);                # projective light cookie in texels
MUL    c.xyz, c, a;
MOV    t, tc0;
MOV    t.y, k.z;
TEX    a, t, texture[5], ARRAY1D;                       # palette row selected by layer
ADD    c, c, a;
MOV    t.xy, tc1;
MOV    t.z, k.z;
TEX.S  ic, t, texture[6], ARRAY2D, (0, -1);             # integer material ids
TXQ    sz, 0, texture[6], ARRAY2D;                      # (width, height, layers)
MOD.S  ic.x, ic.x, sz.z;
MOV.S  ic.yzw, 0;
TXF.U  id, ic, texture[7], BUFFER;                      # per-material flags
TXF    a, ic, texture[1], 2D, (1, 1);                   # point sample of the detail map
I2F    t.x, sz.x;
MUL    a, a, t.x;
AND.U  id.x, id.x, 0xFF;
I2F.U  t.y, id.x;
MAD    c, a, t.y, c;
ADD    result.color, c, fragment.color.secondary;
END
