!!ARBfp1.0
OPTION NV_fragment_program2;
# A 4-tap shadow filter with REP and IF (ARB_fragment_program + the NV_fragment_program2
# option; written for the xlate golden corpus).  program.local[0] = (texel step, threshold, 0, 0).
PARAM setup = program.local[0];
TEMP coord, lit, tap, sum, n;
MOV sum, 0;
MOV coord, fragment.texcoord[0];
REP 4;
  TEX tap, coord, texture[0], 2D;
  SUBC tap.x, tap.x, setup.y;
  IF GT.x;
    ADD sum.x, sum.x, 0.25;
  ENDIF;
  ADD coord.x, coord.x, setup.x;
ENDREP;
NRM n.xyz, fragment.texcoord[1];
DIV lit.x, sum.x, fragment.texcoord[1].w;
DP2 lit.y, n, fragment.texcoord[2];
MOV result.color, lit;
END
