!!NVfp4.0
# Two-channel normal-map decode (z reconstructed) using extended swizzles.
# Exercises SWZ in a fragment program (NV_gpu_program4 2.X.8 SWZ): constant selectors 0 and 1
# with negation (-1), component selectors from a TEMP and from an attribute, .CC1 update of a
# SWZ result tested by KIL (LT1.z).
ATTRIB uv  = fragment.texcoord[0];
ATTRIB tbn = fragment.texcoord[1];
TEMP  n, t, l;
TEX   n, uv, texture[0], 2D;
SWZ   n, n, w, y, 0, 0;                       # BC5-style: normal xy stored in a and g
MAD   n.xy, n, 2, -1;
DP2   t.x, n, n;
ADD   t.x, 1, -t.x;
RSQ   t.x, t.x;
RCP   n.z, t.x;
SWZ.CC1 l, tbn, -x, -y, z, 1;                 # light vector flipped into tangent space
KIL   LT1.z;                                  # light below the surface
DP3   t.x, n, l;
SWZ   t, t, x, x, x, 1;
MOV   result.color, t;
END
