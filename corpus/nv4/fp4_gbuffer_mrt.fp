!!NVfp4.0
# Deferred-shading G-buffer pass writing four render targets.
# Exercises NV_fragment_program4: OPTION ARB_draw_buffers with result.color[0..3] (as OUTPUT
# variables and directly), CENTROID, NOPERSPECTIVE and NOPERSPECTIVE CENTROID attribute
# modifiers, an ATTRIB array over fragment.texcoord[4..6] addressed relatively inside REP.S,
# fragment.position, fragment.fogcoord, fragment.clip[0], fragment.attrib[n], primitive.id,
# DDX/DDY-based face normal (XPD, NRM), and the state bindings state.depth.range,
# state.fog.color/params, state.texenv[n].color and state.texenv.color.
OPTION ARB_draw_buffers;
CENTROID ATTRIB nrm = fragment.texcoord[1];
NOPERSPECTIVE ATTRIB scr = fragment.texcoord[2];
NOPERSPECTIVE CENTROID ATTRIB lm = fragment.texcoord[3];
ATTRIB layers[] = { fragment.texcoord[4..6] };
ATTRIB pos  = fragment.position;
PARAM  dr   = state.depth.range;        # (near, far, far - near, 1)
PARAM  fogc = state.fog.color;
PARAM  env1 = state.texenv[1].color;
PARAM  k    = program.local[0];         # (layer count, fog scale, -, -)
OUTPUT albedo  = result.color[0];
OUTPUT normal  = result.color[1];
OUTPUT surface = result.color[2];
INT TEMP li, n;
TEMP c, dx, dy, N, t;
MOV    c, state.texenv.color;
FLR.S  n.x, k.x;
MOV.S  li.x, 0;
REP.S  n.x;                             # integer loop count
  MAD    c, layers[li.x], env1, c;
  ADD.S  li.x, li.x, 1;
ENDREP;
DDX    dx, fragment.attrib[0];          # view-space position derivatives
DDY    dy, fragment.attrib[0];
XPD    N.xyz, dx, dy;
NRM    N.xyz, N;
DP3    t.x, N, nrm;
CMP    N.xyz, t.x, -N, N;               # keep the face normal on the interpolated side
MAD    normal.xyz, N, 0.5, 0.5;
MOV    normal.w, lm.z;
MUL    t.x, fragment.fogcoord.x, state.fog.params.x;
MUL    t.x, t.x, k.y;
EX2    t.x, -t.x;
LRP    albedo.xyz, t.x, c, fogc;
MOV    albedo.w, c.w;
MAD    t.x, pos.z, dr.z, dr.x;          # window z back to the depth range
MOV    surface.x, t.x;
MUL    surface.yz, scr, pos.w;          # screen-linear coordinate times 1/w
I2F    surface.w, primitive.id.x;
MAX    result.color[3], fragment.clip[0].x, 0;
END
