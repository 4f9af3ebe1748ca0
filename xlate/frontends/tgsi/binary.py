"""TGSI binary token streams: reader and writer for the SEED and the MODERN layout (tgsi.md §4).

Two layouts exist (tgsi.md 4.9):

``seed``
    The layout of the design document "TG Shader Infrastructure" (specs/tgsi_token_format.md,
    the token stream with a VERSION 1.1 token) as Mesa used it in memory 2007-11 .. 2009-11:
    VERSION, HEADER, PROCESSOR, then sized tokens with ``Extended`` bits and typed extension
    tokens (EXT_NV, EXT_LABEL, EXT_TEXTURE, SWZ, MOD, CONDCODE, MODULATE).
``modern``
    Mesa's ``p_shader_tokens.h`` layout (no VERSION; HEADER, PROCESSOR, then sized tokens whose
    optional follow-up tokens are announced by flag bits).

Public API::

    detect_layout(data) -> "seed" | "modern" | None
    decode(data, sink, ...) -> Shader | None       # never raises; problems go to ``sink``
    encode_seed(shader, ...) -> bytes              # ValueError for what SEED cannot express
    encode_modern(shader, ...) -> bytes            # ValueError for what MODERN cannot express

Words are little-endian 32-bit.  Every problem with a stream is reported as E1009 ("malformed
binary token stream", message starting ``word N:``), an opcode number without a name in the
chosen table as E3001.  ``decode`` reports everything it can (a bad sized token is skipped by
its Size and decoding goes on) and returns ``None`` whenever it reported an error.

Numbering tables (the tokens do not say which producer wrote them, tgsi.md 4.9):

* SEED opcodes: the **2008-03** table of tgsi.md 4.7 by default.  SEED itself prints no opcode
  table; 2008-03 .. 2009-11 is the period in which Mesa actually produced VERSION 1.1 streams
  (the 2007-08 table predates any producer that is still findable, and is reordered at 54),
  and its numbers agree with every surviving modern number.  ``opcode_table="2007-08"``
  selects H2007's numbering; a ``dict`` {number: name} can be passed for anything else.
* SEED CondMask: H2007 values (GT 0 EQ 1 LT 2 UN 3 GE 4 LE 5 NE 6 TR 7 FL 8), switchable with
  ``cc_table="mesa2008"`` (UN removed: GT 0 EQ 1 LT 2 GE 3 LE 4 NE 5 TR 6 FL 7).
* MODERN opcodes: the modern numbers of tgsi.md §2 (= ``p_shader_tokens.h``, bminor 6da87527).
* MODERN processors: ``processor_enum`` "mesa2023" (default: VERTEX 0, TESS_CTRL 1, TESS_EVAL 2,
  GEOMETRY 3, FRAGMENT 4, COMPUTE 5 -- current Mesa, matching the other modern enums used
  here), "pipe2016" (VERTEX 0, FRAGMENT 1, GEOMETRY 2, ...) or "tgsi2008" (FRAGMENT 0,
  VERTEX 1, GEOMETRY 2, ...).
* MODERN image formats (``DCL IMAGE``, memory instructions): the PIPE_FORMAT enum changes with
  every Mesa release, so no table is built in: a format number N decodes as the name
  ``PIPE_FORMAT_<N>`` unless a ``formats`` sequence (index = enum value) is given; the writer
  accepts those names and ``PIPE_FORMAT_<digits>``.

Spec readings (each has a test in tests/test_tgsi_binary.py):

* SEED 6.4.5: in a 2-D operand the SRC/DST_REGISTER token carries the **first** bracket
  (``CONSTANT_ARRAY[A0.x+2]...``) and the DIMENSION token the second (``...[TEMPORARY[5].w+9]``)
  -- the opposite of MODERN, where the register token carries the second bracket and
  DIMENSION the first.  Both map onto the model by bracket position (``RegRef.dim`` = first).
* SEED 3.1: several DECLARATION_RANGE tokens are merged by union; a DECLARE_RANGE declaration
  without any RANGE token declares the default range 0..0.  A union that is not contiguous
  decodes as one model Declaration per contiguous run (the model holds one range).
* SEED 5.2: EXT_LABEL is read the Mesa way (Label = instruction index, Target = 0).  Label 0
  with Target 1 is the document's "disabled" default and decodes as no label; Target 1 with
  a non-zero Label (a symbolic label *declaration*) cannot be represented and is reported.
* SEED 1.1 says an unrecognised token "can be safely skipped"; it is skipped (decoding goes
  on) but still reported, because dropping e.g. a predicate extension changes the meaning.
* SEED "Must be 0" padding bits that are set are reported.
* SEED SWZ composes with the plain swizzle as Mesa's 2008 ``tgsi_util`` did: component c is
  ``Swizzle[ExtSwizzle[c]]`` for ExtSwizzle 0..3, else the constant 0.0 / 1.0 (model values
  4 / 5).  ExtDivide selects through the plain swizzle the same way.  The writer emits SWZ with
  an identity plain swizzle, which is the form of the document's example 6.4.2.
* SEED address tokens (indirect operands) are SRC_REGISTER tokens of which only File, Index and
  SwizzleX are used; the writer fills SwizzleY..W with their defaults (Y, Z, W) as in 6.4.4.
  Nested indirection (SEED 6.4.6) and modified address tokens cannot be represented.
"""
from __future__ import annotations

from .binary_read import decode, detect_layout
from .binary_tables import (MODERN_OPCODES, OPCODE_TABLES, SEED_OPCODES_2007, SEED_OPCODES_2008,
                            implicit_dim)
from .binary_write import encode_modern, encode_seed

__all__ = ["detect_layout", "decode", "encode_seed", "encode_modern",
           "SEED_OPCODES_2008", "SEED_OPCODES_2007", "MODERN_OPCODES", "OPCODE_TABLES",
           "implicit_dim"]
