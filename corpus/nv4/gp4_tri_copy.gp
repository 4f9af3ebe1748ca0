!!NVgp4.0
# Pass-through plus a translated, reversed copy of each triangle (two strips).
# Adapted from the worked example GP4-A of shared/design/nv_dialects.md section 11.8
# (NV_geometry_program4 2.X.3.2 per-vertex attribute variables, EMIT/ENDPRIM).
# Exercises: PRIMITIVE_IN TRIANGLES, PRIMITIVE_OUT TRIANGLE_STRIP, VERTICES_OUT, ATTRIB
# variables bound without a vertex number (indexed by vertex first, here relatively),
# REP with a constant count, EMIT, ENDPRIM, ADD.S/SUB.S on an INT TEMP.
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 6;
ATTRIB vpos = vertex.position;          # indexed by vertex number: vpos[n]
ATTRIB vcol = vertex.color;
PARAM  offset = program.local[0];
INT TEMP i;
MOV.S  i.x, 0;
REP    3;
  MOV    result.position, vpos[i.x];
  MOV    result.color, vcol[i.x];
  EMIT;
  ADD.S  i.x, i.x, 1;
ENDREP;
ENDPRIM;
MOV.S  i.x, 2;
REP    3;
  ADD    result.position, vpos[i.x], offset;
  MOV    result.color, {1, 0, 0, 1};
  EMIT;
  SUB.S  i.x, i.x, 1;
ENDREP;
END
