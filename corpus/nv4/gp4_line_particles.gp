!!NVgp4.0
# Particles spawned along each line segment, jittered by an integer hash and coloured from
# textures, written out as points.
# Exercises: PRIMITIVE_IN LINES, PRIMITIVE_OUT POINTS, a per-vertex ATTRIB (uv[n]) read with a
# constant vertex number, REP.S with an integer count, integer hashing with SHL/SHR/OR/XOR/NOT/
# MOD/SAD (.U), CEIL/FLR/ROUND/TRUNC, texture instructions in a geometry program (TEX 1D, TXB,
# TXL and TXD on 2D with offsets, TXP on RECT, TXF on 3D, TXQ), PK2H/PK2US/PK4B/PK4UB and
# UP2H/UP2US/UP4B/UP4UB round trips, IF/ELSE/ENDIF on an integer SNE.U.CC result.
PRIMITIVE_IN LINES;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 16;
ATTRIB p0 = vertex[0].position;
ATTRIB p1 = vertex[1].position;
ATTRIB uv = vertex.texcoord[0];             # uv[n]
PARAM  k  = program.local[0];               # (particle count, jitter, lod, size)
UINT TEMP h, s;
INT TEMP n, sz, tc;
TEMP i, t, c, d, q, pk;
CEIL.S n.x, k.x;
MIN.S  n.x, n.x, 16;
TXQ    sz, 0, texture[0], 2D;               # atlas size
MOV.U  h.x, primitive.id.x;
SHL.U  h.x, h.x, 8;
MOV.S  i.x, 0;
REP.S  n.x;
  OR.U   h.y, h.x, i.x;
  XOR.U  h.y, h.y, 0x5BD1E995;
  SHR.U  h.z, h.y, 13;
  XOR.U  h.y, h.y, h.z;
  NOT.U  h.w, h.y;
  MOD.U  s.x, h.y, 1000;
  SAD.U  s.y, h.y, h.w, 7;
  I2F.U  t.xy, s;
  MUL    t.x, t.x, 0.001;                   # position along the segment in [0, 1)
  LRP    q, t.x, p1, p0;
  TEX    c, t, texture[1], 1D;              # colour ramp
  MOV    d, uv[0];
  MOV    d.w, k.z;
  TXL    d, d, texture[0], 2D, (1, 1);
  TXB    pk, uv[1], texture[0], 2D;
  TXD    t, uv[1], {0.125, 0, 0, 0}, {0, 0.125, 0, 0}, texture[0], 2D, (-2, 0);
  LRP    c, 0.5, d, c;
  TXP    d, uv[0], texture[2], RECT;
  FLR.S  tc.xyz, q;
  ROUND.S tc.w, k.z;
  TXF    pk, tc, texture[3], 3D, (0, 1, -1);
  MUL    d, d, pk;
  TRUNC  t.z, k.w;
  MAD    q.xy, d, k.y, q;
  PK4UB  pk.x, c;
  PK4B   pk.y, d;
  PK2US  pk.z, t;
  PK2H   pk.w, t;
  UP4UB  c, pk.x;
  UP4B   d, pk.y;
  UP2US  t.xy, pk.z;
  UP2H   t.zw, pk.w;
  SNE.U.CC s.w, s.x, 0;                     # hash hit zero?
  IF NE.w;
    MAD    result.color, c, d, t;
  ELSE;
    MOV    result.color, {1, 1, 1, 1};
  ENDIF;
  MOV    result.position, q;
  MOV    result.pointsize.x, t.z;
  EMIT;
  ADD.S  i.x, i.x, 1;
ENDREP;
END
