!!ARBfp1.0
# Parallax-offset diffuse lighting with an alpha test (written for the xlate golden corpus).
# texture[0] colour, texture[1] height in alpha; fragment.texcoord[1] tangent-space view
# vector, fragment.texcoord[2] tangent-space light vector; program.local[0] = (scale, bias,
# alpha reference, 0).
OPTION ARB_precision_hint_nicest;
PARAM setup = program.local[0];
PARAM half = 0.5;
TEMP uv, height, view, light, base, n, d;
TEX height, fragment.texcoord[0], texture[1], 2D;
MAD height.x, height.w, setup.x, setup.y;
DP3 view.w, fragment.texcoord[1], fragment.texcoord[1];
RSQ view.w, view.w;
MUL view.xyz, fragment.texcoord[1], view.w;
MAD uv.xy, view, height.x, fragment.texcoord[0];
TXP base, fragment.texcoord[0], texture[0], 2D;
TEX n, uv, texture[0], 2D;
LRP base, half, base, n;
DP3 light.w, fragment.texcoord[2], fragment.texcoord[2];
RSQ light.w, light.w;
MUL light.xyz, fragment.texcoord[2], light.w;
DP3_SAT d.x, light, view;
CMP d.y, -d.x, d.x, 0.25;             # an ambient floor where the light faces away
SUB d.z, base.w, setup.z;
KIL d.z;                              # alpha test
MUL result.color.xyz, base, d.y;
MOV result.color.w, base.w;
END
