"""The cgc oracle's ``order`` replacements (xlate/verify/oracle_order.py): the executor's own
float32 steps regrouped the way cgc's GLSL writes them -- a quotient where the assembly
multiplies by an RCP or by a folded reciprocal literal, a product before a division, dot()
summed in another order -- and nothing else.  No GL or corpus needed."""
import numpy as np

from xlate import parse
from xlate.exec import execute
from xlate.verify.oracle_counterfactual import Counterfactual
from xlate.verify.oracle_order import (Quotients, dot_order_variant, glsl_divisors,
                                       quotient_sites)

F32 = np.float32
N = 4096


def _inputs(seed=3):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.5, 4.0, (N, 4)).astype(F32)
    return {"fragment.texcoord[0]": t}, t


def _run(text: str, changes=None):
    prog = parse("!!NVfp4.0\nTEMP R0, R1;\n" + text + "MOV.F result.color, R0;\nEND\n",
                 filename="t.fp")
    inputs, t = _inputs()
    hooks = Counterfactual(changes(prog)) if changes else None
    r = execute(prog, inputs, lanes=N, hooks=hooks)
    return r.words("result.color").view(F32), t, prog


def _all(divisors=frozenset(), writers=("RCP",)):
    return lambda prog: Quotients(prog, N, divisors, writers).changes(np.ones(N, bool))


def test_glsl_divisors_are_the_literals_cgc_divides_by():
    text = ("_a = _dt0137/3.14000010E+00;\n_b = _x0060/vec2( 2.00000003E-01, 2.00000003E-01);\n"
            "_c = 1.00000000E+00/(1.0 + _x);\n_d = _x*1.00000005E-03*4.00000000E+00;\n")
    assert glsl_divisors(text) == {float(F32(3.14)), float(F32(0.2))}


def test_quotient_sites_rcp_literal_and_block_boundary():
    prog = parse("!!NVfp4.0\nTEMP R0, R1;\n"
                 "RCP.F R0.y, fragment.texcoord[0].y;\n"                     # 0
                 "MUL.F R1.x, fragment.texcoord[0].x, R0.y;\n"               # 1: x / y
                 "MUL.F R1.y, fragment.texcoord[0].x, {0.31847131}.x;\n"     # 2: x / 3.14
                 "MUL.F R1.z, fragment.texcoord[0].x, {0.5}.x;\n"            # 3: power of two
                 "MUL.F R1.w, fragment.texcoord[0].x, {0.0040000002}.x;\n"   # 4: not divided
                 "IF GT.x;\nENDIF;\n"
                 "MUL.F R1.x, fragment.texcoord[0].z, R0.y;\n"               # 7: past an IF
                 "MOV.F result.color, R1;\nEND\n", filename="t.fp")
    divisors = frozenset({float(F32(3.14)), 2.0})
    assert quotient_sites(prog, divisors) == {1: [(1, 0, 0, 1)],
                                              2: [(1, 1, float(F32(3.14)), 0)]}
    assert quotient_sites(prog) == {1: [(1, 0, 0, 1)]}


def test_quotient_replaces_the_product_by_the_rounded_quotient():
    """x * RCP(y) rounds twice; the replacement is the correctly rounded x / y on every lane
    (and the plain executor's product differs from it on some)."""
    code = "RCP.F R1.x, fragment.texcoord[0].y;\nMUL.F R0.x, fragment.texcoord[0].x, R1.x;\n"
    plain, t, _ = _run(code)
    got, _, _ = _run(code, _all())
    want = (t[:, 0].astype(np.float64) / t[:, 1].astype(np.float64)).astype(F32)
    assert np.array_equal(got[:, 0], want)
    assert (plain[:, 0] != want).sum() > N // 20


def test_literal_reciprocal_only_with_the_divisor_from_the_glsl():
    code = "MUL.F R0.x, fragment.texcoord[0].x, {0.31847131}.x;\n"
    plain, t, _ = _run(code)
    got, _, _ = _run(code, _all(frozenset({float(F32(3.14))})))
    want = (t[:, 0].astype(np.float64) / np.float64(F32(3.14))).astype(F32)
    assert np.array_equal(got[:, 0], want) and not np.array_equal(plain[:, 0], want)
    unchanged, _, _ = _run(code, _all(frozenset({5.0})))
    assert np.array_equal(unchanged, plain)


def test_product_of_a_quotient_multiplies_first():
    """``MUL (a / b), k`` recomputed as ``(a * k) / b`` (color-grid's 1000 * (...) / y)."""
    code = ("DIV.F R1.x, fragment.texcoord[0].x, fragment.texcoord[0].y;\n"
            "MUL.F R0.x, R1.x, {1000}.x;\n")
    plain, t, _ = _run(code)
    got, _, _ = _run(code, _all(writers=("DIV",)))
    a, b = t[:, 0].astype(np.float64), t[:, 1].astype(np.float64)
    want = ((a * 1000.0).astype(F32).astype(np.float64) / b).astype(F32)
    assert np.array_equal(got[:, 0], want)
    assert (plain[:, 0] != want).any()


def test_dot_order_sums_in_the_order_given_and_nothing_else():
    code = "DP3.F R0.x, fragment.texcoord[0], {13.323122, 21.121201, 21.811199};\n"
    plain, t, prog = _run(code)
    c = np.array([13.323122, 21.121201, 21.811199], F32)
    p = [(t[:, i] * c[i]).astype(F32) for i in range(3)]
    left = ((p[0] + p[1]).astype(F32) + p[2]).astype(F32)
    assert np.array_equal(plain[:, 0], left)
    got, _, _ = _run(code, lambda prog: {0: [(np.ones(N, bool),
                                              dot_order_variant((1, 2, 0, 3)))]})
    want = (p[0] + (p[1] + p[2]).astype(F32)).astype(F32)
    assert np.array_equal(got[:, 0], want) and not np.array_equal(want, left)


def test_factored_dot_of_one_scalar_and_a_literal():
    """``DP2 s.xx, {c0, c1}`` is ``s * (c0 + c1)`` where an implementation folds the literal
    (llvmpipe's ``dot(vec2(s, s), c)``); a dot product of two varying vectors is not one."""
    from xlate.verify.oracle_order import factored_operand, factored_variant
    code = "DP2.F R0.x, fragment.texcoord[0].x, {12.9898, 78.233002};\n"
    plain, t, prog = _run(code)
    assert factored_operand(prog, prog.instructions[0]) == 0
    got, _, _ = _run(code, lambda prog: {0: [(np.ones(N, bool), factored_variant(prog))]})
    c0, c1 = F32(12.9898), F32(78.233002)
    want = (t[:, 0] * F32(c0 + c1)).astype(F32)
    assert np.array_equal(got[:, 0], want) and not np.array_equal(plain[:, 0], want)
    other = parse("!!NVfp4.0\nTEMP R0;\nDP2.F R0.x, fragment.texcoord[0], "
                  "fragment.texcoord[1];\nMOV.F result.color, R0;\nEND\n", filename="t.fp")
    assert factored_operand(other, other.instructions[0]) is None


def test_products_by_literals_folded_into_a_dot_with_a_literal():
    """loose-connection: ``dot(vec2(t * 0.03, y * 0.42), vec2(12.9898, 78.233))``, which
    llvmpipe computes with the constants multiplied first (``y * (0.42 * 78.233)``): each term
    recomputed as the MUL's other operand times the float32 product of the two literals, summed
    left to right, on every lane; a MUL of two variables is no such term."""
    from xlate.verify.oracle_order import ConstantProducts, constant_product_sites
    text = ("MUL.F R1.z, fragment.texcoord[0].x, {0.029999999}.x;\n"
            "MUL.F R1.w, fragment.texcoord[0].y, {0.41999999}.x;\n"
            "DP2.F R0, R1.zwzw, {12.9898, 78.233002};\n")
    got, t, prog = _run(text, lambda prog: ConstantProducts(prog, N).changes(np.ones(N, bool)))
    k1, k2 = F32(F32(0.03) * F32(12.9898)), F32(F32(0.42) * F32(78.233))
    want = ((t[:, 0] * k1).astype(F32) + (t[:, 1] * k2).astype(F32)).astype(F32)
    assert np.array_equal(got[:, 0], want) and np.array_equal(got[:, 3], want)
    plain, _, _ = _run(text)
    assert (plain[:, 0] != want).any()
    assert constant_product_sites(prog) == {2: [(0, 0, 0, 2, float(k1)), (1, 1, 0, 3, float(k2))]}
    two = parse("!!NVfp4.0\nTEMP R0, R1;\nMUL.F R1.z, fragment.texcoord[0].x, "
                "fragment.texcoord[0].y;\nDP2.F R0, R1.zwzw, {12.9898, 78.233002};\n"
                "MOV.F result.color, R0;\nEND\n", filename="t.fp")
    assert constant_product_sites(two) == {}
