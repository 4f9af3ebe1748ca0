!!NVfp4.0
# Separable 9-tap Gaussian blur (linear-sampling form) driven by one constant table.
# Exercises a PARAM array whose initializer list mixes signed scalar constants and constant
# vectors (NV_gpu_program4 2.X.2 <paramMultInitList>: each <paramUseDM> may be a
# <signedConstantScalar> or a <constantVector>), addressed relatively with an offset inside
# REP, plus the blur direction from program.local.
PARAM taps[] = { 0.2270270270, 0.3162162162, 0.0702702703,
                 {1.3846153846, 0, 0, 0}, {3.2307692308, 0, 0, 0} };
PARAM dir = program.local[0];           # (dx, dy, -, -) in texels
ATTRIB uv = fragment.texcoord[0];
INT TEMP i;
TEMP acc, o, c;
TEX    acc, uv, texture[0], 2D;
MUL    acc, acc, taps[0].x;
MOV.S  i.x, 1;
REP    2;
  MUL    o.xy, dir, taps[i.x + 2].x;    # offset of this tap pair
  ADD    o.xy, uv, o;
  TEX    c, o, texture[0], 2D;
  MAD    acc, c, taps[i.x].x, acc;
  MAD    o.xy, dir, -taps[i.x + 2].x, uv;
  TEX    c, o, texture[0], 2D;
  MAD    acc, c, taps[i.x].x, acc;
  ADD.S  i.x, i.x, 1;
ENDREP;
MOV    result.color, acc;
END
