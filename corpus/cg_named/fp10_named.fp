!!FP1.0
# cgc version 3.1.0013, build date Apr 24 2012
# command line args: -profile fp30
#profile fp30
#program main_fragment
#var float2 VOUT.texCoord : $vin.TEXCOORD0 : TEX0 : 0 : 1
#var float2 IN.texture_size :  : IN$texture_size : 1 : 1
#var float2 IN.video_size :  : IN$video_size : 1 : 0
#var sampler2D texture : TEXUNIT0 : texunit 0 : 2 : 1
#var float4 main_fragment : $vout.COLOR : COL : -1 : 1
DECLARE IN$texture_size;
DECLARE IN$video_size;
MULR  R0.xy, f[TEX0], IN$texture_size;
TEX   R0, R0, TEX0, 2D;
MOVR  o[COLR], R0;
END
# 3 instructions, 1 R-regs, 0 H-regs
