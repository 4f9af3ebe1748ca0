"""TGSI lowering: register references (temporaries, indirect addressing, inputs/outputs and
their runs, system values, constants) and the interface bindings of TGSI semantics -- part
of the lowerer in ``lower.py``."""
from __future__ import annotations

from . import model as M
from ...ir.model import (Binding, DataType, Dest, Index, Instruction, PER_VERTEX_STAGES, RegKind,
                         Register, Source, Stage, TESS_STAGES)
from .lower_memory import COMPUTE_SYSTEM_VALUES
from .lower_common import (F, MAX_CONST_BUFFER, MAX_DRAW_BUFFER, MAX_INDEX, MAX_VERTEX_ATTRIB,
                           _OLD_RES, _canonical_semantic)
from .lower_tess import (TESS_SYSTEM_VALUES, is_per_vertex, tcs_output_binding, tcs_output_ref,
                         tess_binding)


class _Registers:
    """Part of :class:`~xlate.frontends.tgsi.lower.Lowerer` (mixed in)."""

    # ---- register references ----------------------------------------------------------------------
    def temp_like(self, name: str, dtype: DataType = DataType.NONE, size: int | None = None) -> str:
        if name not in self.regs:
            self.regs[name] = Register(name, RegKind.TEMP, dtype, size)
        return name

    def index_of(self, ref: M.RegRef) -> Index:
        ind = ref.indirect
        if ind is None:
            return Index(ref.index)
        return Index(ref.index, self.addr_reg(ind), ind.comp)

    def addr_reg(self, ind: M.Indirect) -> str:
        if ind.file == "ADDR":
            return self.temp_like(f"ADDR{ind.index}")
        if ind.file == "TEMP" and "TEMP" not in self.indirect:
            return self.temp_like(f"TEMP{ind.index}")
        self.reject("E7001", f"indirect addressing through {ind.file}[{ind.index}] is not supported "
                    "(use ADDR or a TEMP register that is not itself indirectly addressed)")

    def file_array(self, file: str, kind: RegKind) -> str:
        """One TEMP array for a whole indirectly addressed file (TEMP, and the shadow of OUT
        when the program reads its outputs); IN and OUT arrays are runs (``io_array``)."""
        name = file
        if name not in self.regs:
            last = max([i for (f, _, i) in self.decl_of if f == file] +
                       [self.max_index.get(file, -1)])
            self.regs[name] = Register(name, kind, DataType.NONE, last + 1)
        return name

    def io_runs(self, file: str) -> list[tuple[int, int]]:
        """The register ranges of IN or OUT that one relative operand may address: maximal runs
        of consecutive registers whose bindings continue each other (same path, next index, same
        interpolation).  An ``ARRAY(n)`` declaration is a run of its own, as Mesa keeps its
        arrays apart; ``DCL OUT[0], POSITION`` then ``DCL OUT[1..2], GENERIC[0]`` are two runs,
        so ``OUT[ADDR[0].x+1]`` addresses GENERIC[0..1] only."""
        cache = self.__dict__.setdefault("_io_runs", {})
        if file in cache:
            return cache[file]
        decls = {i: d for (f, dim, i), d in self.decl_of.items() if f == file and dim is None}
        indices = set(decls)
        if file == "IN" and self.stage == Stage.VERTEX:    # vertex.attrib[n]: no declaration needed
            indices |= set(range(self.max_index.get(file, -1) + 1))
        runs: list[tuple[int, int]] = []
        prev = None
        for i in sorted(indices):
            d = decls.get(i)
            # what the binding depends on: the semantic (its index advancing with the register)
            # and the interpolation; vertex inputs are vertex.attrib[i] whatever is declared
            if file == "IN" and self.stage == Stage.VERTEX:
                key = ("attrib", i)
            elif d is None:
                key = None
            elif d.semantic is None and self.seed_convention:
                key = self.seed_semantic(file, i) + (d.interpolate, d.location)
            else:
                key = (d.semantic, d.semantic_index + (i - d.first), d.interpolate, d.location)
            joins = runs and prev is not None and key is not None and prev[0] is not None \
                and i == runs[-1][1] + 1 and key[0] == prev[0][0] and key[1] == prev[0][1] + 1 \
                and key[2:] == prev[0][2:] \
                and (d is prev[1] or not (getattr(d, "array_id", 0) or getattr(prev[1], "array_id", 0)))
            if joins:
                runs[-1] = (runs[-1][0], i)
            else:
                runs.append((i, i))
            prev = (key, d)
        cache[file] = runs
        return runs

    def io_array(self, ref: M.RegRef, kind: RegKind) -> tuple[str, Index] | None:
        """(IR array, element index) when ``ref`` lies in a run of IN/OUT that some operand
        addresses relatively; None for a register no relative operand can reach."""
        bases = self.indirect_bases.get(ref.file)
        if not bases:
            return None
        runs = self.io_runs(ref.file)
        run = next((r for r in runs if r[0] <= ref.index <= r[1]), None)
        if run is None:
            if ref.indirect is not None:
                self.reject("E2003", f"{ref.file}[{ref.index}], the base of a relative operand, "
                            "is not declared")
            return None
        if not any(run[0] <= b <= run[1] for b in bases):
            return None
        first, last = run
        name = f"{ref.file}{first}" if first == last else f"{ref.file}{first}_{last}"
        if name not in self.regs:
            binds = tuple(self.binding(ref.file, i) for i in range(first, last + 1))
            self.regs[name] = Register(name, kind, DataType.NONE, last - first + 1, binds,
                                       interpolation=self.interp(ref.file, first))
        ind = ref.indirect
        if ind is None:
            return name, Index(ref.index - first)
        return name, Index(ref.index - first, self.addr_reg(ind), ind.comp)

    def reg_ref(self, ref: M.RegRef, write: bool) -> tuple[str, Index | None, Index | None]:
        """(IR register, element index, vertex index) of a TGSI operand."""
        f = ref.file
        # token streams carry signed 16-bit indices; only an indirect offset may be negative
        if (ref.index < 0 and ref.indirect is None) or (ref.dim or 0) < 0:
            self.reject("E2006", f"{f}[{ref.index if ref.indirect is None else ''}]"
                        f"{'' if ref.dim is None else f'[{ref.dim}]'}: a register index cannot "
                        "be negative")
        if (ref.indirect is None and ref.index > MAX_INDEX) or (ref.dim or 0) > MAX_INDEX:
            self.reject("E2006", f"{f}[{ref.index}]{'' if ref.dim is None else f'[{ref.dim}]'}: "
                        f"register indices are 0..{MAX_INDEX}")
        if f == "TEMP":
            if "TEMP" in self.indirect:
                return self.file_array("TEMP", RegKind.TEMP), self.index_of(ref), None
            return self.temp_like(f"TEMP{ref.index}"), None, None
        if f == "ADDR":
            return self.temp_like(f"ADDR{ref.index}"), None, None
        if f == "IMM":
            if write:
                self.reject("E3005", "immediates are read-only")
            if ref.index >= len(self.sh.immediates) and ref.indirect is None:
                self.reject("E2003", f"IMM[{ref.index}] is not declared")
            if ref.indirect is not None and not self.sh.immediates:
                self.reject("E2003", "IMM[...] is addressed relatively, but the program has no "
                            "immediates")
            if "IMM" in self.indirect:
                return "IMM", self.index_of(ref), None
            return f"IMM{ref.index}", None, None
        if f == "CONST":
            if write:
                self.reject("E3005", "constants are read-only")
            if ref.dim_indirect is not None:
                self.reject("E7001", "an indirect constant-buffer index (CONST[ADDR[..]][n]) is "
                            "not supported")
            b = ref.dim or 0
            if b > MAX_CONST_BUFFER:
                self.reject("E2006", f"CONST[{b}][..]: constant buffers are 0..{MAX_CONST_BUFFER} "
                            "(program.buffer[b])")
            name = "CONST" if b == 0 else f"CONST{b}"
            if name not in self.regs:         # only relative references, nothing declared
                self.reject("E2003", f"constant buffer {b} has no declared elements to address "
                            "relatively (DCL CONST" + (f"[{b}]" if b else "") + "[first..last])")
            return name, self.index_of(ref), None
        if f == "IN":
            if write:
                self.reject("E3005", "inputs are read-only")
            return self.input_ref(ref)
        if f == "OUT" and self.stage == Stage.TESS_CTRL:
            return tcs_output_ref(self, ref, write)
        if f == "OUT":
            if self.out_read:
                if "OUT" in self.indirect:
                    return self.file_array("OUT", RegKind.TEMP), self.index_of(ref), None
                return self.temp_like(f"OUT{ref.index}_v"), None, None
            arr = self.io_array(ref, RegKind.OUTPUT)
            if arr is not None:
                return arr[0], arr[1], None
            return self.output_reg(ref.index), None, None
        if f == "SV":
            if write:
                self.reject("E3005", "system values are read-only")
            return self.system_value(ref.index), None, None
        if f == "RES":
            self.reject("E7001", _OLD_RES)
        self.reject("E7001", f"register file {f} is not supported as an operand of {self.cur.opcode}")

    def input_ref(self, ref: M.RegRef):
        two_d = ref.dim is not None or ref.dim_indirect is not None
        if self.stage in TESS_STAGES and two_d != is_per_vertex(self, "IN", ref.index):
            if two_d:
                self.reject("E3004", f"IN[{ref.index}] is a per-patch input of a "
                            f"{self.sh.processor} shader: it has no vertex index")
            self.reject("E3004", f"IN[{ref.index}] is a per-vertex input of a {self.sh.processor} "
                        f"shader: name the vertex, IN[v][{ref.index}]")
        if self.stage in PER_VERTEX_STAGES and two_d:
            attr = ref.index
            if ref.indirect is not None:
                self.reject("E7001", "indirect attribute index of a per-vertex input is not "
                            "supported")
            name = f"IN{attr}"
            if self.stage in TESS_STAGES:
                nverts = self.tessellation.patch_vertices if self.tessellation else 32
                what = f"a patch has at most {nverts} vertices (gl_MaxPatchVertices)"
            else:
                nverts = self.geometry.input_vertices if self.geometry is not None else 6
                what = f"the input primitive has {nverts} vertices"
            if ref.dim_indirect is None and not 0 <= (ref.dim or 0) < nverts:
                self.reject("E6003", f"vertex {ref.dim} does not exist: {what}")
            if name not in self.regs:
                b = self.binding("IN", attr)
                self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (b,),
                                           per_vertex=True)
            if ref.dim_indirect is not None:
                ind = ref.dim_indirect
                return name, None, Index(ref.dim or 0, self.addr_reg(ind), ind.comp)
            return name, None, Index(ref.dim)
        arr = self.io_array(ref, RegKind.INPUT)
        if arr is not None:
            return arr[0], arr[1], None
        name = f"IN{ref.index}"
        if name not in self.regs:
            b = self.binding("IN", ref.index)
            self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (b,),
                                       interpolation=self.interp("IN", ref.index))
            if b.path == "fragment.position" and self.pixel_center_integer:
                self.fragcoord_shift = name
        return name, None, None

    def output_reg(self, index: int) -> str:
        name = f"OUT{index}"
        if name not in self.regs:
            self.regs[name] = Register(name, RegKind.OUTPUT, DataType.NONE, None,
                                       (self.binding("OUT", index),))
        return name

    def system_value(self, index: int) -> str:
        d = self.decl_of.get(("SV", None, index))
        sem = _canonical_semantic(d.semantic) if d else None
        path = {(Stage.VERTEX, "VERTEXID"): "vertex.id", (Stage.VERTEX, "INSTANCEID"): "vertex.instance",
                (Stage.FRAGMENT, "POSITION"): "fragment.position",
                (Stage.FRAGMENT, "PRIMID"): "primitive.id", (Stage.GEOMETRY, "PRIMID"): "primitive.id",
                (Stage.FRAGMENT, "FACE"): "fragment.facing",
                (Stage.FRAGMENT, "SAMPLEID"): "fragment.sampleid",
                **TESS_SYSTEM_VALUES}.get((self.stage, sem))
        if self.stage == Stage.COMPUTE:
            path = COMPUTE_SYSTEM_VALUES.get(sem)
        if path is None:
            self.reject("E7001", f"system value SV[{index}]"
                        f"{', ' + sem if sem else ''} is not supported in a {self.sh.processor} shader")
        name = f"SV{index}"
        if name not in self.regs:
            if sem == "FACE":
                # SV FACE is an integer: ~0 front-facing, 0 back (tgsi.rst); fragment.facing is
                # +1.0/-1.0 in x: computed once at the start (FSLT 0 < facing.x).
                src = self.regs.setdefault("fragment.facing", Register(
                    "fragment.facing", RegKind.INPUT, DataType.NONE, None,
                    (Binding("fragment.facing"),)))
                self.regs[name] = Register(name, RegKind.TEMP, DataType.NONE)
                zero = self.const((0, 0, 0, 0))
                self.prologue.append(Instruction("FSLT", F, Dest(name), (
                    Source(zero), Source(src.name, swizzle=(0, 0, 0, 0)))))
            else:
                self.regs[name] = Register(name, RegKind.INPUT, DataType.NONE, None, (Binding(path),))
                if path == "fragment.position" and self.pixel_center_integer:
                    self.fragcoord_shift = name
        return name

    def binding(self, file: str, index: int) -> Binding:
        d = self.decl_of.get((file, None, index))
        if file == "IN" and self.stage == Stage.VERTEX:
            if not 0 <= index <= MAX_VERTEX_ATTRIB:
                self.reject("E2006", f"IN[{index}]: vertex inputs are vertex.attrib[0.."
                            f"{MAX_VERTEX_ATTRIB}]")
            return Binding("vertex.attrib", index)
        if d is None:
            self.reject("E2003", f"{file}[{index}] is not declared")
        return self._semantic_binding(file, d, index)

    def _semantic_binding(self, file: str, d: M.Declaration, index: int) -> Binding:
        # A ranged declaration names the semantic of its first register; the others follow it:
        # DCL OUT[1..2], GENERIC[0] is GENERIC[0] and GENERIC[1] (Mesa's tgsi_scan adds
        # reg - Range.First to Semantic.Index).
        sem, i = _canonical_semantic(d.semantic), d.semantic_index + (index - d.first)
        if sem is None and self.seed_convention:
            sem, i = self.seed_semantic(file, index)
        st = self.stage
        if st in TESS_STAGES:
            b = tess_binding(self, file, d, sem, i) if file == "IN" or st == Stage.TESS_EVAL \
                else tcs_output_binding(self, sem, i)
            if b is not None:
                return b
        if file == "IN":
            root = "fragment" if st == Stage.FRAGMENT else "vertex"
            table = {"POSITION": (f"{root}.position", None), "FOG": (f"{root}.fogcoord", None),
                     "GENERIC": (f"{root}.generic", i), "TEXCOORD": (f"{root}.tgsi_texcoord", i)}
            if sem == "COLOR" and i in (0, 1):
                return Binding(f"{root}.color" + (".secondary" if i else ""))
            if st == Stage.FRAGMENT and sem == "FACE":
                return Binding("fragment.facing")
            if st == Stage.FRAGMENT and sem == "PCOORD":
                return Binding("fragment.pointcoord")
            if sem == "BCOLOR" and i in (0, 1):
                # two-sided colour inputs: the back colours a vertex shader writes (locations 2, 3)
                return Binding(f"{root}.color.back" + (".secondary" if i else ""))
            if sem == "PRIMID":
                return Binding("primitive.id")
            if st == Stage.GEOMETRY and sem == "PSIZE":
                return Binding("vertex.pointsize")
        else:
            if st == Stage.FRAGMENT:
                if sem == "COLOR":
                    if not 0 <= i <= MAX_DRAW_BUFFER:
                        self.reject("E7001", f"COLOR[{i}] is beyond the fragment outputs "
                                    f"(COLOR[0..{MAX_DRAW_BUFFER}], result.color[n])")
                    return Binding("result.color", i)
                if sem == "POSITION":
                    return Binding("result.depth")
                table = {}
            else:
                table = {"POSITION": ("result.position", None), "PSIZE": ("result.pointsize", None),
                         "FOG": ("result.fogcoord", None), "GENERIC": ("result.generic", i),
                         "TEXCOORD": ("result.tgsi_texcoord", i)}
                if sem == "COLOR" and i in (0, 1):
                    return Binding("result.color" + (".secondary" if i else ""))
                if sem == "BCOLOR" and i in (0, 1):
                    return Binding("result.color.back" + (".secondary" if i else ""))
                if st == Stage.GEOMETRY and sem == "LAYER":
                    return Binding("result.layer")
                if st == Stage.GEOMETRY and sem == "PRIMID":
                    return Binding("result.primid")
        if sem in table:
            path, idx = table[sem]
            limit = 26 if sem == "GENERIC" else 7
            if sem in ("GENERIC", "TEXCOORD") and idx > limit:
                self.reject("E7001", f"{sem}[{idx}] is beyond the interface mapping "
                            f"({sem}[0..{limit}]; see README 'Interface mapping')")
            self.check_location_clash(sem, idx, d)
            return Binding(path, idx)
        what = f"{sem}[{i}]" if sem else "no semantic"
        self.reject("E7001", f"{file}[{index}] with {what} has no interface mapping in a "
                    f"{self.sh.processor} shader")

    @property
    def seed_convention(self) -> bool:
        return not any(x.semantic for x in self.sh.declarations)

    def seed_semantic(self, file: str, index: int) -> tuple[str, int]:
        """Seed-format streams carry no semantics at all (tgsi.md 4.9): the convention xlate
        assumes is OUT[0] = POSITION and OUT[n] = GENERIC[n-1] in vertex/geometry shaders,
        IN[n] = GENERIC[n] and OUT[n] = COLOR[n] in fragment shaders."""
        if file == "OUT" and self.stage != Stage.FRAGMENT:
            return ("POSITION", 0) if index == 0 else ("GENERIC", index - 1)
        if file == "OUT":
            return "COLOR", index
        return "GENERIC", index

    def check_location_clash(self, sem: str, idx: int, d: M.Declaration) -> None:
        """GENERIC[n] (location 5 + n) and TEXCOORD[m] (31 - m) meet when 5 + n == 31 - m."""
        if sem not in ("GENERIC", "TEXCOORD"):
            return
        loc = 5 + idx if sem == "GENERIC" else 31 - idx
        for other in self.sh.declarations:
            if other.file != d.file or other.semantic not in ("GENERIC", "TEXCOORD") \
                    or other.semantic == sem:
                continue
            for k in range(other.last - other.first + 1):      # a range: consecutive indices
                oidx = other.semantic_index + k
                oloc = 5 + oidx if other.semantic == "GENERIC" else 31 - oidx
                if oloc == loc:
                    self.reject("E7001", f"{sem}[{idx}] and {other.semantic}[{oidx}] "
                                f"both map to varying location {loc}")

    def interp(self, file: str, index: int) -> str | None:
        d = self.decl_of.get((file, None, index))
        if file != "IN" or self.stage != Stage.FRAGMENT or d is None:
            return None
        if d.interpolate == "CONSTANT":
            return "FLAT"
        if d.interpolate == "LINEAR" and d.semantic not in ("POSITION",):
            return "NOPERSPECTIVE"
        if d.location == "CENTROID":
            return "CENTROID"
        return None

    def const(self, words: tuple[int, int, int, int]) -> str:
        name = self.consts.get(words)
        if name is None:
            name = f"%k{len(self.consts)}"
            self.consts[words] = name
            self.regs[name] = Register(name, RegKind.CONST, DataType.NONE, None, (), (words,),
                                       implicit=True)
        return name
