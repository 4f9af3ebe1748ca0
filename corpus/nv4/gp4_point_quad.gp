!!NVgp4.0
# Point-to-quad expansion (point sprites) with early RETs and a subroutine per corner.
# Adapted from the worked example GP4-B of shared/design/nv_dialects.md section 11.8
# (NV_gpu_program4 2.X.8 CAL/RET, NV_geometry_program4 primitive.id and vertex[n] bindings).
# Exercises: PRIMITIVE_IN POINTS, `main:`, RET (NE.x) and RET (LE.x) in main, CAL inside REP,
# a PARAM array of constant vectors (negative constants) addressed relatively, vertex[0].*
# bindings in ATTRIB declarations, primitive.id with AND.S.CC.
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 4;
ATTRIB p  = vertex[0].position;
ATTRIB sz = vertex[0].pointsize;
PARAM  corners[4] = { {-1,-1,0,0}, {1,-1,0,0}, {-1,1,0,0}, {1,1,0,0} };
INT TEMP i, id;
TEMP t;
main:
  AND.S.CC id.x, primitive.id.x, 1;     # ZF set for even primitive ids
  RET      (NE.x);                      # odd primitive: emit nothing
  MOV.CC   t.x, sz.x;
  RET      (LE.x);                      # non-positive size: emit nothing
  MOV.S    i.x, 0;
  REP      4;
    CAL    corner;
    ADD.S  i.x, i.x, 1;
  ENDREP;
  RET;
corner:
  MAD    result.position, corners[i.x], sz.x, p;
  MOV    result.texcoord[0], corners[i.x];
  EMIT;
  RET;
END
