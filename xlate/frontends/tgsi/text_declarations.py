"""TGSI text: ``DCL`` statements (register files and ranges, semantics, interpolation,
sampler views, resources and memory) -- part of the parser in ``text.py``."""
from __future__ import annotations

from .model import Declaration
from .text_lex import (LOCATIONS_PARSED, MEMORY_TYPES, SEMANTICS, _FILES, _Fail, _INTERP, _RTYPES,
                       _TARGETS, _describe, _isword, _old_file_message, implicit_dim)


class _Declarations:
    """Part of :class:`~xlate.frontends.tgsi.text._Parser` (mixed in)."""

    # -- DCL -----------------------------------------------------------------------------------
    def _dcl_bracket(self, allow_empty: bool):
        """after '[': -> (first, last) or None for '[]'."""
        vals = self.v
        if vals[self.i] == "]":
            if not allow_empty:
                raise _Fail("E1002", "expected a register index, found ']'", self.i)
            self.i += 1
            return None
        fi = self.i
        first = self.uint("a register index")
        last = first
        if vals[self.i] == "..":
            self.i += 1
            last = self.uint("the last register index")
        self.expect("]", "']' or '..'")
        if last < first:
            raise _Fail("E1002", f"empty register range {first}..{last}", fi)
        return first, last

    def declaration(self) -> None:
        vals = self.v
        ki = self.i
        self.i += 1
        if self.seen_instruction:
            self.sink.error("E1002", "declaration after the first instruction (declarations "
                            "and immediates come first)", self.span(ki))
        fi = self.i
        v = vals[fi]
        if not _isword(v):
            raise _Fail("E1002", f"expected a register file, found {_describe(v)}", fi)
        file = v.upper()
        if file not in _FILES:
            raise _Fail("E3004", _old_file_message(v) or f"unknown register file '{v}'", fi)
        self.i += 1
        self.expect("[", "'['")
        proc = self.processor
        per_vertex = (file == "IN" and proc in ("GEOM", "TESS_CTRL", "TESS_EVAL")) or \
                     (file == "OUT" and proc == "TESS_CTRL")
        b1 = self._dcl_bracket(per_vertex)
        dim = None
        if vals[self.i] == "[":
            self.i += 1
            b2 = self._dcl_bracket(False)
            if not per_vertex:
                if b1[0] != b1[1]:
                    raise _Fail("E1002", "the first bracket of a 2-D declaration is one "
                                "index, not a range", fi + 2)
                dim = b1[0]
            b1 = b2
        elif b1 is None:
            raise _Fail("E1002", "'[]' needs a second bracket ('IN[][0]')", fi + 2)
        first, last = b1
        usage = None
        if vals[self.i] == ".":
            self.i += 1
            usage = self._mask("usage mask")
            if usage == (True, True, True, True):
                usage = None
        fields: dict = {}
        resource = file in ("IMAGE", "SVIEW", "RES")
        special = resource or file in ("BUFFER", "MEMORY")
        stage = 0
        # stages: 1 ARRAY, 2 LOCAL, 3 semantic / file part, 4 STREAM, 5 interpolation,
        # 6 location, 7 INVARIANT
        while vals[self.i] == ",":
            self.i += 1
            wi = self.i
            wv = vals[wi]
            if not _isword(wv):
                raise _Fail("E1002", f"expected a declaration attribute, found "
                            f"{_describe(wv)}", wi)
            word = wv.upper()
            self.i += 1
            if word == "ARRAY" and stage < 1:
                self.expect("(", "'('")
                fields["array_id"] = self.uint("an array id")
                self.expect(")", "')'")
                stage = 1
            elif resource and stage < 2 and "target" not in fields:
                if word not in _TARGETS:
                    raise _Fail("E5001", f"unknown texture target '{wv}'", wi)
                fields["target"] = word
                self._resource_tail(file, fields)
                stage = 3
            elif file == "BUFFER" and word == "ATOMIC" and stage < 2:
                fields["atomic"] = True
                stage = 3
            elif file == "MEMORY" and word in MEMORY_TYPES and stage < 2:
                if word != "GLOBAL":
                    fields["memory_type"] = word
                stage = 3
            elif word == "LOCAL" and stage < 2 and not special:
                fields["local"] = True
                stage = 2
            elif word in SEMANTICS and stage < 3 and not special:
                fields["semantic"] = word
                if vals[self.i] == "[":
                    self.i += 1
                    fields["semantic_index"] = self.uint("a semantic index")
                    self.expect("]", "']'")
                stage = 3
            elif word == "STREAM" and stage < 4:
                self.expect("(", "'('")
                streams = []
                for k in range(4):
                    if k:
                        self.expect(",", "','")
                    streams.append(self.uint("a vertex stream number"))
                self.expect(")", "')'")
                if any(streams):
                    fields["stream"] = tuple(streams)
                stage = 4
            elif word in _INTERP and stage < 5:
                fields["interpolate"] = word
                stage = 5
            elif word in LOCATIONS_PARSED and stage < 6:
                if word != "CENTER":
                    fields["location"] = word
                stage = 6
            elif word == "INVARIANT" and stage < 7:
                fields["invariant"] = True
                stage = 7
            elif word in SEMANTICS or word in _INTERP or word in LOCATIONS_PARSED or \
                    word in ("ARRAY", "LOCAL", "STREAM", "INVARIANT", "ATOMIC"):
                raise _Fail("E1002", f"'{wv}' is repeated or out of place in this "
                            "declaration (order: ARRAY, LOCAL, semantic, STREAM, "
                            "interpolation, location, INVARIANT)", wi)
            else:
                raise _Fail("E1002", f"unknown declaration attribute '{wv}'", wi)
        implicit = per_vertex and implicit_dim(proc, file, fields.get("semantic"))
        decl = Declaration(file, first, last, dim=dim, implicit_dim=implicit,
                           usage_mask=usage, span=self.span(fi), **fields)
        self._declare(decl, fi)
        self.decls.append(decl)

    def _resource_tail(self, file: str, fields: dict) -> None:
        """After the target of IMAGE / SVIEW / RES: RAW, WR, a format, return types."""
        vals = self.v
        types: list[str] = []
        image = file != "SVIEW"
        while vals[self.i] == "," and _isword(vals[self.i + 1]):
            word = vals[self.i + 1].upper()
            if image and word == "RAW" and not fields.get("raw"):
                fields["raw"] = True
            elif image and word == "WR" and not fields.get("writable"):
                fields["writable"] = True
            elif image and word.startswith("PIPE_FORMAT_") and "format" not in fields:
                fields["format"] = word
            elif file != "IMAGE" and word in _RTYPES and len(types) < 4:
                types.append(word)
            else:
                break
            self.i += 2
        if file == "SVIEW" and not types:
            j = self.i + 1 if vals[self.i] == "," else self.i
            raise _Fail("E1002", "expected a return type (UNORM, SNORM, SINT, UINT, FLOAT) "
                        f"after the SVIEW target, found {_describe(vals[j])}", j)
        if types:
            if len(types) == 1:
                types *= 4
            elif len(types) != 4:
                raise _Fail("E1002", "a sampler view takes one return type or four, found "
                            f"{len(types)}", self.i - 1)
            fields["return_types"] = tuple(types)

    def _declare(self, decl: Declaration, fi: int) -> None:
        lst = self.ranges.setdefault((decl.file, decl.dim), [])
        for first, last, line in lst:
            if first <= decl.last and decl.first <= last:
                lo = max(first, decl.first)
                dim = "" if decl.dim is None else f"[{decl.dim}]"
                self.sink.error("E2001", f"{decl.file}{dim}[{lo}] is declared twice",
                                self.span(fi), f"first declared on line {line}")
                break
        lst.append((decl.first, decl.last, self.tl[fi]))
        key = (decl.file, decl.dim)
        if decl.last - decl.first < 4096:
            self.small.setdefault(key, set()).update(range(decl.first, decl.last + 1))
        else:
            self.big.setdefault(key, []).append((decl.first, decl.last))
        self.files_declared.add(decl.file)
