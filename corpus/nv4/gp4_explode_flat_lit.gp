!!NVgp4.0
# Exploding, flat-lit triangles: each face is pushed along its normal by an animated amount
# and shaded once per face.
# Exercises float opcodes in a geometry program: NRM, DP2, DP2A, DPH, DST, LIT, POW, EX2, LG2,
# RCP, RCC, RFL, SIN, COS, SCS, FRC, SSG, CMP, X2D and the set-on opcodes SEQ/SFL/SGT/SLE/STR,
# suffix spellings (DP3R, MULH_SAT, ADDC1, MADR_SSAT), .F, a CC1 conditional write (GT1.y),
# state.light[0] bindings, vertex[n].texcoord[1] and result.texcoord[n].
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 3;
ATTRIB P = vertex.position;              # P[n]: position of vertex n
PARAM  anim = program.local[0];          # (time, speed, amplitude, shininess)
PARAM  rot  = program.local[1];          # 2x2 uv rotation
TEMP e1, e2, N, c, t, s, lit, col, d, off;
SUB    e1, P[1], P[0];
SUB    e2, P[2], P[0];
XPD    N.xyz, e1, e2;
NRM    N.xyz, N;
DP3R   t.x, N, state.light[0].position;
DP3    t.y, N, state.light[0].half;
MOV    t.w, anim.w;
LIT    lit, t;
MUL    col, lit.y, state.light[0].diffuse;
POW    d.x, |t.y|, anim.w;
MAD    col.xyz, d.x, state.light[0].specular, col;
MUL    t.z, anim.x, anim.y;
FRC    t.z, t.z;
SIN    s.x, t.z;
COS    s.y, t.z;
SCS    s.zw, t.z;
SSG    s.w, s.x;
EX2    d.y, s.y;
LG2    d.z, d.y;
RCP    d.w, d.y;
RCC    d.x, s.x;
MULH_SAT off.w, d.w, anim.z;
MUL.F  off.xyz, N, off.w;
DST    c, {0, 4, 16, 0}, {0, 0.5, 0, 0.25};
DPH    c.x, c, state.light[0].attenuation;
ADDC1  c.y, c.x, -1;                     # CC1.y from the attenuation term
MOV    col.w (GT1.y), 0.5;
RFL    e1.xyz, N, {0, 0, 1, 0};
CMP    e1.w, s.x, s.y, s.z;
DP2    e2.x, e1, rot;
DP2A   e2.y, e1, rot.zwzw, anim.x;
X2D    e2.zw, e1, rot, {1, 0, 0, 1};
SEQ    t.x, s.x, s.y;
SFL    t.y, s.x, s.y;
SGT    t.z, s.x, s.y;
SLE    t.w, s.x, s.y;
STR    lit.w, s.x, s.y;
MADR_SSAT e2, t, lit.w, e2;
ADD    result.position, P[0], off;
MOV    result.color, col;
MOV    result.texcoord[0], e2;
MOV    result.texcoord[1], vertex[0].texcoord[1];
EMIT;
ADD    result.position, P[1], off;
MOV    result.color, col;
MOV    result.texcoord[0], e2;
MOV    result.texcoord[1], vertex[1].texcoord[1];
EMIT;
ADD    result.position, P[2], off;
MOV    result.color, col;
MOV    result.texcoord[0], e2;
MOV    result.texcoord[1], vertex[2].texcoord[1];
EMIT;
END
