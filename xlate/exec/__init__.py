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
* ``texture.py``  :class:`Texture` and the texture opcodes (sampling not implemented yet)
"""
from .api import ExecResult, execute
from .bind import ExecError
from .machine import EXECUTORS
from .texture import Texture

__all__ = ["ExecError", "ExecResult", "EXECUTORS", "Texture", "execute"]
