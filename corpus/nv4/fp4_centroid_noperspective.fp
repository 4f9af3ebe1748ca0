!!NVfp4.0
# Screen-space decal edge fade with centroid, screen-linear interpolation.
# Exercises the interpolation-modifier combinations of NV_fragment_program4 2.X.3.1:
# `CENTROID NOPERSPECTIVE` in that order (FLAT is the only modifier that cannot be combined),
# CENTROID alone, FLAT with a float attribute, and a SHORT OUTPUT declaration
# (NV_gpu_program4 2.X.3.1: SHORT is allowed on TEMP and OUTPUT).
CENTROID NOPERSPECTIVE ATTRIB edge = fragment.texcoord[0];   # screen-linear distance to edges
CENTROID ATTRIB uv = fragment.texcoord[1];
FLAT ATTRIB tint = fragment.color;
PARAM fade = program.local[0];                 # (edge width, -, -, -)
SHORT OUTPUT col = result.color;
TEMP c, t;
TEX   c, uv, texture[0], 2D;
MIN   t.x, edge.x, edge.y;
MIN   t.y, edge.z, edge.w;
MIN   t.x, t.x, t.y;
RCP   t.y, fade.x;
MUL_SAT t.x, t.x, t.y;
MUL   c, c, tint;
MUL   c.w, c.w, t.x;
MUL   c.xyz, c, c.w;                           # premultiplied alpha
MOV   col, c;
END
