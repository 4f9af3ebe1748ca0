"""The software executor: runs an IR :class:`~xlate.ir.model.Program` (the ORIGINAL program,
with the semantics of its spec) on many invocations at once with NumPy.

Layout -- where to look for what:

* ``api.py``      :func:`execute`, :class:`ExecResult` (chunking, result assembly)
* ``bind.py``     inputs/params -> register storage, validation (:class:`ExecError`)
* ``machine.py``  instruction compilation, the per-lane-pc scheduler, :data:`EXECUTORS`
* ``operands.py`` operand load pipeline and destination/CC-mask update (GP4 §2.X.4.2-3)
* ``cc.py``       condition-code flags and the Table X.16 tests
* ``alu.py``      one function per arithmetic/logic opcode
* ``flow.py``     IF/ELSE/ENDIF, REP/ENDREP/BRK/CONT, CAL/RET, KIL, EMIT/ENDPRIM
* ``state.py``    per-chunk machine state
* ``texture.py``  :class:`Texture`, texture validation and the texture opcodes (GL 4.5 sampling
  rules; its docstring lists every choice made where the specs leave room)
* ``cli.py``      ``xlate run`` (input/parameter/texture file formats, output tables and files)

Project choices where the specs leave the result undefined (the GLSL backend does the same;
each is commented at the code that implements it):

* temps and results start as all-zero words; CC0/CC1 start as EQ (ZF only) on every lane;
* relative array/vertex indices out of range are clamped to [0, n-1];
* float flags clear OF/CF; ``-a + -b`` (CCKind.UNDEF_OFCF) clears OF/CF;
* saturation lets NaN through; XPD/NRM/RFL w and SCS z/w are 0.0;
* integer DIV truncates toward zero; DIV and MOD by zero give all bits set (-1 / 0xFFFFFFFF);
  INT_MIN / -1 wraps to INT_MIN; shift counts are taken & 31;
* FLR/CEIL/ROUND/TRUNC to .S/.U clamp to the integer range (GP4 issue 41), NaN -> 0;
* SSG(NaN) = 0; PK2US/PK4B/PK4UB pack NaN as 0.0; POW is exp2(b*log2(a)) with no special
  cases (0^0 = NaN), LIT has 0^0 = 1, 0^(w>0) = 0, 0^(w<0) = +INF;
* REP: a NaN float count skips the block; a CAL with 4 calls pending is ignored;
* DDX/DDY: lanes 4k..4k+3 form a 2x2 quad (x0y0, x1y0, x0y1, x1y1), *fine* differences --
  DDX along the lane's own row, DDY along its own column (NV_fragment_program4 2.X.8.Z: "evaluated
  at the sample location of the pixel"; the GLSL is dFdxFine/dFdyFine); 0 outside fragment
  programs; fragment chunks are rounded up to whole quads;
* EMIT keeps the result values; vertices beyond VERTICES_OUT are dropped, empty strips too;
* SHORT/LONG storage sizes and the R/H precision suffixes are ignored (all 32-bit);
* textures: implicit LODs from coarse quad differences (d/dx = lane 4k+1 - 4k, d/dy = lane
  4k+2 - 4k), 0 partials outside fragment programs; exact rho and float32 log2 (or Mesa
  llvmpipe's approximations with ``sampling="llvmpipe"``); cube ties Z > X > Y; seamless cube
  filtering by default; TXF/TXQ out of range -> 0; NaN coordinates -> 0 (texture.py).

``execute`` accepts a Program or program source text.
"""
from .api import ExecResult, execute
from .bind import ExecError
from .machine import EXECUTORS
from .texture import Texture

__all__ = ["ExecError", "ExecResult", "EXECUTORS", "Texture", "execute"]
