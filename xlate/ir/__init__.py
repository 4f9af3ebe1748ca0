"""The IR: model (dataclasses), ops (the opcode table), printer, validator."""
from .model import *  # noqa: F401,F403
from .ops import OPCODES, OpInfo, op  # noqa: F401
