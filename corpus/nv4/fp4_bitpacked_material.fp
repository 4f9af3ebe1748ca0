!!NVfp4.0
# Bit-packed material decode with an ordered-dither hash and two alpha-kill paths.
# Exercises integer fragment work (NV_gpu_program4 2.X.8): FLAT UINT/INT attributes, FLR.U,
# AND/OR/XOR/NOT/SHL/SHR, the MUL modifiers .U24, .S24 and .HI (.S.HI and .U.HI), DIV.U, MOD.U,
# SAD.U, I2F.U, UP2US/UP4UB/UP2H/UP4B with .U operands, PK2US/PK4B/PK4UB/PK2H back into words,
# .NTC, KIL with a vector operand and KIL with a CC1 test, and condition-code tests on CC1
# (EQ1 NE1 GT1 LE1 SF1 NSF1 TR1 FL1) and CC0 (LT LE GE NOF).
FLAT UINT ATTRIB packed = fragment.attrib[2];   # (albedo bits, normal bits, flags, seed)
FLAT INT  ATTRIB sid    = fragment.attrib[3];   # (surface id, -, -, -)
ATTRIB pos = fragment.position;
PARAM  k   = program.local[0];                  # (alpha ref, dither scale, -, -)
UINT TEMP m, h, w;
INT TEMP p;
FLOAT TEMP c;
TEMP n, t;
FLR.U    m.xy, pos;                  # pixel coordinates
AND.U    m.xy, m, 3;
SHL.U    m.y, m.y, 2;
OR.U     m.x, m.x, m.y;              # 4x4 dither index
MUL.U24  h.x, m.x, 0x9E3779;         # cheap 24-bit hash step
XOR.U    h.x, h.x, packed.w;
MUL.U.HI h.y, h.x, 0x85EBCA6B;
SHR.U    h.z, h.y, 16;
NOT.U    h.w, h.z;
DIV.U    h.z, h.z, 3;
MOD.U    h.w, h.w, 17;
SAD.U.CC1 m.z, h.x, h.y, 0;          # |a - b| as a second hash term; CC1.z
MUL.S24  p.x, sid.x, -3;
MUL.S.HI p.y, sid.x, 0x40000000;     # sid >> 2 with sign
SUB.S.CC1 p.zw, p.x, p.y;            # signed compare of the two; CC1.zw
UP4UB.U  c, packed.x;                # albedo
UP2US.U  n.xy, packed.y;             # octahedral normal
UP2H.U   t.xy, packed.z;             # two half-float roughness terms
UP4B.U   n.zw, packed.z;
I2F.U    t.zw, h.zzww;
MAD      t.z, t.z, k.y, t.w;
MOV      c.w (EQ1.z), 0;             # identical hashes: fully transparent
MOV      c.x (NE1.z), t.z;
MOV      c.y (GT1.w), t.x;           # p.x > p.y
MOV      c.y (LE1.w), t.y;
MOV      c.z (SF1.w), n.z;
MOV      c.z (NSF1.z), n.w;
MOV      n (TR1), n;
MOV      n (FL1), 0;
SUB.CC   t, c, k.x;                  # alpha test against the reference
MOV      c.w (LT.w), 0;
MOV      c.w (GE.w), 1;
MOV      t.x (LE.x), 0;
MOV      t.y (NOF.y), 1;
KIL      t;                          # any component still negative
KIL      LE1.z;                      # identical hashes (SAD result 0): discard
PK2US.U  w.x, n;                     # packed words written as unsigned (.U)
PK4B.U   w.y, n;
PK4UB.U  w.z, c;
PK2H.U   w.w, t;
MOV.U.NTC c, w;                      # FLOAT temp receives the packed words
MOV      result.color, c;
END
