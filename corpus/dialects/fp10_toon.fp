!!FP1.0
# Two-band toon shading with a rim term (NV_fragment_program; written for the xlate golden
# corpus).  f[TEX0] normal, f[TEX1] light vector, f[TEX2] view vector; p[0] the ink colour.
DP3R R0.x, f[TEX0], f[TEX0];
RSQR R0.x, R0.x;
MULR R0.xyz, f[TEX0], R0.x;
DP3R R1.x, R0, f[TEX1];
SGTRC H0.x, R1.x, {0.5}.x;
MOVR R2, {0.4, 0.4, 0.4, 1};
MOVR R2 (NE.x), {1, 1, 1, 1};
DP3R_SAT R1.y, R0, f[TEX2];
ADDR R1.z, {1}.x, -R1.y;
POWR R1.w, R1.z, {4}.x;
MADR R2.xyz, p[0], R1.w, R2;
LITR R3, R1.xyyy;
MULR R2.w, R2.w, R3.x;
MOVR o[COLR], R2;
END
