!!NVgp4.0
# Line-to-quad expansion with corners selected by extended swizzles.
# Exercises SWZ in a geometry program (NV_gpu_program4 2.X.8 SWZ) on vertex[n] bindings and on
# TEMPs, with negated component and constant selectors, PRIMITIVE_IN LINES with
# PRIMITIVE_OUT TRIANGLE_STRIP.
PRIMITIVE_IN LINES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 4;
PARAM w = program.local[0];                   # x = half width
TEMP d, n, o;
SUB   d, vertex[1].position, vertex[0].position;
SWZ   n, d, -y, x, 0, 0;                      # perpendicular in xy
DP2   o.x, n, n;
RSQ   o.x, o.x;
MUL   n, n, o.x;
MUL   n, n, w.x;
ADD   result.position, vertex[0].position, n;
SWZ   result.texcoord[0], d, 0, 0, 0, 1;
EMIT;
SUB   result.position, vertex[0].position, n;
SWZ   result.texcoord[0], d, 0, 1, 0, 1;
EMIT;
ADD   result.position, vertex[1].position, n;
SWZ   result.texcoord[0], d, 1, 0, 0, 1;
EMIT;
SUB   result.position, vertex[1].position, n;
SWZ   result.texcoord[0], d, 1, 1, 0, 1;
EMIT;
END
