!!NVfp4.0
# Per-pixel multi-light Blinn-Phong shading plus a procedural wood pattern, in subroutines.
# Exercises `main:` with CAL/RET subroutines (one called with a condition, CAL wood (LEG1.y)),
# REP with BRK (NE.x) after SGE.CC, IF/ELSE/ENDIF on NAN1, a write masked by (LEG.z), relative
# addressing of two PARAM arrays (program.local[0..3] and [4..7]) and float opcodes DP2, DP2A,
# DP4, DPH, DST, LIT, POW, RSQ, RCP, RCC, RFL, ABS, SSG, SIN, COS, SCS, FRC, CEIL, TRUNC,
# ROUND, X2D, LG2 and the set-on opcodes SEQ/SFL/SGE/SGT/SLE/SNE/STR.
ATTRIB nrm0 = fragment.texcoord[1];
ATTRIB view = fragment.texcoord[2];
ATTRIB obj  = fragment.texcoord[3];
PARAM  ldir[4] = { program.local[0..3] };
PARAM  lcol[4] = { program.local[4..7] };
PARAM  mat     = program.local[8];       # (shininess, ring frequency, light count, grain)
INT TEMP i;
TEMP N, V, H, t, lit, acc, w, d;
main:
  NRM    N.xyz, nrm0;
  NRM    V.xyz, view;
  MOV    acc, 0;
  MOV.S  i.x, 0;
  REP    mat.z;
    CAL    light;
    ADD.S  i.x, i.x, 1;
    SGE.CC t.x, acc.w, 4.0;             # enough energy gathered
    BRK    (NE.x);
  ENDREP;
  RSQ.CC1 t.y, acc.w;
  IF NAN1.y;                            # negative accumulated weight: fall back
    MOV  acc, {0.5, 0.5, 0.5, 1};
  ELSE;
    CAL  wood (LEG1.y);
  ENDIF;
  MOV    result.color, acc;
  RET;
light:
  ADD    H.xyz, ldir[i.x], V;
  NRM    H.xyz, H;                      # half vector
  DP3    t.x, N, ldir[i.x];
  DP3    t.y, N, H;
  MOV    t.w, mat.x;
  LIT    lit, t;
  POW    d.x, t.y, mat.x;               # explicit Blinn term for the alpha channel
  MAD    acc.xyz, lit.y, lcol[i.x], acc;
  ADD    acc.xyz, acc, lit.z;
  ADD    acc.w, acc.w, d.x;
  DST    d, {0, 4, 16, 0}, {0, 0.5, 0, 0.25};   # distance terms (1, d, d^2, 1/d) for d = 2
  DPH    t.z, d, lcol[i.x];
  RCP    t.z, t.z;
  MUL    acc.xyz, acc, t.z;
  RET;
wood:
  RFL    w.xyz, N, V;                   # reflected view for a sheen term
  ABS    w.w, w.z;
  DP2    d.x, obj, obj;
  RCC    d.y, d.x;
  DP2A   d.z, obj, obj, {0.25, 0, 0, 0};
  LG2.CC0 d.z, d.z;                     # NaN for a negative argument
  MUL    t.x, d.x, mat.y;
  ADD    t.x (LEG.z), t.x, d.z;         # add the log term only when it is a number
  SIN    t.y, t.x;
  COS    t.z, t.x;
  SCS    t.xy, obj.z;
  FRC    w.x, t.x;
  CEIL   w.y, t.y;
  TRUNC  w.z, t.z;
  ROUND  w.w, w.w;
  SSG    d.w, t.y;
  X2D    d.xy, obj, t, {1, 0, 0, 1};
  SEQ    lit.x, w.y, w.z;
  SNE    lit.y, w.y, w.z;
  SGT    lit.z, t.y, 0;
  SLE    lit.w, t.z, 0;
  SFL    H.x, t, t;
  STR    H.y, t, t;
  DP4    H.z, lit, {0.1, 0.2, 0.3, 0.4};
  LRP    acc.xyz, H.z, acc, w;
  MAD    acc.xyz, d.w, 0.05, acc;
  RET;
END
