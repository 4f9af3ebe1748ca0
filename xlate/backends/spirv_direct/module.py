"""A SPIR-V module as words: ids, the logical sections, and cached types and constants.

The word-level emitter (chosen over assembling SPIR-V text with SPIRV-Tools by measurement:
docs/spirv_direct.md).  Every instruction is ``[(word count << 16) | opcode, operands...]``
appended to the list of its section; :meth:`Module.words` joins the sections in the order the
SPIR-V specification (2.4 "Logical Layout of a Module") prescribes.  Opcode numbers are from
the SPIR-V 1.0 unified grammar (KhronosGroup/SPIRV-Headers ``spirv.core.grammar.json``);
the tests disassemble emitted modules with SPIRV-Tools, which names every opcode, and
validate them with spirv-val.
"""
from __future__ import annotations

import math
import struct
from array import array

#: opcode numbers (SPIR-V unified grammar) of the instructions this backend writes
OP = dict(
    Nop=0, Source=3, Name=5, MemberName=6, String=7, Line=8, ExtInstImport=11, ExtInst=12,
    MemoryModel=14, EntryPoint=15, ExecutionMode=16, Capability=17,
    TypeVoid=19, TypeBool=20, TypeInt=21, TypeFloat=22, TypeVector=23, TypeImage=25,
    TypeSampledImage=27, TypeArray=28, TypeStruct=30, TypePointer=32, TypeFunction=33,
    ConstantTrue=41, ConstantFalse=42, Constant=43, ConstantComposite=44, ConstantNull=46,
    Function=54, FunctionEnd=56, FunctionCall=57, Variable=59, Load=61, Store=62,
    AccessChain=65, Decorate=71, MemberDecorate=72, VectorShuffle=79, CompositeConstruct=80,
    CompositeExtract=81, CompositeInsert=82, Image=100, ImageSampleImplicitLod=87,
    ImageSampleExplicitLod=88, ImageSampleDrefImplicitLod=89, ImageSampleDrefExplicitLod=90,
    ImageFetch=95, ImageGather=96, ImageDrefGather=97, ImageQuerySizeLod=103, ImageQuerySize=104,
    ImageQueryLod=105, ImageQueryLevels=106,
    ImageQuerySamples=107,
    ConvertFToU=109, ConvertFToS=110, ConvertSToF=111, ConvertUToF=112, Bitcast=124,
    SNegate=126, FNegate=127, IAdd=128, FAdd=129, ISub=130, FSub=131, IMul=132, FMul=133,
    FDiv=136, UDiv=134, UMod=137, UMulExtended=151, IAddCarry=149, ISubBorrow=150, SMulExtended=152, Switch=251, Any=154, All=155, IsNan=156, IsInf=157, LogicalOr=166, LogicalAnd=167,
    LogicalNot=168, LogicalEqual=164, LogicalNotEqual=165, Select=169, IEqual=170, INotEqual=171, UGreaterThan=172,
    SGreaterThan=173, UGreaterThanEqual=174, SGreaterThanEqual=175, ULessThan=176,
    SLessThan=177, ULessThanEqual=178, SLessThanEqual=179, FOrdEqual=180, FOrdNotEqual=182,
    FUnordNotEqual=183, FOrdLessThan=184, FUnordLessThan=185, FOrdGreaterThan=186,
    FOrdLessThanEqual=188, FOrdGreaterThanEqual=190, ShiftRightLogical=194,
    ShiftRightArithmetic=195, ShiftLeftLogical=196, BitwiseOr=197, BitwiseXor=198,
    BitwiseAnd=199, Not=200, DPdxFine=210, DPdyFine=211, LoopMerge=246, SelectionMerge=247,
    EmitVertex=218, EndPrimitive=219,
    Label=248, Branch=249, BranchConditional=250, Kill=252, Return=253,
    # compute and memory (memory.py)
    TypeRuntimeArray=29, ArrayLength=68, ControlBarrier=224, MemoryBarrier=225)
# images and atomics (images.py, atomics.py)
OP.update(ImageRead=98, ImageWrite=99, ImageTexelPointer=60, AtomicLoad=227,
          AtomicExchange=229, AtomicCompareExchange=230, AtomicIAdd=234, AtomicSMin=236,
          AtomicUMin=237, AtomicSMax=238, AtomicUMax=239, AtomicAnd=240, AtomicOr=241,
          AtomicXor=242)

# the bitfield instructions and the float conversion (TGSI bitfield ops, FMA: issue 19's E7006 list)
OP.update(FConvert=115, UConvert=113, SDiv=135, SConvert=114, BitReverse=204, BitCount=205)

#: GLSL.std.450 extended instructions used
GLSL = dict(RoundEven=2, Trunc=3, FAbs=4, SAbs=5, SSign=7, Floor=8, Ceil=9, Sin=13, Cos=14, Exp2=29,
            Log2=30, Sqrt=31, FMin=37, FMax=40, SClamp=45, UMax=41, SMax=42, FClamp=43, PackUnorm4x8=55,
            PackUnorm2x16=57, PackHalf2x16=58, UnpackUnorm2x16=61, UnpackHalf2x16=62,
            UnpackUnorm4x8=64)
GLSL.update(UMin=38, SMin=39, Fma=50, Ldexp=53, FindILsb=73, FindSMsb=74, FindUMsb=75)

#: GLSL.std.450 functions of one float that :func:`fold` evaluates when the operand is a
#: constant: the GLSL path's ``log2(2.718282)`` is a constant expression that glslang folds (in
#: double precision, rounded once: glslang's Constant.cpp), so the direct module must not leave
#: it to the driver's approximation -- llvmpipe's log2 is a few ulps off, and cgc's POW of e
#: (``blur7x7-last-pass noopt``) departed by one ulp on 146 components where glslang's did not
FOLDED = {"Log2": math.log2, "Exp2": lambda x: math.pow(2.0, x), "Sqrt": math.sqrt,
          "Sin": math.sin, "Cos": math.cos}


def fold(name: str, bits: int) -> int | None:
    """The word of ``name`` (:data:`FOLDED`) of the float word ``bits``, computed in double
    precision and rounded once to float; None where no constant is made: outside the
    function's domain, or a result that is not a normal float or an exact zero (an infinity,
    a denormal the driver might flush, an underflow), which the run-time instruction keeps."""
    x = struct.unpack("<f", struct.pack("<I", bits))[0]
    try:
        y = FOLDED[name](x)
    except (ValueError, OverflowError):
        return None
    if not math.isfinite(y) or abs(y) >= 3.4028234663852886e38:
        return None
    word = struct.unpack("<I", struct.pack("<f", y))[0]
    exponent = word & 0x7F800000
    if exponent == 0x7F800000 or (exponent == 0 and (word & 0x007FFFFF or y != 0.0)):
        return None                  # an infinity, a denormal, or a result that underflowed
    return word

# enumerants
STORAGE = dict(UniformConstant=0, Input=1, Uniform=2, Output=3, Workgroup=4, Private=6,
               Function=7, Image=11)
DECORATION = dict(Block=2, ArrayStride=6, BuiltIn=11, NoContraction=42, Flat=14,
                  NoPerspective=13, Centroid=16, Location=30, Binding=33, DescriptorSet=34,
                  Offset=35, XfbBuffer=36, XfbStride=37, Patch=15, NonWritable=24,
                  NonReadable=25)
BUILTIN = dict(Position=0, PointSize=1, ClipDistance=3, VertexId=5, InstanceId=6,
               PrimitiveId=7, Layer=9, FragCoord=15, PointCoord=16, FrontFacing=17, SampleId=18,
               FragDepth=22, VertexIndex=42, InstanceIndex=43, TessLevelOuter=11,
               TessLevelInner=12, TessCoord=13, PatchVertices=14)
CAPABILITY = dict(Shader=1, Geometry=2, Tessellation=3, ClipDistance=32, SampledRect=37, Sampled1D=43, SampledBuffer=46,
                  ImageQuery=50, SampleRateShading=35, SampledCubeArray=45,
                  DerivativeControl=51, TransformFeedback=53)
CAPABILITY.update(Float64=10, Int64=11)
CAPABILITY.update(ImageCubeArray=34, ImageRect=36, Image1D=44, ImageBuffer=47,
                  StorageImageExtendedFormats=49, StorageImageReadWithoutFormat=55,
                  StorageImageWriteWithoutFormat=56, StorageImageMultisample=27, ImageMSArray=48)
BUILTIN.update(HelperInvocation=23)
#: SPIR-V 1.0 (Vulkan 1.0 and OpenGL 4.5 both take it)
VERSION = 0x00010000
#: generator magic: 0 (no registered tool id); the high half is the vendor, low the version
GENERATOR = 0


def string_words(text: str) -> list[int]:
    """A literal string: UTF-8, NUL-terminated, padded with NULs to whole words."""
    raw = text.encode("utf-8") + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


class Module:
    """Sections of words, an id counter, and the type/constant caches."""

    SECTIONS = ("capabilities", "imports", "memory", "entry", "modes", "debug_strings",
                "debug_names", "annotations", "globals", "functions")

    def __init__(self) -> None:
        self.bound = 1
        self.sec: dict[str, list[int]] = {name: [] for name in self.SECTIONS}
        self.cache: dict[tuple, int] = {}
        #: scalar float constant id -> its word (what ``fold`` reads)
        self.float_constants: dict[int, int] = {}
        self.capabilities: set[int] = set()
        self.glsl_ext = 0

    def id(self) -> int:
        i = self.bound
        self.bound += 1
        return i

    def put(self, section: str, op: str, *operands: int) -> None:
        self.sec[section].extend((((len(operands) + 1) << 16) | OP[op], *operands))

    def capability(self, name: str) -> None:
        cap = CAPABILITY[name]
        if cap not in self.capabilities:
            self.capabilities.add(cap)
            self.put("capabilities", "Capability", cap)

    def decorate(self, target: int, decoration: str, *args: int) -> None:
        self.put("annotations", "Decorate", target, DECORATION[decoration], *args)

    # ---- types ----------------------------------------------------------------------------------
    def _type(self, key: tuple, op: str, *operands: int) -> int:
        t = self.cache.get(key)
        if t is None:
            t = self.id()
            self.put("globals", op, t, *operands)
            self.cache[key] = t
        return t

    def void(self) -> int:
        return self._type(("void",), "TypeVoid")

    def bool(self) -> int:
        return self._type(("bool",), "TypeBool")

    def scalar(self, kind: str) -> int:
        """``f`` float, ``i`` signed int, ``u`` unsigned int, ``b`` bool (32-bit); ``d`` a
        64-bit float, ``q``/``l`` a 64-bit unsigned/signed int (TGSI's doubles and 64-bit
        integers)."""
        if kind == "b":
            return self.bool()
        if kind == "f":
            return self._type(("f",), "TypeFloat", 32)
        if kind == "d":
            self.capability("Float64")
            return self._type(("d",), "TypeFloat", 64)
        if kind in ("q", "l"):                  # 64-bit unsigned / signed (the Int64 capability)
            self.capability("Int64")
            return self._type((kind,), "TypeInt", 64, 1 if kind == "l" else 0)
        return self._type((kind,), "TypeInt", 32, 1 if kind == "i" else 0)

    def vec(self, kind: str, n: int) -> int:
        if n == 1:
            return self.scalar(kind)
        return self._type(("vec", kind, n), "TypeVector", self.scalar(kind), n)

    def pointer(self, storage: str, t: int) -> int:
        return self._type(("ptr", storage, t), "TypePointer", STORAGE[storage], t)

    def array(self, t: int, n: int, stride: int | None = None) -> int:
        key = ("arr", t, n, stride)
        a = self.cache.get(key)
        if a is None:
            a = self._type(key, "TypeArray", t, self.const("u", n))
            if stride is not None:
                self.decorate(a, "ArrayStride", stride)
        return a

    def function_type(self, ret: int) -> int:
        return self._type(("fn", ret), "TypeFunction", ret)

    # ---- constants ------------------------------------------------------------------------------
    def const(self, kind: str, value) -> int:
        """A scalar constant; ``value`` is a Python number (float for ``f``) or, as ``bits``,
        handled by :meth:`const_bits`."""
        if kind == "f":
            return self.const_bits("f", struct.unpack("<I", struct.pack("<f", value))[0])
        if kind == "d":
            lo, hi = struct.unpack("<II", struct.pack("<d", value))
            return self._value(("cd", lo, hi), "Constant", self.scalar("d"), lo, hi)
        if kind in ("q", "l"):
            v = value & 0xFFFFFFFFFFFFFFFF
            return self._value(("c64", kind, v), "Constant", self.scalar(kind), v & 0xFFFFFFFF,
                               v >> 32)
        if kind == "b":
            return self._value(("cb", bool(value)), "ConstantTrue" if value else "ConstantFalse",
                               self.bool())
        return self.const_bits(kind, value & 0xFFFFFFFF)

    def const_bits(self, kind: str, bits: int) -> int:
        key = ("c", kind, bits)
        c = self.cache.get(key)
        if c is None:
            t = self.scalar(kind)
            c = self.id()
            self.put("globals", "Constant", t, c, bits)
            self.cache[key] = c
            if kind == "f":
                self.float_constants[c] = bits
        return c

    def composite(self, t: int, parts: tuple[int, ...]) -> int:
        key = ("cc", t, parts)
        c = self.cache.get(key)
        if c is None:
            c = self.id()
            self.put("globals", "ConstantComposite", t, c, *parts)
            self.cache[key] = c
        return c

    def vconst_bits(self, kind: str, words) -> int:
        """A 4-vector (or n-vector) constant of raw words."""
        const_bits = self.const_bits
        parts = tuple([const_bits(kind, w & 0xFFFFFFFF) for w in words])
        return self.composite(self.vec(kind, len(parts)), parts)

    def splat_const(self, kind: str, value, n: int = 4) -> int:
        c = self.const(kind, value)
        return c if n == 1 else self.composite(self.vec(kind, n), (c,) * n)

    def null(self, t: int) -> int:
        return self._value(("null", t), "ConstantNull", t)

    def _value(self, key: tuple, op: str, t: int, *operands: int) -> int:
        """A cached global value: ``op`` with result type ``t``."""
        c = self.cache.get(key)
        if c is None:
            c = self.id()
            self.put("globals", op, t, c, *operands)
            self.cache[key] = c
        return c

    def variable(self, ptr_type: int, storage: str, init: int | None = None) -> int:
        v = self.id()
        ops = (ptr_type, v, STORAGE[storage]) + ((init,) if init is not None else ())
        self.put("globals", "Variable", *ops)
        return v

    # ---- output ---------------------------------------------------------------------------------
    def words(self) -> list[int]:
        out = [0x07230203, VERSION, GENERATOR, self.bound, 0]
        for name in self.SECTIONS:
            out.extend(self.sec[name])
        return out

    def binary(self) -> bytes:
        a = array("I", self.words())
        if a.itemsize != 4:                     # pragma: no cover - every platform we run on
            raise RuntimeError("array('I') is not 32-bit here")
        import sys
        if sys.byteorder == "big":              # SPIR-V files are little-endian by convention
            a.byteswap()
        return a.tobytes()
