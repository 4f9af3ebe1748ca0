"""Mutation testing of ``xlate verify``: a wrong translation must not pass.

The verifier compares the executor (the ORIGINAL program) with the translated GLSL run on a
real implementation.  When it explains differences away (implementation freedoms: ``ftz``,
``nonfinite``, ``tolerance`` ...), a bug in the translation could pass unnoticed.  This module
measures that: for a program that verifies cleanly (``pass``, zero differences) it makes the
translation wrong in one small, live way and checks that the verifier says ``mismatch``.

Only the verifier's public entry point is used (:func:`xlate.verify.core.verify_source` with a
``runner``).  The fault is injected by :class:`MutatingRunner`, which wraps the real runner and
edits every GLSL text it is asked to compile -- the main run, the instrumented probe shaders of
the localization and the re-runs (finite inputs, ``precise``) -- so the program is mutated
consistently wherever the verifier looks.  A mutation names its site by content (the
statement's tokens, with the backend's numbered temporaries ``xl_t12`` and the ``precise`` /
``highp`` qualifiers ignored, plus which occurrence of that statement), so it finds the same
statement in probe shaders, whose temporaries are numbered differently; a shader without that
statement is left alone.

The direct SPIR-V path has no text to edit: its mutants are edits of the lowered tree it
prints (:mod:`mutants_tree`, ``mutate_program(..., target="spirv-direct")``), classified here
the same way.

Outcome of one mutant (:class:`MutantResult`), decided apart from the verifier's verdicts:

* ``rejected``: the implementation refuses the mutated GLSL (compile/link error), or the
  verifier answers ``unsupported``/``error``/``skipped`` -- caught trivially, counted apart;
* ``equivalent``: the mutated shader's outputs are bit-identical (NaN == NaN whatever the
  payload) to the unmutated shader's on every lane for the verifier's own inputs (those of its
  main run, recorded by :class:`RecordingRunner`), so no verifier could tell them apart on
  these inputs;
* otherwise the mutant is *live* and the verifier's status decides: ``caught`` (``mismatch``),
  ``tolerated`` (``pass`` with zero differences: the comparison's tolerance absorbed it) or
  ``explained`` (``pass`` after differences were explained away; the reason is kept).
  ``tolerated`` + ``explained`` are the mutants that fooled the verifier ("explained away").

A mutant the verifier passes is then asked, by a check of the harness's own that uses none of
the verifier's rules, whether it is a *wrong* translation at all (:func:`permitted_mutant`);
if not, it is counted apart, with the reason, instead of as fooling the verifier:

* ``precision``: a ``literal-ulp`` mutant -- a literal moved by one ulp (2^-24 relative at
  most) is as correct a translation as the original: GL 2.1 §2.1.1 asks a floating-point value
  for "about 1 part in 10^5", so a constant one ulp off is a correct representation of it.  The
  verifier holds translations to bit-exactness where llvmpipe is exact (most such mutants are
  caught); where the literal feeds an approximate operation it may pass one, rightly.
* ``zero-sign-only``: the mutant's outputs equal the unmutated translation's on every lane once
  -0.0 and +0.0 count as one value: GLSL 4.50 §4.7.1 leaves the sign of a zero result to the
  implementation (``permits.rule_signedzero``), so no check held to that contract could tell
  them apart on these inputs (a swizzle that moves a product's factor where the other factor
  is always 0);
* ``nonfinite-only``: the mutant's outputs are bit-identical to the unmutated translation's on
  every lane where the ORIGINAL program computes only finite values (the executor, on the
  verifier's own inputs, with a hook that notes any Inf/NaN result); it changes only lanes where
  the program computes an infinity or NaN, and GLSL 4.50 §4.7.1 leaves operations on those
  unspecified -- no translation's output there is more right than another's.
"""
from __future__ import annotations

import math
import random
import re
import signal
from dataclasses import asdict, dataclass, field

import numpy as np

from .mutants_common import Delegate, same_arguments

# ---- GLSL tokens -------------------------------------------------------------------------------

_TOKEN = re.compile(r"""
    \s+
  | 0[xX][0-9a-fA-F]+[uU]?
  | (?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fF]? | \d+[eE][+-]?\d+[fF]?
  | \d+[uU]?
  | [A-Za-z_]\w*
  | <<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\^\^|\+\+|--|[-+*/%&|^]=
  | .""", re.X)
_FLOAT = re.compile(r"(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+")
_NUMBERED = re.compile(r"(xl_[a-z]+)\d+")          # the backend's fresh names: xl_t12, xl_m3
_QUALIFIERS = ("precise", "highp")                  # make_precise adds them on re-runs
_SWIZZLE = re.compile(r"[xyzw]{1,4}")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def tokenize(line: str) -> list[str]:
    return _TOKEN.findall(line)


def significant(tokens: list[str]) -> list[int]:
    """Indices of the tokens that identify a statement: no blanks, no qualifiers."""
    return [i for i, t in enumerate(tokens) if not t.isspace() and t not in _QUALIFIERS]


def statement_key(tokens: list[str]) -> tuple[str, ...]:
    """The statement's identity across shaders: significant tokens, fresh names unnumbered."""
    return tuple(_NUMBERED.sub(r"\1#", tokens[i]) for i in significant(tokens))


# ---- where the program's code is ---------------------------------------------------------------

_FUNCTION = re.compile(r"^void (xl_main|sub_\w+)\(\)$")


def code_lines(glsl: str) -> list[int]:
    """Line numbers of the program's statements: the bodies of ``xl_main`` and of the
    subroutines (``sub_*``).  Not ``main`` (interface copies and the harness's capture edits),
    not the helper library, not declarations, not the iteration guards of ``for (;;)``."""
    lines = glsl.split("\n")
    out = []
    k = 0
    while k < len(lines):
        if _FUNCTION.match(lines[k]) and k + 1 < len(lines) and lines[k + 1] == "{":
            k += 2
            while k < len(lines) and lines[k] != "}":
                if "xl_iter" not in lines[k] and lines[k].strip() not in ("", "{", "}"):
                    out.append(k)
                k += 1
        k += 1
    return out


# ---- mutations ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mutation:
    """One edit of one statement.  ``edits``: (a, b, text) over the statement's significant
    tokens -- replace tokens a..b-1 by ``text`` (a == b: insert before token a)."""

    kind: str
    key: tuple
    occurrence: int
    edits: tuple
    before: str
    after: str

    def apply_line(self, line: str) -> str:
        toks = tokenize(line)
        sig = significant(toks)
        for a, b, text in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            if a < b:
                toks[sig[a]:sig[b - 1] + 1] = [text]
            elif a < len(sig):
                toks[sig[a]:sig[a]] = [text]
            else:
                toks.append(text)
        return "".join(toks)

    def apply(self, glsl: str) -> str:
        """``glsl`` with the mutated statement, or unchanged when it lacks that statement."""
        lines = glsl.split("\n")
        seen = 0
        # every token of the key but the re-numbered names is a substring of a matching line:
        # a cheap test that spares tokenizing the lines that cannot match
        needles = [t for t in self.key if "#" not in t and not t.isspace()]
        for k in code_lines(glsl):
            if not all(t in lines[k] for t in needles) or \
                    statement_key(tokenize(lines[k])) != self.key:
                continue
            if seen == self.occurrence:
                lines[k] = self.apply_line(lines[k])
                return "\n".join(lines)
            seen += 1
        return glsl

    def describe(self) -> dict:
        return {"kind": self.kind, "before": self.before, "after": self.after,
                "occurrence": self.occurrence}

    def mutating_runner(self, inner, known=None):
        return MutatingRunner(inner, self, known)


def _close(S: list[str], k: int) -> int:
    """Index of the ')' matching the '(' at ``k`` (len(S) when unbalanced)."""
    depth = 0
    for j in range(k, len(S)):
        depth += S[j] == "("
        depth -= S[j] == ")"
        if depth == 0:
            return j
    return len(S)


def _args(S: list[str], open_: int) -> list[tuple[int, int]]:
    """Token ranges of the top-level arguments of the call whose '(' is at ``open_``."""
    end = _close(S, open_)
    out, start, depth = [], open_ + 1, 0
    for j in range(open_ + 1, end):
        depth += S[j] in "([{" and len(S[j]) == 1
        depth -= S[j] in ")]}" and len(S[j]) == 1
        if S[j] == "," and depth == 0:
            out.append((start, j))
            start = j + 1
    out.append((start, end))
    return out


def _assignment(S: list[str]) -> int | None:
    """Index of the top-level '=' of an assignment or initialised declaration."""
    depth = 0
    for j, t in enumerate(S):
        depth += t in ("(", "[")
        depth -= t in (")", "]")
        if t == "=" and depth == 0:
            return j
    return None


def _is_for(S) -> bool:
    return bool(S) and S[0] == "for"


def _operand_end(t: str) -> bool:
    return t in (")", "]") or bool(_IDENT.fullmatch(t)) or t[0].isdigit() or t[0] == "."


def _arith(S):
    if _is_for(S):
        return
    swap = {"+": "-", "-": "+", "*": "/", "/": "*"}
    for k, t in enumerate(S):
        if t in swap and k > 0 and _operand_end(S[k - 1]):
            yield ((k, k + 1, swap[t]),)


def _float32_text(x: float) -> str:
    """The shortest literal that reads back as the float32 ``x``."""
    x = np.float32(x)
    if 1e-4 <= abs(x) < 1e7:
        t = np.format_float_positional(x, unique=True)
        return t + "0" if t.endswith(".") else t
    return np.format_float_scientific(x, unique=True)


#: GLSL functions that compute an approximate opcode (compare.INEXACT: RSQ, EX2, LG2, POW, LIT,
#: SIN/COS/SCS, EXP/LOG, NRM, filtered lookups), and the helpers that wrap them
_APPROXIMATE = frozenset({"sqrt", "inversesqrt", "exp2", "log2", "pow", "sin", "cos",
                          "normalize", "xl_log", "xl_exp", "xl_lit", "xl_litnc", "xl_nrm",
                          "xl_rfl"})


def _within_approximation(S, k: int) -> bool:
    """Whether the literal S[k] is an argument of an approximate function (inside its
    parentheses, at any depth) or the numerator of RSQ's ``1.0 / sqrt(...)``: moved by one ulp
    it moves the opcode's result by about one ulp times the function's condition number --
    inside the opcode's documented bound (RSQ 2 ulp, LOG 2^-11 ...), a value a correct
    translation may legally produce.  Such a literal-ulp mutant is not a wrong translation."""
    if k + 2 < len(S) and S[k + 1] == "/" and S[k + 2] in ("sqrt", "inversesqrt"):
        return True
    depth = 0
    for j in range(k - 1, -1, -1):
        if S[j] == ")":
            depth += 1
        elif S[j] == "(":
            if depth == 0:
                if j > 0 and (S[j - 1] in _APPROXIMATE or S[j - 1].startswith("texture")):
                    return True
            else:
                depth -= 1
    return False


def _literal(S, subtle: bool):
    if _is_for(S):
        return
    for k, t in enumerate(S):
        if not _FLOAT.fullmatch(t):
            continue
        if subtle and _within_approximation(S, k):
            continue
        v = np.float32(float(t.rstrip("fF")))
        if v == 0 or not math.isfinite(v):
            continue
        new = np.nextafter(v, np.float32(np.inf)) if subtle else v * np.float32(1.01)
        yield ((k, k + 1, _float32_text(new)),)


def _next_component(c: str) -> str:
    return "xyzw"["xyzw".index(c) + 1 & 3]


def _swizzle_edits(S, lo: int, hi: int):
    """Each swizzle read in S[lo:hi] with one component moved to the next one."""
    for k in range(max(lo, 1), hi):
        if S[k - 1] == "." and _SWIZZLE.fullmatch(S[k]):
            for p, c in enumerate(S[k]):
                new = S[k][:p] + _next_component(c) + S[k][p + 1:]
                yield ((k, k + 1, new),)


def _swizzle(S):
    if _is_for(S):
        return
    eq = _assignment(S)
    yield from _swizzle_edits(S, 0 if eq is None else eq + 1, len(S))


def _saturate(S):
    for k, t in enumerate(S[:-1]):
        if S[k + 1] != "(":
            continue
        if t in ("xl_sat", "xl_ssat"):
            yield ((k, k + 1, ""),)
        elif t == "clamp":
            args = _args(S, k + 1)
            if len(args) == 3 and [S[a:b] for a, b in args[1:]] == [["0.0"], ["1.0"]]:
                yield ((k, k + 1, ""), (args[0][1], args[2][1], ""))


_CC_REGISTER = re.compile(r"xl_cc\d")


def _cc(S):
    """Invert a condition-code test: a flag test ``xl_ccGT(...)``, or a test of a register that
    holds the value (``if (xl_cc0.x > 0.0) ...``, ``bvec4 m = greaterThan(xl_cc0, ...)``)."""
    helpers = [k for k, t in enumerate(S[:-1]) if re.fullmatch(r"xl_cc[A-Z]+", t) and S[k + 1] == "("]
    for k in helpers:
        yield ((k, k, "not("), (_close(S, k + 1) + 1, _close(S, k + 1) + 1, ")"))
    if helpers:
        return
    if len(S) > 2 and S[0] == "if" and S[1] == "(":
        end = _close(S, 1)
        if any(_CC_REGISTER.match(t) for t in S[2:end]):
            yield ((2, 2, "!("), (end, end, ")"))
    elif len(S) > 3 and S[0] == "bvec4" and S[2] == "=" and S[-1] == ";" and any(
            _CC_REGISTER.match(t) for t in S[3:]):
        yield ((3, 3, "not("), (len(S) - 1, len(S) - 1, ")"))


_CMP = {"<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==",
        "lessThan": "greaterThanEqual", "greaterThanEqual": "lessThan",
        "greaterThan": "lessThanEqual", "lessThanEqual": "greaterThan",
        "equal": "notEqual", "notEqual": "equal"}


def _compare(S):
    if _is_for(S):
        return
    for k, t in enumerate(S):
        if t in _CMP and (not _IDENT.fullmatch(t) or (k + 1 < len(S) and S[k + 1] == "(")):
            yield ((k, k + 1, _CMP[t]),)


def _loop(S):
    """Counted loops (REP n, constant LOOP counts): ``for (int i = 0, n = N; i < n; ++i)``."""
    if not _is_for(S) or len(S) < 7 or S[3:5] != [S[3], "="]:
        return
    if S[5] in ("0", "0u"):
        yield ((5, 6, "1" + S[5][1:]),)                 # one iteration fewer
    semis = [k for k, t in enumerate(S) if t == ";"]
    if semis:
        for k in range(semis[0], len(S)):
            if S[k] == "<":
                yield ((k, k + 1, "<="),)               # one iteration more
                break


def _texcoord(S):
    for k, t in enumerate(S[:-1]):
        if (t.startswith("texture") or t.startswith("texelFetch")) and S[k + 1] == "(":
            args = _args(S, k + 1)
            if len(args) >= 2:
                yield from _swizzle_edits(S, *args[1])


#: built-in outputs a translation writes in place
_BUILTIN_OUTPUTS = frozenset({"gl_Position", "gl_PointSize", "gl_ClipDistance", "gl_FragDepth",
                              "gl_Layer", "gl_PrimitiveID"})
_OUT_DECL = re.compile(r"^(?:layout\([^)]*\) )?(?:\w+ )*out \w+ (\w+)(?:\[\d*\])?;", re.M)


def output_names(glsl: str) -> frozenset[str]:
    """The variables through which the translation's results leave the shader: the staged
    outputs (``out_*``), the declared ``out`` variables an output is written to in place, and
    the built-in outputs."""
    return frozenset(_OUT_DECL.findall(glsl)) | _BUILTIN_OUTPUTS


def _output(S, outputs: frozenset[str] = frozenset()):
    """Drop an assignment to an output variable (``out_*`` or a direct output), or its last
    component."""
    eq = _assignment(S)
    if eq is None or not (S[0].startswith("out_") or S[0] in outputs) or S[-1] != ";":
        return
    yield ((0, len(S), ";"),)
    if S[eq - 2] == "." and _SWIZZLE.fullmatch(S[eq - 1]):
        n = len(S[eq - 1])
        if n >= 2:
            yield ((eq - 1, eq, S[eq - 1][:-1]), (eq + 1, eq + 1, "("),
                   (len(S) - 1, len(S) - 1, ")." + "xyzw"[:n - 1]))
    elif S[eq - 1] == "]" or _IDENT.fullmatch(S[eq - 1]):
        yield ((eq - 1, eq, S[eq - 1] + ".xyz"), (eq + 1, eq + 1, "("),
               (len(S) - 1, len(S) - 1, ").xyz"))


MUTATORS = {
    "arith": _arith,
    "literal": lambda S: _literal(S, False),
    "literal-ulp": lambda S: _literal(S, True),
    "swizzle": _swizzle,
    "saturate": _saturate,
    "cc": _cc,
    "compare": _compare,
    "loop": _loop,
    "texcoord": _texcoord,
    "output": _output,
}
KINDS = tuple(MUTATORS)


def candidates(glsl: str, kinds=KINDS, live: set[int] | None = None
               ) -> dict[str, list[Mutation]]:
    """Every mutation of the program's code, per kind; only on the lines in ``live`` when
    given (see :func:`live_candidates`)."""
    lines = glsl.split("\n")
    seen: dict[tuple, int] = {}
    out: dict[str, list[Mutation]] = {k: [] for k in kinds}
    outputs = output_names(glsl)
    mutators = dict(MUTATORS, output=lambda S: _output(S, outputs))
    for n in code_lines(glsl):
        toks = tokenize(lines[n])
        key = statement_key(toks)
        occ = seen.get(key, 0)
        seen[key] = occ + 1
        if live is not None and n not in live:
            continue
        S = [toks[i] for i in significant(toks)]
        for kind in kinds:
            for edits in mutators[kind](S):
                m = Mutation(kind, key, occ, edits, lines[n].strip(), "")
                after = m.apply_line(lines[n]).strip()
                if after != m.before:
                    out[kind].append(Mutation(kind, key, occ, edits, m.before, after))
    return out


def live_candidates(glsl: str, kinds=KINDS) -> tuple[dict[str, list[Mutation]], int]:
    """The mutations of statements whose result may reach an output
    (:func:`glsl_liveness.live_lines`), and how many mutations the other statements would
    have had: those are equivalent by construction (the statement's result is never read) and
    are not run."""
    from .glsl_liveness import live_lines
    live = live_lines(glsl)
    cands = candidates(glsl, kinds, live)
    if live is None:
        return cands, 0
    every = candidates(glsl, kinds)
    return cands, sum(map(len, every.values())) - sum(map(len, cands.values()))


def pick(cands: dict[str, list[Mutation]], k: int, rng: random.Random) -> list[Mutation]:
    """``k`` mutations spread over the kinds present (round robin, random sites)."""
    pools = {kind: rng.sample(v, len(v)) for kind, v in cands.items() if v}
    order = sorted(pools)
    rng.shuffle(order)
    out = []
    while len(out) < k and any(pools.values()):
        for kind in order:
            if pools[kind] and len(out) < k:
                out.append(pools[kind].pop())
    return out


# ---- runners -----------------------------------------------------------------------------------


class MutatingRunner(Delegate):
    """The real runner, but every shader it compiles carries ``mutation``.

    ``known``: (stage, GLSL before the mutation, lanes, keyword arguments, capture) of a run
    the harness already made -- the equivalence run of :func:`_classify`, on the inputs of the
    verifier's main run.  A call with exactly those arguments (text, lanes and every input word
    equal) gets that capture instead of compiling and drawing the same shader again: llvmpipe is
    deterministic, so the verifier sees what a second draw would give, and every other call
    (probes, re-runs on other inputs, ``precise``) runs on the implementation."""

    def __init__(self, inner, mutation: Mutation, known=None):
        super().__init__(inner)
        self.mutation = mutation
        self.applied = 0            # shaders that contained the mutated statement
        self.known = known
        self.reused = 0             # calls answered from ``known``

    def run(self, stage, glsl, reflection, lanes, **kw):
        mutated = self.mutation.apply(glsl)
        self.applied += mutated != glsl
        if self.known is not None:
            k_stage, k_glsl, k_lanes, k_kw, k_cap = self.known
            if (stage, glsl, lanes) == (k_stage, k_glsl, k_lanes) and \
                    same_arguments(kw, k_kw):
                self.reused += 1
                return k_cap
        return self.inner.run(stage, mutated, reflection, lanes, **kw)


class RecordingRunner(Delegate):
    """The real runner; keeps the first call (the verifier's main run) and its capture."""

    def __init__(self, inner):
        super().__init__(inner)
        self.first = None

    def run(self, stage, glsl, reflection, lanes, **kw):
        cap = self.inner.run(stage, glsl, reflection, lanes, **kw)
        if self.first is None:
            self.first = (stage, glsl, reflection, lanes, kw, cap)
        return cap


# ---- comparing captures ------------------------------------------------------------------------

_INT_TYPES = ("ivec4", "uvec4", "int", "uint", "ivec2", "uvec2", "ivec3", "uvec3")


def _canon(words, integer: bool) -> np.ndarray:
    w = np.asarray(words, np.uint32)
    if integer:
        return w
    nan = ((w & 0x7F800000) == 0x7F800000) & ((w & 0x007FFFFF) != 0)
    return np.where(nan, np.uint32(0x7FC00000), w)


def captures_differ(reflection: dict, a, b, *, lanes=None, zero_signs: bool = False) -> bool:
    """Whether two captures of the same interface differ bitwise (NaN == NaN whatever the
    payload; integer outputs compared raw), on lanes that neither run killed.  ``lanes``: a
    (lanes,) bool mask, compare those lanes only (vertex/fragment captures); ``zero_signs``:
    -0.0 and +0.0 of a float output are one value."""
    integer = {o["name"]: o.get("type") in _INT_TYPES for o in reflection.get("outputs", [])}

    def rows(words):
        w = np.asarray(words)
        if lanes is None:
            return w
        return w[lanes] if w.shape[:1] == lanes.shape else None

    if a.killed is not None or b.killed is not None:
        if a.killed is None or b.killed is None:
            return True
        ka, kb = rows(a.killed), rows(b.killed)
        if ka is None or kb is None or not np.array_equal(ka, kb):
            return True
    if a.primitives is not None or b.primitives is not None:
        return _primitives_differ(integer, a.primitives or [], b.primitives or [])
    if set(a.outputs) != set(b.outputs):
        return True
    keep = None if a.killed is None else ~np.asarray(rows(a.killed), bool)
    for name, wa in a.outputs.items():
        is_int = integer.get(name, False)
        ia, ib = rows(_canon(wa, is_int)), rows(_canon(b.outputs[name], is_int))
        if ia is None or ib is None:
            return True
        if zero_signs and not is_int:
            ia = np.where((ia & 0x7FFFFFFF) == 0, np.uint32(0), ia)
            ib = np.where((ib & 0x7FFFFFFF) == 0, np.uint32(0), ib)
        if keep is not None:
            ia, ib = ia[keep], ib[keep]
        if not np.array_equal(ia, ib):
            return True
    return False


def _primitives_differ(integer, pa, pb) -> bool:
    from .core import same_primitives
    return not same_primitives(pa or [], pb or [],
                               lambda name, w: _canon(w, integer.get(name, False)))


# ---- one program -------------------------------------------------------------------------------

@dataclass
class MutantResult:
    program: str
    group: str
    kind: str
    before: str
    after: str
    outcome: str                 # one of OUTCOMES
    status: str = ""             # the verifier's status (live mutants)
    reason: str = ""             # the verifier's reason, or the compile error
    verdicts: list = field(default_factory=list)
    differences: int = 0
    shaders_mutated: int = 0     # how many of the verifier's shaders carried the mutation
    main_run_reused: bool = False  # the verifier's main run was the equivalence run's capture
    dialect: str = ""            # the program's dialect/stage
    seconds: float = 0.0         # time to classify it (equivalence run + verifier)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class ProgramResult:
    program: str
    group: str
    status: str                  # clean, or why the program was not used
    mutants: list = field(default_factory=list)
    dead_sites: int = 0          # mutations of statements whose result is never read (not run)
    skipped_slow: int = 0        # wanted mutants not run after max_timeouts timeouts


class _Timeout(Exception):
    pass


def _alarm(seconds: float):
    """A SIGALRM deadline for one mutant (the verifier may localize for long)."""
    def handler(signum, frame):
        raise _Timeout()
    if seconds and hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm():
    if hasattr(signal, "SIGALRM"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def classify(text: str, name: str, group: str, mutation, runner, first, *,
             lanes: int, seed: int, timeout: float = 0, target: str = "glsl") -> MutantResult:
    """Run one mutant on the verifier's inputs, then (when live) through the verifier.
    ``mutation``: a GLSL :class:`Mutation`, or a :class:`mutants_tree.TreeMutation` of the
    direct SPIR-V path (``target`` ``spirv-direct``); each makes its own mutating runner."""
    import time
    t0 = time.perf_counter()
    res = _classify(text, name, group, mutation, runner, first, lanes=lanes, seed=seed,
                    timeout=timeout, target=target)
    res.seconds = round(time.perf_counter() - t0, 3)
    return res


def _verify_kw(runner, target: str) -> dict:
    """verify_source's arguments for a target: the direct SPIR-V path runs on its runner's
    backend (``vulkan`` or ``gl-spirv``) with ``via="direct"`` (never glslang's module in its
    place)."""
    if target == "glsl":
        return {}
    if target == "spirv-direct":
        return {"backend": getattr(runner, "backend", "vulkan"), "via": "direct"}
    raise ValueError(f"no mutation target {target!r}")


def _classify(text, name, group, mutation, runner, first, *, lanes, seed, timeout,
              target="glsl"):
    from .core import verify_source
    from .glapi import GLError
    stage, glsl, reflection, n, kw, cap0 = first
    res = MutantResult(name, group, mutation.kind, mutation.before, mutation.after, "")
    equivalence_run = mutation.mutating_runner(runner)
    try:
        cap = equivalence_run.run(stage, glsl, reflection, n, **kw)
    except GLError as e:
        res.outcome, res.reason = "rejected", f"implementation error: {e}"[:300]
        return res
    if not captures_differ(reflection, cap0, cap):
        res.outcome = "equivalent"
        # 1: the shader that ran carried the mutation (an equivalent mutant is a real edit)
        res.shaders_mutated = equivalence_run.applied
        return res
    mr = mutation.mutating_runner(runner, known=(stage, glsl, n, kw, cap))
    try:
        _alarm(timeout)
        rep = verify_source(text, name, lanes=lanes, seed=seed, runner=mr,
                            **_verify_kw(runner, target))
    except _Timeout:
        res.outcome, res.reason = "timeout", f"verifier ran past {timeout} s"
        return res
    finally:
        _disarm()
    res.status, res.reason = rep.status, rep.reason
    res.verdicts = sorted({str(x.get("verdict")) for x in rep.localization})
    res.differences, res.shaders_mutated = rep.total_differences, mr.applied
    res.main_run_reused = mr.reused > 0
    if rep.status == "mismatch":
        res.outcome = "caught"
    elif rep.status == "pass":
        res.outcome = "tolerated" if rep.total_differences == 0 else "explained"
        why = permitted_mutant(text, name, mutation, reflection, cap0, cap, lanes, seed,
                               rep.backend or "gl")
        if why is not None:
            res.outcome, res.reason = why[0], f"{why[1]} (verifier: {rep.reason})"
    else:
        res.outcome = "rejected"
    return res


def permitted_mutant(text, name, mutation: Mutation, reflection, cap0, cap, lanes: int,
                     seed: int, backend: str = "gl"):
    """(outcome, reason) when a mutant the verifier passed is no wrong translation (module
    docstring: ``precision``, ``nonfinite-only``), shown by the harness's own check; else None.
    ``cap0``/``cap``: the unmutated and the mutated translation's captures on the verifier's
    main-run inputs."""
    if mutation.kind == "literal-ulp":
        return ("precision", "a literal one ulp off: within GL 2.1 §2.1.1's 1 part in 10^5, a "
                "correct translation of the same constant")
    if cap0.primitives is not None or cap.primitives is not None:
        return None                  # geometry: lanes are not outputs; not classified
    if not captures_differ(reflection, cap0, cap, zero_signs=True):
        return ("zero-sign-only", "identical on the verifier's inputs but for the sign of "
                "zeros, which GLSL 4.50 §4.7.1 leaves to the implementation (permits."
                "rule_signedzero): no check held to that contract could tell them apart on "
                "these inputs")
    lanes_nonfinite = original_nonfinite_lanes(text, name, lanes, seed, backend)
    if lanes_nonfinite is None or not lanes_nonfinite.any():
        return None
    finite = ~lanes_nonfinite
    if captures_differ(reflection, cap0, cap, lanes=finite):
        return None
    return ("nonfinite-only", f"identical on the {int(finite.sum())} lanes where the original "
            f"program stays finite; differs only on {int(lanes_nonfinite.sum())} lanes where it "
            "computes an Inf or NaN (GLSL 4.50 §4.7.1)")


class _NonFiniteResults:
    """Executor hook: the lanes on which some instruction writes an Inf or NaN float."""

    def __init__(self, program, lanes: int):
        self.instructions = list(range(len(program.instructions)))
        self.lanes = np.zeros(lanes, bool)

    def __call__(self, x, st, idx, ops, bits, cmask):
        from ..ir.model import DataType
        if x.rt == DataType.FLOAT and x.inst.dst is not None:
            sel = st.all_lanes if idx is None else np.asarray(idx)
            w = np.broadcast_to(np.asarray(bits, np.uint32).reshape(-1, np.shape(bits)[-1]
                                                                  if np.ndim(bits) else 1),
                                (len(sel), 4))
            written = np.broadcast_to(np.array(x.inst.dst.mask, bool), w.shape)
            if cmask is not None:
                written = written & np.broadcast_to(cmask, w.shape)
            bad = (((w & 0x7F800000) == 0x7F800000) & written).any(axis=1)
            self.lanes[(st.base + sel)[bad]] = True
        return bits, cmask

    def before_flow(self, x, st, sel):
        pass

    def kill_decision(self, x, st, sel, kill, operand):
        return kill


def original_nonfinite_lanes(text: str, name: str, lanes: int, seed: int,
                             backend: str = "gl") -> np.ndarray | None:
    """(lanes,) bool: where the original program, run by the executor on the verifier's
    main-run inputs, writes an Inf or NaN at some instruction.  None if it cannot be run."""
    from . import compare as cmp
    from .analysis import analyse
    from .core import ProgramReport, main_run_inputs, run_executor
    from ..frontends import parse_program
    program = parse_program(text, name)
    facts = analyse(program, set(cmp.INEXACT))
    rep = ProgramReport(name, backend=backend)
    made = main_run_inputs(program, facts, lanes, seed, rep)
    if made is None:
        return None
    hook = _NonFiniteResults(program, lanes)
    run_executor(program, made[0], lanes, hooks=hook)
    return hook.lanes


def mutate_program(text: str, name: str, group: str, runner, *, per_program: int, seed: int,
                   lanes: int = 256, kinds=None, timeout: float = 0, tries: int = 4,
                   mutations=None, max_timeouts: int = 0, target: str = "glsl") -> ProgramResult:
    """Verify ``text``; when it is clean, classify mutants until ``per_program`` of them are
    not equivalent (live or rejected), trying at most ``tries * per_program`` sites.

    Random programs carry much dead code: only statements whose result may reach an output
    are mutated (:func:`live_candidates`; the others are counted in ``dead_sites``).  A live
    statement's mutant may still be equivalent on the verifier's inputs; trying more sites
    (cheap: one run each) gives more live mutants per second of verifier time.  The order of
    the sites is deterministic in ``seed`` and ``name``.  ``mutations``: classify exactly these
    instead (tests).  ``max_timeouts`` (0: no limit): after that many mutants ran past
    ``timeout``, the program's remaining mutations are not run (``skipped_slow`` counts them):
    a program whose verification of a mutant outlasts the timeout mostly does so for every
    mutant (long loops probed pass by pass), and a campaign's time is better spent elsewhere.

    ``target``: ``glsl`` (mutants of the GLSL translation, this module) or ``spirv-direct``
    (mutants of the direct SPIR-V path's lowered tree, :mod:`mutants_tree`; ``runner`` a
    ``vulkan`` or ``gl-spirv`` one; a program the direct path does not cover is not clean).
    ``kinds``: None for every kind of the target."""
    from .core import verify_source
    rec = RecordingRunner(runner)
    # clean means no difference at all, so localization (which only explains differences) is
    # not needed to tell: a program that differs is dropped without being localized
    rep = verify_source(text, name, lanes=lanes, seed=seed, runner=rec, localize=False,
                        **_verify_kw(runner, target))
    if rep.status != "pass" or rep.total_differences or rec.first is None:
        why = rep.status if rep.status != "pass" else "pass with differences explained"
        return ProgramResult(name, group, f"not clean: {why} {rep.reason}".strip())
    cap0 = rec.first[-1]
    if cap0.primitives is not None and not any(len(p) for p in cap0.primitives):
        # a geometry program that emits nothing on these inputs (an EMIT to another stream,
        # a condition never met): every mutant would be equivalent
        return ProgramResult(name, group, "not used: no primitive emitted on any lane")
    out = ProgramResult(name, group, "clean")
    if target == "spirv-direct" and "direct" not in rec.first[4]:
        return ProgramResult(name, group, "not used: the main run was not the direct module")
    if mutations is None:
        rng = random.Random(f"{seed}:{name}")
        if target == "spirv-direct":
            from . import mutants_tree as T
            from .core import runner_profile
            from ..frontends import parse_program
            cands, out.dead_sites = T.program_candidates(
                parse_program(text, name), runner_profile(runner),
                T.KINDS if kinds is None else kinds)
        else:
            cands, out.dead_sites = live_candidates(rec.first[1],
                                                    KINDS if kinds is None else kinds)
        mutations = pick(cands, sum(map(len, cands.values())), rng)[:tries * per_program]
        wanted = per_program
    else:
        wanted = len(mutations)
    found = timeouts = 0
    dialect = _dialect_of(text, name)
    for i, m in enumerate(mutations):
        if max_timeouts and timeouts >= max_timeouts:
            out.skipped_slow = min(len(mutations) - i, wanted - found)
            break
        r = classify(text, name, group, m, runner, rec.first, lanes=lanes, seed=seed,
                     timeout=timeout, target=target)
        r.dialect = dialect
        out.mutants.append(r)
        found += r.outcome != "equivalent"
        timeouts += r.outcome == "timeout"
        if found >= wanted:
            break
    return out


def _dialect_of(text: str, name: str) -> str:
    from ..frontends import parse_program
    p = parse_program(text, name)
    return f"{p.dialect}/{p.stage.value}"


# ---- summary -----------------------------------------------------------------------------------

OUTCOMES = ("caught", "tolerated", "explained", "equivalent", "precision", "zero-sign-only",
            "nonfinite-only", "rejected", "timeout")
FOOLED = ("tolerated", "explained")
#: passed, and no wrong translation by the harness's own check (:func:`permitted_mutant`)
PERMITTED = ("precision", "zero-sign-only", "nonfinite-only")
LIVE = ("caught",) + FOOLED


def tally(results: list[MutantResult], by: str) -> dict[str, dict[str, int]]:
    """Counts per ``group`` or ``kind``: live (caught + fooled) and every outcome."""
    table: dict[str, dict[str, int]] = {}
    for r in results:
        row = table.setdefault(getattr(r, by), dict.fromkeys(("live",) + OUTCOMES, 0))
        row[r.outcome] += 1
        row["live"] += r.outcome in ("caught",) + FOOLED
    return dict(sorted(table.items()))


def format_table(table: dict[str, dict[str, int]], title: str) -> str:
    cols = ("live", "caught", "tolerated", "explained", "equivalent", "precision",
            "zero-sign-only", "nonfinite-only", "rejected", "timeout")
    width = max([len(title)] + [len(k) for k in table])
    lines = [f"{title:<{width}}  " + "  ".join(f"{c:>10}" for c in cols)]
    total = dict.fromkeys(cols, 0)
    for key, row in table.items():
        lines.append(f"{key:<{width}}  " + "  ".join(f"{row[c]:>10}" for c in cols))
        for c in cols:
            total[c] += row[c]
    lines.append(f"{'total':<{width}}  " + "  ".join(f"{total[c]:>10}" for c in cols))
    return "\n".join(lines)
