!!NVgp4.0
# Curve inflection ticks for line strips drawn with adjacency.
# Exercises NV_geometry_program4: PRIMITIVE_IN LINES_ADJACENCY (vertex[1], vertex[2] are the
# segment, vertex[0], vertex[3] its neighbours), PRIMITIVE_OUT LINE_STRIP, vertex[n].* bindings
# used directly in instructions (position, color front/back primary/secondary, fogcoord,
# pointsize, clip[n], texcoord), result.color.back.secondary and the other colour results,
# result.fogcoord/pointsize/clip, ENDPRIM between strips, bare `RET NE.y` in main, IF LT1.x,
# XPD, MUL.CC1, DIV, ABS, MIN, MAX, LRP.
PRIMITIVE_IN LINES_ADJACENCY;
PRIMITIVE_OUT LINE_STRIP;
VERTICES_OUT 4;
PARAM k = program.local[0];              # (tick length, minimum length, tick colour mix, -)
TEMP e0, e1, e2, c, n, t, len, m;
SUB    e0, vertex[1].position, vertex[0].position;
SUB    e1, vertex[2].position, vertex[1].position;
SUB    e2, vertex[3].position, vertex[2].position;
XPD    c.xyz, e0, e1;                    # turn direction at vertex 1 (z)
XPD    n.xyz, e1, e2;                    # turn direction at vertex 2 (z)
MUL.CC1 t.x, c.z, n.z;                   # negative: the curve inflects on this segment
DP3    len.x, e1, e1;
RSQ    len.y, len.x;
DIV    len.z, 1, len.y;                  # segment length
SLT.CC t.y, len.z, k.y;
RET    NE.y;                             # degenerate segment: nothing to draw
MOV    result.position, vertex[1].position;
MOV    result.color, vertex[1].color;
MOV    result.color.back, vertex[1].color.back;
MOV    result.color.secondary, vertex[1].color.secondary;
MOV    result.color.back.secondary, vertex[1].color.back.secondary;
MOV    result.fogcoord.x, vertex[1].fogcoord.x;
MAX    result.pointsize.x, vertex[1].pointsize.x, 1;
MOV    result.clip[0].x, vertex[1].clip[0].x;
MOV    result.texcoord[0], vertex[1].texcoord;
EMIT;
MOV    result.position, vertex[2].position;
MOV    result.color, vertex[2].color;
MOV    result.color.back, vertex[2].color.back.primary;
MOV    result.color.front.secondary, vertex[2].color.front.secondary;
MOV    result.color.back.secondary, vertex[2].color.back.secondary;
MOV    result.fogcoord.x, vertex[2].fogcoord.x;
MAX    result.pointsize.x, vertex[2].pointsize.x, 1;
MOV    result.clip[0].x, vertex[2].clip[0].x;
MOV    result.texcoord[0], vertex[2].texcoord[0];
EMIT;
IF LT1.x;
  ENDPRIM;                               # the tick is a separate strip
  MUL    n.xy, e1.yxzw, {-1, 1, 0, 0};   # perpendicular in the xy plane
  MUL    n.xy, n, len.y;
  ABS    t.z, t.x;
  MIN    t.z, t.z, 1;
  MUL    n.xy, n, t.z;
  LRP    m, 0.5, vertex[1].position, vertex[2].position;
  MAD    result.position, n, -k.x, m;
  LRP    c, k.z, vertex[1].color, {1, 0, 0, 1};
  MOV    result.color, c;
  EMIT;
  MAD    result.position, n, k.x, m;
  MOV    result.color, c;
  EMIT;
ENDIF;
END
