!!NVfp4.0
# Bright-pass filter for a bloom effect (written for the xlate README).
# Five taps along the blur direction; only texels brighter than the threshold contribute,
# weighted by a binomial kernel indexed with an integer loop counter.
# program.local[0] = (texel step x, texel step y, threshold, intensity)
PARAM setup = program.local[0];
PARAM weights[5] = { 0.0625, 0.25, 0.375, 0.25, 0.0625 };
PARAM luma = {0.2126, 0.7152, 0.0722, 0};
ATTRIB uv = fragment.texcoord[0];
INT TEMP i;
TEMP coord, texel, sum, y;
MOV sum, 0;
MAD coord.xy, setup, -2, uv;
MOV.S i.x, 0;
REP 5;
  TEX texel, coord, texture[0], 2D;
  DP3 y.x, texel, luma;
  SUB.CC y.x, y.x, setup.z;            # brightness above the threshold?
  IF GT.x;
    MAD sum, texel, weights[i.x].x, sum;
  ENDIF;
  ADD coord.xy, coord, setup;
  ADD.S i.x, i.x, 1;
ENDREP;
MUL.SAT result.color, sum, setup.w;
END
