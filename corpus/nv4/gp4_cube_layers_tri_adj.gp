!!NVgp4.0
# Single-pass cube-map rendering of triangles with adjacency, with silhouette-edge flags.
# Exercises NV_geometry_program4: PRIMITIVE_IN TRIANGLES_ADJACENCY (vertices 0/2/4 are the
# triangle, 1/3/5 the adjacent ones), per-vertex ATTRIB variables indexed relatively by vertex
# (pos[v.x]) and a per-vertex ATTRIB array indexed twice (tcs[v.x][k.x + 1]), an OUTPUT array
# written relatively (outtc[k.x + 1]), a TEMP array, relative PARAM addressing with offsets
# (faces[r.x + 3]), result.layer and result.primid from primitive.id, nested REP (two levels)
# with the bare `CONT GE.x` form and BRK (NE.w), ENDPRIM after each face.
PRIMITIVE_IN TRIANGLES_ADJACENCY;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 18;
ATTRIB pos = vertex.position;                  # pos[v]
ATTRIB tcs[] = { vertex.texcoord[0..1] };      # tcs[v][k]
PARAM  faces[24] = { program.local[0..23] };   # six view-projection matrices, 4 rows each
PARAM  lim = program.local[24];                # w = number of faces to render
OUTPUT outtc[] = { result.texcoord[0..2] };
INT TEMP f, v, r, k;
TEMP e1, e2, nrm, t, p, sil[3];
SUB    e1, pos[2], pos[0];
SUB    e2, pos[4], pos[0];
XPD    nrm.xyz, e1, e2;
MOV.S  v.x, 1;
MOV.S  k.x, 0;
REP    3;                                      # adjacent vertex on the far side: silhouette
  SUB    t, pos[v.x], pos[0];
  DP3    t.x, t, nrm;
  SGE    sil[k.x], t.x, 0;
  ADD.S  v.x, v.x, 2;
  ADD.S  k.x, k.x, 1;
ENDREP;
MOV.S  f.x, 0;
MOV.S  k.x, 0;
REP    6;
  MUL.S  r.x, f.x, 4;
  ADD.S  f.x, f.x, 1;
  I2F    t.w, f.x;
  DP3.CC t.x, nrm, faces[r.x + 2];             # forward axis of this face's view
  CONT   GE.x;                                 # triangle faces away from this cube face
  MOV.S  v.x, 0;
  REP    3;
    DP4    p.x, faces[r.x], pos[v.x];
    DP4    p.y, faces[r.x + 1], pos[v.x];
    DP4    p.z, faces[r.x + 2], pos[v.x];
    DP4    p.w, faces[r.x + 3], pos[v.x];
    MOV    result.position, p;
    MOV    outtc[k.x], tcs[v.x][k.x];
    MOV    outtc[k.x + 1], tcs[v.x][k.x + 1];
    MOV    outtc[2], sil[0];
    SUB.S  result.layer.x, f.x, 1;
    MOV.S  result.primid.x, primitive.id.x;
    EMIT;
    ADD.S  v.x, v.x, 2;
  ENDREP;
  ENDPRIM;
  SGE.CC t.w, t.w, lim.w;
  BRK    (NE.w);
ENDREP;
END
