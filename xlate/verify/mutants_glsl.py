"""The GLSL side of the mutation harness (:mod:`mutants`): where a mutation can land in the
translated GLSL and how it is applied.

A mutation names its site by content -- the statement's tokens with the backend's numbered
temporaries (``xl_t12``) and the ``precise``/``highp`` qualifiers ignored, plus which occurrence
of that statement -- so it finds the same statement in the probe shaders and re-runs of the
verifier, whose temporaries are numbered differently (:class:`MutatingRunner` applies it to
every shader compiled).  The mutators (:data:`MUTATORS`) are one small function a kind, over
a statement's significant tokens: arith, literal, literal-ulp, swizzle, saturate, cc, compare,
loop, texcoord, output.  Running and classifying mutants is :mod:`mutants`' job."""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

import numpy as np

from .glsl_statements import (call_arguments, matching_paren, code_lines, output_names, significant,
                              statement_key, tokenize, top_level_assignment)
from .mutants_common import Delegate, same_arguments

_FLOAT = re.compile(r"(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+")
_SWIZZLE = re.compile(r"[xyzw]{1,4}")
_IDENT = re.compile(r"[A-Za-z_]\w*")

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
    inside the opcode's documented bound (RSQ 4 ulp, LOG 2^-11 ...), a value a correct
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
    eq = top_level_assignment(S)
    yield from _swizzle_edits(S, 0 if eq is None else eq + 1, len(S))


def _saturate(S):
    for k, t in enumerate(S[:-1]):
        if S[k + 1] != "(":
            continue
        if t in ("xl_sat", "xl_ssat"):
            yield ((k, k + 1, ""),)
        elif t == "clamp":
            args = call_arguments(S, k + 1)
            if len(args) == 3 and [S[a:b] for a, b in args[1:]] == [["0.0"], ["1.0"]]:
                yield ((k, k + 1, ""), (args[0][1], args[2][1], ""))


_CC_REGISTER = re.compile(r"xl_cc\d")


def _cc(S):
    """Invert a condition-code test: a flag test ``xl_ccGT(...)``, or a test of a register that
    holds the value (``if (xl_cc0.x > 0.0) ...``, ``bvec4 m = greaterThan(xl_cc0, ...)``)."""
    helpers = [k for k, t in enumerate(S[:-1]) if re.fullmatch(r"xl_cc[A-Z]+", t) and S[k + 1] == "("]
    for k in helpers:
        yield ((k, k, "not("), (matching_paren(S, k + 1) + 1, matching_paren(S, k + 1) + 1, ")"))
    if helpers:
        return
    if len(S) > 2 and S[0] == "if" and S[1] == "(":
        end = matching_paren(S, 1)
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
            args = call_arguments(S, k + 1)
            if len(args) >= 2:
                yield from _swizzle_edits(S, *args[1])


#: built-in outputs a translation writes in place
def _output(S, outputs: frozenset[str] = frozenset()):
    """Drop an assignment to an output variable (``out_*`` or a direct output), or its last
    component."""
    eq = top_level_assignment(S)
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


# ---- the runner that applies a mutation --------------------------------------------------------

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
