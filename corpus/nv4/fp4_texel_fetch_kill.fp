!!NVfp4.0
# Alpha-tested texel fetch at an integer, flat-shaded LOD.
# Adapted from the worked example FP4-A of shared/design/nv_dialects.md section 11.7
# (NV_gpu_program4 2.X.8 TXQ/TXF, NV_fragment_program4 FLAT attributes and KIL).
# Exercises: FLAT INT ATTRIB, TXQ and TXF on a 2D texture, I2F, FLR.S writing integers,
# SLT.CC and KIL with a condition-code test (GT.x).
FLAT INT ATTRIB lod = fragment.attrib[1];
ATTRIB uv     = fragment.texcoord[0];
PARAM  cutoff = program.local[0];       # x = alpha cutoff
INT TEMP size, coord;
TEMP c, t;
TXQ    size, lod.x, texture[0], 2D;     # size.xy of level lod.x
I2F    t.xy, size;
MUL    t.xy, uv, t;
FLR.S  coord.xy, t;
MOV.S  coord.z, 0;
MOV.S  coord.w, lod.x;
TXF    c, coord, texture[0], 2D;
SLT.CC t.x, c.w, cutoff.x;              # 1.0 when alpha < cutoff
KIL    GT.x;
MOV    result.color, c;
END
