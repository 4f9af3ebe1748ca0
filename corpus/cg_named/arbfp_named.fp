!!ARBfp1.0
# cgc version 3.1.0013, build date Apr 24 2012
# command line args: -profile arbfp1
#profile arbfp1
#program main_fragment
#semantic main_fragment.decal : TEXUNIT0
#semantic main_fragment.IN
#var float2 VOUT.texCoord : $vin.TEXCOORD0 : TEX0 : 0 : 1
#var float4 VOUT.color : $vin.COLOR : COL0 : 0 : 0
#var sampler2D s0 : TEXUNIT0 : texunit 0 : 1 : 0
#var sampler2D decal : TEXUNIT0 : texunit 0 : 1 : 1
#var float2 IN.texture_size :  : c[0] : 2 : 1
#var float4 weights[0] :  : c[1] : 3 : 1
#var float4 weights[1] :  : c[2] : 3 : 1
#var float4 weights[2] :  : c[3] : 3 : 1
#var float main :  : c[4] : 4 : 1
#var float4 main_fragment : $vout.COLOR : COL : -1 : 1
#const c[5] = 0.5
PARAM c[6] = { program.local[0..4],
		{ 0.5 } };
TEMP R0;
TEMP R1;
MUL R0.xy, fragment.texcoord[0], c[0];
TEX R1, R0, texture[0], 2D;
MUL R0, R1, c[1];
MAD R0, R1, c[2], R0;
MAD R0, R1, c[3], R0;
MUL R0, R0, c[4].x;
MUL result.color, R0, c[5].x;
END
# 7 instructions, 2 R-regs
