!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 3;
# cgc version 3.1.0013, build date Apr 24 2012
# command line args: -profile gp4gp
#profile gp4gp
#program main_geometry
#var float4 position.__data[0] : $vin.VERTEX[0].POSITION : HPOS[0][32] : 0 : 1
#var float4 position.__data[1] : $vin.VERTEX[1].POSITION : HPOS[1][32] : 0 : 1
#var float4 position.__data[2] : $vin.VERTEX[2].POSITION : HPOS[2][32] : 0 : 1
#var float2 texCoord.__data[0] : $vin.VERTEX[0].TEXCOORD0 : TEX0[0][37] : 1 : 1
#var float2 texCoord.__data[1] : $vin.VERTEX[1].TEXCOORD0 : TEX0[1][37] : 1 : 1
#var float2 texCoord.__data[2] : $vin.VERTEX[2].TEXCOORD0 : TEX0[2][37] : 1 : 1
#var float4 offset :  : c[0] : 2 : 1
PARAM c[1] = { program.local[0] };
ATTRIB vertex_texcoord = vertex.texcoord[0];
ATTRIB vertex_position = vertex.position;
OUTPUT result_texcoord = result.texcoord[0];
OUTPUT result_position = result.position;
ADD.F result_position, vertex[0].position, c[0];
MOV.F result_texcoord, vertex[0].texcoord[0];
EMIT;
ADD.F result_position, vertex[1].position, c[0];
MOV.F result_texcoord, vertex[1].texcoord[0];
EMIT;
ADD.F result_position, vertex[2].position, c[0];
MOV.F result_texcoord, vertex[2].texcoord[0];
EMIT;
END
# 9 instructions, 0 R-regs
