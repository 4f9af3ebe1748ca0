!!ARBfp1.0
OPTION NV_fragment_program;
# Half-float packing and condition-code selects (ARB_fragment_program + the
# NV_fragment_program option; written for the xlate golden corpus).
TEMP a, b, packed;
SHORT TEMP h;
MOVC a, fragment.texcoord[0];
MOV b, fragment.texcoord[1];
MOV b.xy (LT), -b;
PK2H packed.x, a;
UP2H h.xy, packed.x;
PK4B packed.y, fragment.color;
UP4B h.zw, packed.y;
SGT b.z, a.z, a.w;
DDX a.x, a.x;
DDY a.y, a.y;
ADD b.w, a.x, a.y;
MUL result.color, h, b;
MOV result.color.w (EQ.w), a.w;
END
