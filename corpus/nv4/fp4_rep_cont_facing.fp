!!NVfp4.0
# Loop with CONT on odd iterations, NaN detection, two-sided shading and depth output.
# Adapted from the worked example FP4-B of shared/design/nv_dialects.md section 11.7
# (NV_gpu_program4 2.X.8 REP/CONT/IF, Table X.16 NAN rule; NV_fragment_program4
# fragment.facing and result.depth).
# Exercises: REP with a float count, CONT (NE.x), AND.S.CC parity test, DIV.CC producing NaN,
# IF NAN.x, IF LT.x, fragment.facing, result.depth.z.
ATTRIB tc   = fragment.texcoord[0];
ATTRIB face = fragment.facing;
PARAM  n    = program.local[0];         # x = iteration count
INT TEMP i;
TEMP acc, t;
MOV      acc, 0;
MOV.S    i.x, 0;
REP      n.x;
  ADD.S    i.x, i.x, 1;
  AND.S.CC t.x, i.x, 1;                 # ZF set when i is even
  CONT     (NE.x);                      # odd i: next iteration
  ADD      acc, acc, tc;
ENDREP;
DIV.CC   t.x, tc.z, tc.w;               # 0/0 -> NaN -> SF = ZF = 1
IF NAN.x;
  MOV    acc, {1, 0, 1, 1};
ENDIF;
MOV.CC   t.x, face.x;                   # +1 front, -1 back
IF LT.x;
  MUL    acc.xyz, acc, 0.5;
ENDIF;
MOV      result.color, acc;
MOV      result.depth.z, tc.x;
END
