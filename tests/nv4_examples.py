"""The worked example programs of nv_dialects.md sections 11.6-11.9 (from the NV_gpu_program4
family specs), shared by the frontend, diagnostics and executor tests."""

VP4_A = """!!NVvp4.0
PARAM mvp[4]   = { state.matrix.mvp };
PARAM table[8] = { program.local[0..7] };
PARAM ctl      = program.local[8];      # (limit, count, -, -)
INT TEMP i, k;
TEMP acc, t;
main:
  DP4    result.position.x, mvp[0], vertex.position;
  DP4    result.position.y, mvp[1], vertex.position;
  DP4    result.position.z, mvp[2], vertex.position;
  DP4    result.position.w, mvp[3], vertex.position;
  MOV    acc, 0;
  MOV.S  k.x, vertex.id.x;
  REP    ctl.y;                         # floor(ctl.y) iterations, read once
    AND.S  i.x, k.x, 7;
    ADD    acc, acc, table[i.x];
    ADD.S  k.x, k.x, 1;
    SGT.CC t.x, acc.x, ctl.x;          # 1.0 when over the limit -> GT passes
    BRK    (GT.x);
  ENDREP;
  CAL    finish;
  RET;
finish:
  MOV.SAT result.color, acc;
  I2F    result.texcoord[0].x, k.x;
  RET;
END
"""

VP4_B = """!!NVvp4.0
UINT PARAM u = program.local[0];       # (0xFFFFFFFF, 1, 0x80000000, 3) set with ProgramLocalParameterI4uiNV
INT  PARAM s = program.local[1];       # (0x7FFFFFFF, 1, 7, 2) set with ProgramLocalParameterI4iNV
UINT TEMP sum, flags, hi;
INT  TEMP q;
TEMP f;
MOV      result.position, vertex.position;
ADD.U.CC sum, u.xzzw, u.yzyw;          # CC0 <- SF/ZF/OF/CF of each unsigned add
MOV.U    flags, 0;
MOV.U    flags (CF), 1;                # 1 where the add carried out
MOV.U    flags.w (SF.z), 2;            # sum.z has bit 31 set -> flags.w = 2
IF OF.y;                               # signed overflow in the y add?
  SHR.S  q, s, 1;                      # arithmetic shift right
ELSE;
  MOV.S  q, -1;
ENDIF;
DIV.S    q.z, s.z, s.w;                # 7 / 2
MOD.S    q.w, s.z, s.w;                # 7 % 2
MOV.U    hi, 0;
MUL.U.HI hi.x, u.x, u.x;               # high word of 0xFFFFFFFF^2
SHL.U    hi.y, u.w, 4;                 # 3 << 4
I2F      f, q;
ROUND.S  q.x, 2.5;                     # half to even
TRUNC.S  q.y, -1.5;                    # toward zero
MOV.U    result.attrib[0], flags;
MOV.S    result.attrib[1], q;
MOV.U    result.attrib[2], hi;
MOV      result.texcoord[0], f;
END
"""

FP4_A = """!!NVfp4.0
FLAT INT ATTRIB lod = fragment.attrib[1];
ATTRIB uv     = fragment.texcoord[0];
PARAM  cutoff = program.local[0];       # x = alpha cutoff
INT TEMP size, coord;
TEMP c, t;
TXQ    size, lod.x, texture[0], 2D;     # size.xy of level lod.x
I2F    t.xy, size;
MUL    t.xy, uv, t;
FLR.S  coord.xy, t;
MOV.S  coord.z, 0;
MOV.S  coord.w, lod.x;
TXF    c, coord, texture[0], 2D;
SLT.CC t.x, c.w, cutoff.x;              # 1.0 when alpha < cutoff
KIL    GT.x;
MOV    result.color, c;
END
"""

FP4_B = """!!NVfp4.0
ATTRIB tc   = fragment.texcoord[0];
ATTRIB face = fragment.facing;
PARAM  n    = program.local[0];         # x = iteration count
INT TEMP i;
TEMP acc, t;
MOV      acc, 0;
MOV.S    i.x, 0;
REP      n.x;
  ADD.S    i.x, i.x, 1;
  AND.S.CC t.x, i.x, 1;                 # ZF set when i is even
  CONT     (NE.x);                      # odd i: next iteration
  ADD      acc, acc, tc;
ENDREP;
DIV.CC   t.x, tc.z, tc.w;               # 0/0 -> NaN -> SF = ZF = 1
IF NAN.x;
  MOV    acc, {1, 0, 1, 1};
ENDIF;
MOV.CC   t.x, face.x;                   # +1 front, -1 back
IF LT.x;
  MUL    acc.xyz, acc, 0.5;
ENDIF;
MOV      result.color, acc;
MOV      result.depth.z, tc.x;
END
"""

GP4_A = """!!NVgp4.0
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
"""

GP4_B = """!!NVgp4.0
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
  RET      (LE.x);                      # non-positive size: emit nothing (NaN passes!)
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
"""

PBO = """!!NVvp4.0
BUFFER4 bones[] = { program.buffer[0] };     # vec4 rows, 3 per bone
PARAM  mvp[4] = { state.matrix.mvp };
INT TEMP b;
TEMP p;
ROUND.S b.x, vertex.attrib[6].x;             # bone index from a float attribute
MUL.S  b.x, b.x, 3;
DP4    p.x, bones[b.x], vertex.position;
DP4    p.y, bones[b.x + 1], vertex.position;
DP4    p.z, bones[b.x + 2], vertex.position;
MOV    p.w, vertex.position.w;
DP4    result.position.x, mvp[0], p;
DP4    result.position.y, mvp[1], p;
DP4    result.position.z, mvp[2], p;
DP4    result.position.w, mvp[3], p;
END
"""
