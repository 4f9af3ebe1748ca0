!!NVgp4.0
# Debug view of vertex and primitive ids: each triangle is passed through and its vertices
# are tagged with the vertex ids written by the vertex program.
# Exercises the geometry attribute binding vertex[m].id (NV_geometry_program4 Table X.2,
# "filled with the vertex ID result written by the vertex program") read as integers,
# primitive.id, result.primid and UINT/INT typed OUTPUT declarations.
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 3;
ATTRIB ids = vertex.id;                      # ids[n]
ATTRIB P = vertex.position;                  # P[n]
INT OUTPUT tag = result.attrib[0];
INT OUTPUT prim = result.primid;
INT TEMP i;
MOV.S  i.x, 0;
REP    3;
  MOV    result.position, P[i.x];
  MOV.S  tag.x, ids[i.x].x;
  MOV.S  tag.y, primitive.id.x;
  MOV.S  prim.x, primitive.id.x;
  I2F    result.color, ids[i.x].x;           # id as a debug colour
  EMIT;
  ADD.S  i.x, i.x, 1;
ENDREP;
ENDPRIM;
END
