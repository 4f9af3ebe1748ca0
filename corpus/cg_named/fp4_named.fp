!!NVfp4.0
# cgc version 3.1.0013, build date Apr 24 2012
# command line args: -profile gp4fp
#profile gp4fp
#program main_fragment
#var float4 VOUT.tint : $vin.ATTR1 : ATTR1 : 0 : 1
#var float2 VOUT.texCoord : $vin.TEXCOORD0 : TEX0 : 0 : 1
#var float4 IN.pos :  : c[0] : 1 : 1
#var float4 IN_pos :  : c[1] : 2 : 1
#var float4 R0 :  : c[2] : 3 : 1
#var float4 gl_Color :  : c[3] : 4 : 1
#var float4 main_fragment : $vout.COLOR : COL0[0] : -1 : 1
PARAM c[4] = { program.local[0..3] };
ATTRIB fragment_attrib[] = { fragment.attrib[1..1] };
TEMP R0;
OUTPUT result_color0 = result.color;
MUL.F R0, fragment.texcoord[0], c[0];
MAD.F R0, fragment_attrib[0], c[1], R0;
MAD.F R0, R0, c[2], c[3];
MOV.F result_color0, R0;
END
# 4 instructions, 1 R-regs
