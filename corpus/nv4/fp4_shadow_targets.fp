!!NVfp4.0
# Shadow-mapped lighting with cascades, point-light cube shadows and percentage-closer filtering.
# Exercises the depth-comparison targets of NV_gpu_program4 Table X.17: SHADOW1D, SHADOW2D,
# SHADOWRECT, SHADOWCUBE, SHADOWARRAY1D, SHADOWARRAY2D, with the reference value in z or w,
# TEX with 2-component texel offsets (PCF taps), TXB on SHADOW1D, TXL on SHADOWARRAY1D,
# TXP on SHADOW2D and SHADOWRECT, TXD on SHADOWCUBE, TXQ on a shadow texture, and
# OPTION ARB_precision_hint_fastest.
OPTION ARB_precision_hint_fastest;
ATTRIB ls   = fragment.texcoord[0];     # light-space position (x, y, depth, q)
ATTRIB lp   = fragment.texcoord[1];     # vector to the point light, w = reference depth
ATTRIB casc = fragment.texcoord[2];     # cascade coordinate (x, y, layer, reference)
PARAM  k    = program.local[0];         # (bias, lod, 1D layer, PCF weight)
INT TEMP sz;
TEMP s, t, acc;
TEX    acc, ls, texture[0], SHADOW2D;
TEX    s, ls, texture[0], SHADOW2D, (1, 0);
ADD    acc, acc, s;
TEX    s, ls, texture[0], SHADOW2D, (0, 1);
ADD    acc, acc, s;
TEX    s, ls, texture[0], SHADOW2D, (-1, -1);
ADD    acc, acc, s;
MUL    acc, acc, k.w;
TXP    s, ls, texture[0], SHADOW2D;               # projective variant of the same map
MIN    acc, acc, s;
TEX    s, casc, texture[1], SHADOWARRAY2D, (1, -1);  # (x, y, layer) + reference in w
MUL    acc, acc, s;
MOV    t, lp;
DDX    s, lp;
DDY    t.xyz, lp;
TXD    s, lp, s, t, texture[2], SHADOWCUBE;       # reference in w
MUL    acc, acc, s;
MOV    t.xz, ls;
MOV    t.w, k.x;
TXB    s, t, texture[3], SHADOW1D, (-2);          # (x, -, ref) with bias in w
MUL    acc, acc, s;
MOV    t.x, ls.x;
MOV    t.y, k.z;
MOV    t.z, ls.z;
MOV    t.w, k.y;
TXL    s, t, texture[4], SHADOWARRAY1D;           # (x, layer, ref) at LOD w
MUL    acc, acc, s;
TXQ    sz, 0, texture[5], SHADOWRECT;
I2F    t.xy, sz;
MUL    t.xy, ls, t;
MOV    t.zw, ls;
TXP    s, t, texture[5], SHADOWRECT;
TEX    t, t, texture[5], SHADOWRECT, (2, -3);
LRP    s, 0.5, s, t;
MUL    result.color, acc, s;
END
