"""Load-time diagnostics of the NV_gpu_program4 frontend (!!NVvp4.0, !!NVfp4.0, !!NVgp4.0).

One small program per load-time error of design/nv_dialects.md section 13 (Appendix A) that
applies to the NV4 family, plus the load-error variants of the worked examples in sections
11.6-11.9.  Each case asserts the exact diagnostics (file:line:col, severity, code, message) and
cites the spec section that makes the program fail to load.  Spec abbreviations as in the
digest: GP4 = NV_gpu_program4, VP4/FP4/GEO4 = NV_vertex/fragment/geometry_program4.

Also: every error of a file is reported, in source order; the caret rendering; and garbage
inputs never raise anything but XlateError.
"""
from __future__ import annotations

import random

import pytest

from xlate.diagnostics import CODES, XlateError
from xlate.frontends import parse_program
from nv4_examples import VP4_A, VP4_B, FP4_A, FP4_B, GP4_A, GP4_B, PBO  # noqa: E402


def diagnostics(src: str, name: str) -> list[str]:
    """Headers of every diagnostic of a program that must fail to load."""
    with pytest.raises(XlateError) as info:
        parse_program(src, name)
    return [d.header() for d in info.value.diagnostics]


def check(got: list[str], expected: list[str]) -> None:
    """Exact match; an expected line ending in '...' is a prefix (the parser's list of
    expected tokens after a syntax error depends on LALR table details)."""
    assert len(got) == len(expected), got
    for g, e in zip(got, expected):
        if e.endswith("..."):
            assert g.startswith(e[:-3]), (g, e)
        else:
            assert g == e


# ---------------------------------------------------------------------------------------------
# Appendix A, one program per error
# ---------------------------------------------------------------------------------------------
CASES = [
    # GP4 2.X.2 (no tokens or characters outside the grammar)
    pytest.param('t.fp', """!!NVfp4.0
MOV result.color, fragment.color @;
END
""",
                 ["t.fp:2:34: error[E1003]: unexpected character '@'"],
                 id='unexpected_character'),
    # GP4 2.X.2 / FP4 2.X.2: the program begins with !!NVfp4.0
    pytest.param('t.fp', """!!NVfp5.0
END
""",
                 ["t.fp:1:1: error[E1001]: unknown program header '!!NVfp5.0'"],
                 id='unknown_header'),
    # FP4 2.X.2: parsing begins right after the header string, which comes first
    pytest.param('t.fp', """  !!NVfp4.0
END
""",
                 ['t.fp:1:1: error[E1001]: the program header must be the first characters of the file (no leading whitespace)'],
                 id='header_after_whitespace'),
    # GP4 2.X.2 <program> ends with END
    pytest.param('t.fp', """!!NVfp4.0
MOV result.color, fragment.color;
""",
                 ['t.fp:3:1: error[E1004]: program has no END statement'],
                 id='missing_end'),
    # GP4 2.X.2 <statement> ::= <instruction> ';'
    pytest.param('t.fp', """!!NVfp4.0
MOV result.color, fragment.color
MOV result.color, fragment.color;
END
""",
                 ["t.fp:3:1: error[E1002]: unexpected 'MOV'..."],
                 id='missing_semicolon'),
    # GP4 2.X.2: tokens are case-sensitive
    pytest.param('t.fp', """!!NVfp4.0
mov result.color, fragment.color;
END
""",
                 ["t.fp:2:1: error[E3001]: unknown opcode 'mov'"],
                 id='lowercase_opcode'),
    # GP4 2.X.2 / Table X.13
    pytest.param('t.fp', """!!NVfp4.0
FOO result.color, fragment.color;
END
""",
                 ["t.fp:2:1: error[E3001]: unknown opcode 'FOO'"],
                 id='unknown_opcode'),
    # FP4 2.X.2: DDX/DDY/KIL are fragment-only
    pytest.param('t.vp', """!!NVvp4.0
TEMP a;
DDX a, a;
END
""",
                 ["t.vp:3:1: error[E3001]: 'DDX' is only available in fragment programs"],
                 id='fragment_opcode_in_vertex_program'),
    # FP4 2.X.2 <SpecialInstruction> (KIL is fragment-only)
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
KIL -vertex[0].position;
END
""",
                 ["t.gp:5:1: error[E3001]: 'KIL' is only available in fragment programs"],
                 id='kil_in_geometry_program'),
    # GEO4 2.X.2: EMIT/ENDPRIM are geometry-only
    pytest.param('t.fp', """!!NVfp4.0
EMIT;
END
""",
                 ["t.fp:2:1: error[E3001]: 'EMIT' is only available in geometry programs"],
                 id='emit_in_fragment_program'),
    # GP4 issue 2: ARL and the address registers are gone
    pytest.param('t.vp', """!!NVvp4.0
TEMP a;
ARL a, a;
END
""",
                 ["t.vp:3:1: error[E3001]: 'ARL' does not exist in NV_gpu_program4 (removed from the older NV/ARB dialects)"],
                 id='removed_opcode_arl'),
    # GP4 Table X.15 (suffixes R H C C0 C1 _SAT _SSAT; no X)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MADXC a, a, a, a;
END
""",
                 ["t.fp:3:1: error[E3001]: 'MADXC': the X (fixed-point) precision suffix does not exist in NV_gpu_program4 (GP4 Table X.15)"],
                 id='x_precision_suffix'),
    # GP4 2.X.4.1: type suffix, then CC, then clamping
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
ADD_SATC a, a, a;
END
""",
                 ["t.fp:3:1: error[E3001]: 'ADD_SATC': the suffixes of ADD must appear in the order R/H, then C/C0/C1, then _SAT/_SSAT, each at most once (GP4 2.X.4.1)"],
                 id='suffixes_out_of_order'),
    # GP4 2.X.4.2 <swizzleSuffix>: one or four components
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a, a.xy;
END
""",
                 ["t.fp:3:10: error[E1006]: swizzle '.xy' must have 1 or 4 components"],
                 id='two_component_swizzle'),
    # GP4 2.X.4.2 <swizzleSuffix>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a, a.xyz;
END
""",
                 ["t.fp:3:10: error[E1006]: swizzle '.xyz' must have 1 or 4 components"],
                 id='three_component_swizzle'),
    # GP4 2.X.4.2: xyzw and rgba selectors cannot be mixed
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a, a.xyzr;
END
""",
                 ["t.fp:3:10: error[E1006]: invalid swizzle '.xyzr'"],
                 id='mixed_swizzle_sets'),
    # GP4 2.X.2 <xyzwMask> (components in order)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a.yx, a;
END
""",
                 ["t.fp:3:7: error[E1006]: invalid write mask '.yx' (components in order, no repeats, no mixing xyzw with rgba)"],
                 id='write_mask_out_of_order'),
    # GP4 2.X.2 <xyzwMask>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a.xx, a;
END
""",
                 ["t.fp:3:7: error[E1006]: invalid write mask '.xx' (components in order, no repeats, no mixing xyzw with rgba)"],
                 id='write_mask_repeated'),
    # GP4 2.X.2 <optWriteMask>: xyzw or rgba
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a.xg, a;
END
""",
                 ["t.fp:3:7: error[E1006]: invalid write mask '.xg' (components in order, no repeats, no mixing xyzw with rgba)"],
                 id='write_mask_mixed'),
    # GP4 2.X.2 <instOperandS> needs <scalarSuffix>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
RCP a, a;
END
""",
                 ["t.fp:3:8: error[E3004]: scalar operand 'a' needs a component selector (for example '.x')"],
                 id='scalar_operand_without_selector'),
    # GP4 2.X.2 <instOperandS>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
RCP a, {1, 2};
END
""",
                 ["t.fp:3:8: error[E3004]: a constant vector used as a scalar operand needs a component selector (for example '{1, 2}.x')"],
                 id='constant_vector_as_scalar'),
    # GP4 2.X.2 <constantVectorList> (at most four)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a, {1, 2, 3, 4, 5};
END
""",
                 ['t.fp:3:21: error[E1007]: a constant vector has at most 4 components'],
                 id='too_many_constant_components'),
    # GP4 2.X.2 <BINop_instruction>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
ADD a, a;
END
""",
                 ['t.fp:3:1: error[E3003]: ADD takes a destination and 2 source operands; found 2 operands'],
                 id='wrong_operand_count'),
    # GP4 2.X.3: the same name declared twice
    pytest.param('t.vp', """!!NVvp4.0
TEMP a;
PARAM a = program.local[0];
END
""",
                 ["t.vp:3:7: error[E2001]: 'a' is already declared"],
                 id='duplicate_declaration'),
    # GP4 2.X.3
    pytest.param('t.vp', """!!NVvp4.0
TEMP a, b, a;
END
""",
                 ["t.vp:2:12: error[E2001]: 'a' is already declared"],
                 id='duplicate_in_one_temp_statement'),
    # GP4 2.X.3: variables must be declared prior to use
    pytest.param('t.vp', """!!NVvp4.0
MOV result.position, a;
TEMP a;
END
""",
                 ["t.vp:2:22: error[E2003]: undeclared name 'a'"],
                 id='use_before_declaration'),
    # GP4 2.X.3.8: the right side must be an established name
    pytest.param('t.vp', """!!NVvp4.0
ALIAS x = y;
END
""",
                 ["t.vp:2:11: error[E2003]: ALIAS of undeclared name 'y'"],
                 id='alias_of_undeclared_name'),
    # GP4 2.X.3.8: the left side must be a new name
    pytest.param('t.vp', """!!NVvp4.0
TEMP a, b;
ALIAS a = b;
END
""",
                 ["t.vp:3:7: error[E2001]: 'a' is already declared"],
                 id='alias_redeclares_name'),
    # GP4 2.X.2: 'vertex' is reserved in vertex and geometry programs
    pytest.param('t.vp', """!!NVvp4.0
TEMP vertex;
END
""",
                 ["t.vp:2:6: error[E2002]: 'vertex' is a reserved word"],
                 id='reserved_word_vertex'),
    # GP4 2.X.2: 'result' is reserved
    pytest.param('t.fp', """!!NVfp4.0
PARAM result = program.local[0];
END
""",
                 ["t.fp:2:7: error[E2002]: 'result' is a reserved word"],
                 id='reserved_word_result'),
    # GP4 2.X.3.1: declared size must match the binding count
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[3] = { program.local[0..3] };
END
""",
                 ["t.vp:2:7: error[E2005]: 'p' is declared with 3 elements but bound to 4"],
                 id='param_array_size_mismatch'),
    # VP4 2.X.3.2 / GP4 2.X.3.3: a range [a..b] with a > b fails to load
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[] = { program.local[3..1] };
END
""",
                 ['t.vp:2:29: error[E2006]: empty range [3..1]'],
                 id='reversed_range'),
    # GP4 2.X.2 <paramMultipleInit> ::= "=" "{" <paramMultInitList> "}"
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[] = program.local[0..3];
TEMP t;
MOV t, p[3];
END
""",
                 ["t.vp:2:7: error[E1002]: the array 'p' needs a braced initializer list: 'p[] = { ... }'"],
                 id='array_without_braces'),
    # GP4 2.X.3.1: "an array size must be specified ... and must be a positive integer"
    pytest.param('t.vp', """!!NVvp4.0
TEMP a[0];
END
""",
                 ['t.vp:2:6: error[E2006]: array size must be positive'],
                 id='temp_array_of_size_zero'),
    # VP4 2.X.3.2: "[n..o]" bindings "are available only in explicit declarations of array
    # variables"
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a = vertex.texcoord[0..1];
END
""",
                 ["t.vp:2:8: error[E2005]: 'a' is not an array but its binding has 2 elements"],
                 id='range_bound_to_a_single_variable'),
    pytest.param('t.vp', """!!NVvp4.0
TEMP t;
MOV t, vertex.attrib[0..1];
END
""",
                 ['t.vp:3:22: error[E2004]: index ranges are only allowed in declarations'],
                 id='range_in_an_instruction'),
    # GP4 2.X.4.2 relative addressing applies to array variables, not to bindings
    pytest.param('t.vp', """!!NVvp4.0
INT TEMP i;
TEMP t;
MOV t, vertex.attrib[i.x];
END
""",
                 ['t.vp:4:22: error[E2010]: bindings cannot be indexed relatively; declare an array variable and index that'],
                 id='relative_index_on_a_binding'),
    # VP4 Table X.X: vertex.attrib[n], n < 16 (MAX_VERTEX_ATTRIBS)
    pytest.param('t.vp', """!!NVvp4.0
TEMP t;
MOV t, vertex.attrib[16];
END
""",
                 ['t.vp:3:22: error[E2006]: binding index 16 out of range [0, 15]'],
                 id='binding_index_out_of_range'),
    # GP4 2.X.4.2: absolute index >= array size
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[2] = { program.local[0..1] };
TEMP a;
MOV a, p[2];
END
""",
                 ["t.vp:4:10: error[E2006]: index 2 out of range for 'p' (2 elements)"],
                 id='absolute_index_out_of_range'),
    # GP4 2.X.3.1: an array must be indexed
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[2] = { program.local[0..1] };
TEMP a;
MOV a, p;
END
""",
                 ["t.vp:4:8: error[E2007]: array 'p' must be indexed"],
                 id='array_without_index'),
    # GP4 2.X.3.1: a non-array must not be indexed
    pytest.param('t.vp', """!!NVvp4.0
TEMP a, b;
MOV a, b[0];
END
""",
                 ["t.vp:3:10: error[E2007]: 'b' is not an array and cannot be indexed"],
                 id='non_array_with_index'),
    # GP4 issue 2: ADDRESS is not part of NV_gpu_program4
    pytest.param('t.vp', """!!NVvp4.0
ADDRESS A0;
END
""",
                 ['t.vp:2:1: error[E1002]: ADDRESS declarations do not exist in NV_gpu_program4; index arrays with a component of an INT TEMP instead'],
                 id='address_declaration'),
    # VP4 2.X.6.Y: the vertex program options
    pytest.param('t.vp', """!!NVvp4.0
OPTION NV_foo;
END
""",
                 ["t.vp:2:8: error[E2011]: unknown option 'NV_foo' for this program type (allowed: ARB_position_invariant)"],
                 id='unknown_option'),
    # GP4 2.X.2 <program>: options come first
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
OPTION ARB_draw_buffers;
END
""",
                 ['t.fp:3:1: error[E2011]: OPTION statements must come before every other statement'],
                 id='option_after_statement'),
    # FP4 2.X.6.Y: only one fog option
    pytest.param('t.fp', """!!NVfp4.0
OPTION ARB_fog_exp;
OPTION ARB_fog_linear;
END
""",
                 ["t.fp:3:8: error[E2011]: option 'ARB_fog_linear' conflicts with 'ARB_fog_exp'"],
                 id='two_fog_options'),
    # FP4 2.X.6.Y: only one precision hint
    pytest.param('t.fp', """!!NVfp4.0
OPTION ARB_precision_hint_fastest;
OPTION ARB_precision_hint_nicest;
END
""",
                 ['t.fp:3:8: error[E2011]: both precision hints given'],
                 id='both_precision_hints'),
    # VP4 2.X.3.2 Table X.X (invalid binding pairs)
    pytest.param('t.vp', """!!NVvp4.0
MOV result.position, vertex.position;
MOV result.color, vertex.attrib[0];
END
""",
                 ["t.vp:3:19: error[E2013]: 'vertex.attrib[0]' and 'vertex.position' are the same vertex attribute; a program may bind only one of them (VP4 2.X.3.2)"],
                 id='conventional_and_generic_attribute'),
    # VP4 2.X.3.2: vertex.texcoord[n] aliases vertex.attrib[8+n]
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a[] = { vertex.attrib[8..9] };
MOV result.color, vertex.texcoord[1];
END
""",
                 ["t.vp:3:19: error[E2013]: 'vertex.texcoord[1]' and 'vertex.attrib[9]' are the same vertex attribute; a program may bind only one of them (VP4 2.X.3.2)"],
                 id='conventional_and_generic_texcoord'),
    # GP4 2.X.3.1: at most one data type modifier
    pytest.param('t.vp', """!!NVvp4.0
INT UINT TEMP a;
END
""",
                 ['t.vp:2:5: error[E2008]: more than one data type modifier'],
                 id='two_data_type_modifiers'),
    # GP4 2.X.3.1: at most one storage size modifier
    pytest.param('t.vp', """!!NVvp4.0
SHORT LONG TEMP a;
END
""",
                 ['t.vp:2:7: error[E2008]: more than one size modifier'],
                 id='two_size_modifiers'),
    # GP4 2.X.3.1: LONG only on TEMP
    pytest.param('t.vp', """!!NVvp4.0
LONG PARAM a = program.local[0];
END
""",
                 ['t.vp:2:1: error[E2008]: LONG is not allowed on PARAM declarations (GP4 2.X.3.1)'],
                 id='long_on_param'),
    # GP4 2.X.3.1: SHORT only on TEMP and OUTPUT
    pytest.param('t.vp', """!!NVvp4.0
SHORT ATTRIB a = vertex.position;
END
""",
                 ['t.vp:2:1: error[E2008]: SHORT is not allowed on ATTRIB declarations (GP4 2.X.3.1)'],
                 id='short_on_attrib'),
    # GP4 2.X.4: conflicting data types fail to load unless NTC
    pytest.param('t.vp', """!!NVvp4.0
FLOAT TEMP f;
INT TEMP i;
MOV.S i, f;
END
""",
                 ["t.vp:4:10: error[E3006]: 'f' is declared FLOAT but the instruction uses it as INT (use .NTC to reinterpret the bits)"],
                 id='typed_operand_mismatch'),
    # GP4 2.X.3.1: written using another data type
    pytest.param('t.vp', """!!NVvp4.0
UINT TEMP u;
TEMP t;
ADD.F u, t, t;
END
""",
                 ["t.vp:4:7: error[E3006]: 'u' is declared UINT but the instruction uses it as FLOAT (use .NTC to reinterpret the bits)"],
                 id='typed_result_mismatch'),
    # GP4 2.X.3.3 Constant Bindings
    pytest.param('t.vp', """!!NVvp4.0
INT TEMP a;
MOV.S a, 1.5;
END
""",
                 ["t.vp:3:10: error[E2009]: '1.5' is not an integer, but the operand is int"],
                 id='float_literal_for_integer'),
    # GP4 2.X.3.3 Constant Bindings
    pytest.param('t.vp', """!!NVvp4.0
UINT TEMP a;
MOV.U a, {-1, 0, 0, 0};
END
""",
                 ['t.vp:3:11: error[E2009]: negative constant -1 for an unsigned operand'],
                 id='negative_literal_for_unsigned'),
    # GP4 2.X.3.3; nv_dialects.md 2.4 trap 9
    pytest.param('t.vp', """!!NVvp4.0
UINT PARAM a = -1;
END
""",
                 ['t.vp:2:16: error[E2009]: negative constant -1 for an unsigned operand'],
                 id='negative_literal_in_unsigned_param'),
    # GP4 2.X.3.3: an integer too large to be represented
    pytest.param('t.vp', """!!NVvp4.0
UINT TEMP a;
MOV.U a, 4294967296;
END
""",
                 ['t.vp:3:10: error[E2009]: constant 4294967296 does not fit in 32 bits'],
                 id='unsigned_literal_too_large'),
    # GP4 2.X.3.3
    pytest.param('t.vp', """!!NVvp4.0
INT TEMP a;
MOV.S a, 2147483648;
END
""",
                 ['t.vp:3:10: error[E2009]: constant 2147483648 does not fit in a signed 32-bit integer'],
                 id='signed_literal_too_large'),
    # GP4 2.X.4.2: offsets are limited to [0, n-1]
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[4] = { program.local[0..3] };
INT TEMP i;
TEMP a;
MOV a, p[i.x + 4];
END
""",
                 ["t.vp:5:10: error[E2006]: relative offset +4 out of range [0, 3] for 'p' (GP4 2.X.4.2)"],
                 id='relative_offset_too_large'),
    # GP4 2.X.4.2: the index is a scalar integer operand
    pytest.param('t.vp', """!!NVvp4.0
PARAM p[4] = { program.local[0..3] };
FLOAT TEMP i;
TEMP a;
MOV a, p[i.x];
END
""",
                 ["t.vp:5:10: error[E2010]: 'i' is declared FLOAT and cannot index an array (use an INT or typeless variable)"],
                 id='float_index_register'),
    # GP4 2.X.3.2: an attribute binding in at most one relatively addressed array
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a[] = { vertex.attrib[0..3] };
ATTRIB b[] = { vertex.attrib[2..5] };
INT TEMP i;
TEMP t;
MOV t, a[i.x];
MOV t, b[i.x];
END
""",
                 ["t.vp:7:8: error[E2012]: binding 'vertex.attrib[2]' is used in two relatively addressed arrays ('a' and 'b')"],
                 id='attribute_in_two_relative_arrays'),
    # GP4 2.X.3.3
    pytest.param('t.vp', """!!NVvp4.0
PARAM a[] = { program.local[0..3] };
PARAM b[] = { program.local[2..5] };
INT TEMP i;
TEMP t;
MOV t, a[i.x];
MOV t, b[i.x];
END
""",
                 ["t.vp:7:8: error[E2012]: binding 'program.local[2]' is used in two relatively addressed arrays ('a' and 'b')"],
                 id='param_in_two_relative_arrays'),
    # GP4 2.X.3.3
    pytest.param('t.vp', """!!NVvp4.0
PARAM a[] = { program.local[0..3], program.local[1] };
INT TEMP i;
TEMP t;
MOV t, a[i.x];
END
""",
                 ["t.vp:5:8: error[E2012]: binding 'program.local[1]' appears twice in the relatively addressed array 'a'"],
                 id='param_twice_in_one_relative_array'),
    # GP4 2.X.3.2: 'vertex.attrib[1], vertex.attrib[3]  # invalid'
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a[] = { vertex.attrib[1], vertex.attrib[3] };
END
""",
                 ["t.vp:2:8: error[E2004]: array bindings must increase consecutively: 'vertex.attrib[3]' cannot follow 'vertex.attrib[1]'"],
                 id='attribute_array_skips_a_binding'),
    # GP4 2.X.3.2: 'vertex.attrib[2], vertex.attrib[1]  # invalid'
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a[] = { vertex.attrib[2], vertex.attrib[1] };
END
""",
                 ["t.vp:2:8: error[E2004]: array bindings must increase consecutively: 'vertex.attrib[1]' cannot follow 'vertex.attrib[2]'"],
                 id='attribute_array_wrong_order'),
    # GP4 2.X.3.2: 'vertex.attrib[1], vertex.texcoord[2]  # invalid'
    pytest.param('t.vp', """!!NVvp4.0
ATTRIB a[] = { vertex.attrib[1], vertex.texcoord[2] };
END
""",
                 ['t.vp:2:8: error[E2004]: array bindings must all be of the same kind'],
                 id='attribute_array_mixed_types'),
    # GP4 2.X.3.5: 'result.texcoord[1], result.texcoord[3]  # invalid'
    pytest.param('t.vp', """!!NVvp4.0
OUTPUT o[] = { result.texcoord[1], result.texcoord[3] };
END
""",
                 ["t.vp:2:8: error[E2004]: array bindings must increase consecutively: 'result.texcoord[3]' cannot follow 'result.texcoord[1]'"],
                 id='result_array_skips_a_binding'),
    # VP4 2.X.6.Y: no result.position with ARB_position_invariant
    pytest.param('t.vp', """!!NVvp4.0
OPTION ARB_position_invariant;
MOV result.position, vertex.position;
END
""",
                 ['t.vp:3:5: error[E2004]: result.position cannot be used with OPTION ARB_position_invariant'],
                 id='position_invariant_writes_position'),
    # GP4 2.X.3.3: parameters are read-only
    pytest.param('t.vp', """!!NVvp4.0
PARAM p = program.local[0];
MOV p, vertex.position;
END
""",
                 ["t.vp:3:5: error[E3005]: 'p' is a parameter variable and cannot be written"],
                 id='write_to_parameter'),
    # GP4 2.X.3.5: results are write-only
    pytest.param('t.vp', """!!NVvp4.0
TEMP a;
MOV a, result.position;
END
""",
                 ['t.vp:3:8: error[E3004]: result bindings are write-only'],
                 id='read_of_result'),
    # FP4 2.X.3.1: INT/UINT attributes must be FLAT
    pytest.param('t.fp', """!!NVfp4.0
INT ATTRIB lod = fragment.attrib[1];
END
""",
                 ['t.fp:2:12: error[E2008]: integer fragment attributes must be declared FLAT (FP4 2.X.3.1)'],
                 id='integer_attribute_without_flat'),
    # FP4 2.X.3.1: FLAT with CENTROID or NOPERSPECTIVE
    pytest.param('t.fp', """!!NVfp4.0
FLAT CENTROID ATTRIB a = fragment.texcoord[0];
END
""",
                 ['t.fp:2:6: error[E2008]: FLAT cannot be combined with CENTROID or NOPERSPECTIVE'],
                 id='flat_with_centroid'),
    # FP4 2.X.3.1: 'CENTROID CENTROID ATTRIB'
    pytest.param('t.fp', """!!NVfp4.0
CENTROID CENTROID ATTRIB a = fragment.texcoord[0];
END
""",
                 ['t.fp:2:10: error[E2008]: interpolation modifier CENTROID given twice'],
                 id='interpolation_modifier_repeated'),
    # FP4 2.X.3.1: no modifiers on position, facing, fog coordinate, clip distances
    pytest.param('t.fp', """!!NVfp4.0
FLAT ATTRIB a = fragment.position;
END
""",
                 ["t.fp:2:13: error[E2008]: interpolation modifiers are not allowed on 'fragment.position'"],
                 id='interpolation_on_position'),
    # FP4 2.X.3.1
    pytest.param('t.fp', """!!NVfp4.0
NOPERSPECTIVE ATTRIB a = fragment.facing;
END
""",
                 ["t.fp:2:22: error[E2008]: interpolation modifiers are not allowed on 'fragment.facing'"],
                 id='interpolation_on_facing'),
    # FP4 2.X.3.1: modifiers on a non-attribute variable
    pytest.param('t.fp', """!!NVfp4.0
FLAT TEMP a;
END
""",
                 ['t.fp:2:1: error[E2008]: interpolation modifiers only apply to fragment program ATTRIB declarations (FP4 2.X.3.1)'],
                 id='interpolation_on_temp'),
    # FP4 2.X.3.1 (only fragment attributes have interpolation)
    pytest.param('t.vp', """!!NVvp4.0
FLAT ATTRIB a = vertex.position;
END
""",
                 ['t.vp:2:1: error[E2008]: interpolation modifiers only apply to fragment program ATTRIB declarations (FP4 2.X.3.1)'],
                 id='interpolation_in_vertex_program'),
    # FP4 2.X.3.1 and issue 4
    pytest.param('t.fp', """!!NVfp4.0
FLAT ATTRIB a = fragment.texcoord[0];
CENTROID ATTRIB b = fragment.texcoord[0];
END
""",
                 ["t.fp:3:17: error[E2008]: 'b' binds 'fragment.texcoord[0]' with interpolation CENTROID, but 'a' binds 'fragment.texcoord[0]' with FLAT (FP4 2.X.3.1)"],
                 id='conflicting_interpolation_same_attribute'),
    # FP4 2.X.3.1 (primary vs secondary color)
    pytest.param('t.fp', """!!NVfp4.0
FLAT ATTRIB a = fragment.color;
ATTRIB b = fragment.color.secondary;
END
""",
                 ["t.fp:3:8: error[E2008]: 'b' binds 'fragment.color.secondary' with interpolation default, but 'a' binds 'fragment.color' with FLAT (FP4 2.X.3.1)"],
                 id='conflicting_interpolation_primary_secondary'),
    # FP4 2.X.3.5 and issue 5: results cannot be arrays
    pytest.param('t.fp', """!!NVfp4.0
OPTION ARB_draw_buffers;
OUTPUT o[] = { result.color[0..1] };
END
""",
                 ['t.fp:3:8: error[E2007]: fragment program results cannot be arrays (FP4 2.X.3.5)'],
                 id='fragment_result_array'),
    # FP4 2.X.6.Y: result.color[n] needs ARB_draw_buffers
    pytest.param('t.fp', """!!NVfp4.0
MOV result.color[1], fragment.color;
END
""",
                 ["t.fp:2:18: error[E2004]: result.color[n] needs 'OPTION ARB_draw_buffers;' (FP4 2.X.6.Y)"],
                 id='result_color_n_without_draw_buffers'),
    # GEO4 2.14.6.2: exactly one PRIMITIVE_OUT
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
VERTICES_OUT 6;
EMIT;
END
""",
                 ['t.gp:1:1: error[E6001]: geometry program without PRIMITIVE_OUT'],
                 id='missing_primitive_out'),
    # GEO4 2.14.6.1/2/4
    pytest.param('t.gp', """!!NVgp4.0
EMIT;
END
""",
                 ['t.gp:1:1: error[E6001]: geometry program without PRIMITIVE_IN, PRIMITIVE_OUT, VERTICES_OUT'],
                 id='missing_all_geometry_declarations'),
    # GEO4 2.14.6.4: exactly one VERTICES_OUT
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 6;
VERTICES_OUT 6;
END
""",
                 ['t.gp:5:1: error[E6002]: VERTICES_OUT declared twice'],
                 id='duplicate_vertices_out'),
    # GEO4 2.X.2 <declPrimInType>
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN QUADS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
END
""",
                 ["t.gp:2:14: error[E6001]: invalid PRIMITIVE_IN 'QUADS' (expected one of: POINTS, LINES, LINES_ADJACENCY, TRIANGLES, TRIANGLES_ADJACENCY)"],
                 id='invalid_input_primitive'),
    # GEO4 2.X.2 <declPrimOutType>
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT LINES;
VERTICES_OUT 1;
END
""",
                 ["t.gp:3:15: error[E6001]: invalid PRIMITIVE_OUT 'LINES' (expected one of: POINTS, LINE_STRIP, TRIANGLE_STRIP)"],
                 id='invalid_output_primitive'),
    # GEO4 2.14.6.4 (a positive vertex limit)
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 0;
END
""",
                 ['t.gp:4:14: error[E6001]: VERTICES_OUT must be an integer in [1, 256] (MAX_PROGRAM_OUTPUT_VERTICES_NV, GEO4 2.14.6.4)'],
                 id='vertices_out_zero'),
    # GEO4 2.14.6.4: the limit may not exceed MAX_PROGRAM_OUTPUT_VERTICES_NV
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 2000;
END
""",
                 ['t.gp:4:14: error[E6001]: VERTICES_OUT must be an integer in [1, 256] (MAX_PROGRAM_OUTPUT_VERTICES_NV, GEO4 2.14.6.4)'],
                 id='vertices_out_over_limit'),
    # GEO4 2.X.2: <declSequence> precedes the statements
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN POINTS;
PRIMITIVE_OUT POINTS;
TEMP a;
VERTICES_OUT 1;
END
""",
                 ['t.gp:5:1: error[E1002]: VERTICES_OUT must come before every instruction, label and variable declaration (GEO4 2.X.2)'],
                 id='geometry_declaration_after_statement'),
    # VP4: no declarations in vertex programs
    pytest.param('t.vp', """!!NVvp4.0
PRIMITIVE_IN LINES;
END
""",
                 ['t.vp:2:1: error[E2004]: PRIMITIVE_IN is only allowed in geometry programs'],
                 id='geometry_declaration_in_vertex_program'),
    # GEO4 2.X.3.2: [m] must be a constant in instructions
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN TRIANGLES;
PRIMITIVE_OUT TRIANGLE_STRIP;
VERTICES_OUT 6;
INT TEMP i;
MOV result.position, vertex[i.x].position;
END
""",
                 ['t.gp:6:29: error[E6003]: the vertex number of a binding must be a constant; declare a per-vertex ATTRIB variable to index it'],
                 id='vertex_number_not_constant'),
    # GEO4 2.X.3.2: m in the range of the input primitive
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN LINES;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
MOV result.position, vertex[2].position;
END
""",
                 ['t.gp:5:29: error[E6003]: vertex 2 does not exist: the input primitive has 2 vertices'],
                 id='vertex_number_out_of_range'),
    # GEO4 2.X.3.2: [m] is required in instructions
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN LINES;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
MOV result.position, vertex.position;
END
""",
                 ['t.gp:5:22: error[E6003]: per-vertex attributes need a vertex number: vertex[n].position'],
                 id='vertex_binding_without_vertex_number'),
    # GEO4 2.X.3.2 (ATTRIB pos = vertex.position is indexed pos[m])
    pytest.param('t.gp', """!!NVgp4.0
PRIMITIVE_IN LINES;
PRIMITIVE_OUT POINTS;
VERTICES_OUT 1;
ATTRIB p = vertex.position;
MOV result.position, p;
END
""",
                 ["t.gp:6:22: error[E6003]: 'p' is a per-vertex attribute: index it with the vertex number first ('p[n]')"],
                 id='per_vertex_attribute_without_vertex_number'),
    # GP4 2.X.3.6: buffer bindings cannot be used directly in instructions
    pytest.param('t.vp', """!!NVvp4.0
TEMP p;
DP4 p.x, program.buffer[0][3], vertex.position;
END
""",
                 ["t.vp:3:10: error[E2004]: 'program.buffer' can only be used in a BUFFER declaration, not in an instruction"],
                 id='buffer_binding_in_instruction'),
    # GP4 2.X.3.6: BUFFER and BUFFER4 on one binding point
    pytest.param('t.vp', """!!NVvp4.0
BUFFER a[] = { program.buffer[0] };
BUFFER4 b[] = { program.buffer[0] };
END
""",
                 ['t.vp:3:9: error[E2012]: program.buffer[0] is bound both as BUFFER and BUFFER4'],
                 id='buffer_and_buffer4_same_binding'),
    # GP4 2.X.3.6: same binding point, increasing consecutively
    pytest.param('t.vp', """!!NVvp4.0
BUFFER f[] = { program.buffer[3][2], program.buffer[3][4] };
END
""",
                 ['t.vp:2:38: error[E2004]: buffer array bindings must use one binding point and increase consecutively (expected program.buffer[3][3])'],
                 id='buffer_list_not_consecutive'),
    # GP4 2.X.3.6: buffers are bound only by BUFFER/BUFFER4
    pytest.param('t.vp', """!!NVvp4.0
PARAM c = program.buffer[0][1];
END
""",
                 ['t.vp:2:11: error[E2004]: program.buffer can only be bound by BUFFER/BUFFER4'],
                 id='buffer_bound_by_param'),
    # GP4 2.X.3.6: buffer variables are read-only
    pytest.param('t.vp', """!!NVvp4.0
BUFFER4 c[4] = { program.buffer[0][2..5] };
MOV c[0], vertex.position;
END
""",
                 ["t.vp:3:5: error[E3005]: 'c' is a buffer variable and cannot be written"],
                 id='buffer_written'),
    # GP4 2.X.4.1: clamping only on floating-point results
    pytest.param('t.fp', """!!NVfp4.0
INT TEMP i;
MOV.SAT.S i.x, 1;
END
""",
                 ['t.fp:3:5: error[E3002]: saturation is only allowed on float results (MOV.S)'],
                 id='saturation_on_integer_result'),
    # GP4 Table X.13: I2F has no clamping modifier
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
I2F.SAT a, a;
END
""",
                 ['t.fp:3:5: error[E3002]: I2F does not support clamping modifiers (GP4 Table X.13)'],
                 id='saturation_on_i2f'),
    # GP4 Table X.13: PK2H has no clamping mark (its .F result is only a bit pattern)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
PK2H.SAT a, a;
END
""",
                 ['t.fp:3:6: error[E3002]: PK2H does not support clamping modifiers (GP4 Table X.13)'],
                 id='saturation_on_pk2h'),
    # GP4 Table X.13: KIL has no clamping mark
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
KIL.SAT a;
END
""",
                 ['t.fp:3:5: error[E3002]: KIL does not support clamping modifiers (GP4 Table X.13)'],
                 id='saturation_on_kil'),
    # GP4 Table X.13: RET (like every flow instruction but REP) takes no modifier at all
    pytest.param('t.fp', """!!NVfp4.0
RET.CC;
END
""",
                 ['t.fp:2:5: error[E3002]: RET takes no modifiers'],
                 id='cc_update_on_ret'),
    # GP4 Table X.13: PK2H takes F and I only
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
PK2H.CC a, a;
END
""",
                 ['t.fp:3:6: error[E3002]: PK2H cannot update condition codes'],
                 id='cc_update_on_pk2h'),
    # GP4 Table X.13: KIL has no C
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
KIL.CC a;
END
""",
                 ['t.fp:3:5: error[E3002]: KIL cannot update condition codes'],
                 id='cc_update_on_kil'),
    # GP4 Table X.13: IF takes no modifiers
    pytest.param('t.fp', """!!NVfp4.0
IF.SAT NE.x;
ENDIF;
END
""",
                 ['t.fp:2:4: error[E3002]: IF takes no modifiers'],
                 id='modifier_on_if'),
    # GP4 2.X.8.Z MUL: HI needs .S or .U
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MUL.HI a, a, a;
END
""",
                 ['t.fp:3:5: error[E3002]: MUL.HI needs an integer data type (.S or .U)'],
                 id='hi_without_integer_type'),
    # GP4 2.X.4.1 / MUL (S24 selects the type)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MUL.S24.S a, a, a;
END
""",
                 ["t.fp:3:9: error[E3002]: '.S24' already selects the data type; remove '.S'"],
                 id='s24_with_type_modifier'),
    # GP4 2.X.4.1: S24, U24 and HI only on MUL
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
ADD.S.HI a, a, a;
END
""",
                 ["t.fp:3:7: error[E3002]: '.HI' is only allowed on MUL"],
                 id='hi_on_add'),
    # GP4 2.X.8.Z DP3: floating-point data type modifiers only
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
DP3.U a, a, a;
END
""",
                 ["t.fp:3:5: error[E3002]: DP3 has no integer form ('.U')"],
                 id='dp3_unsigned'),
    # GP4 2.X.4.1: more than one modifier of a given type
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV.CC.CC1 a, a;
END
""",
                 ["t.fp:3:8: error[E3002]: more than one condition-code update modifier ('.CC' and '.CC1')"],
                 id='two_cc_modifiers'),
    # GP4 2.X.4.1 (a suffix and a stand-alone modifier of one type)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOVC.CC1 a, a;
END
""",
                 ["t.fp:3:6: error[E3002]: more than one condition-code update modifier (suffix 'C' and '.CC1')"],
                 id='glued_and_dot_cc_modifiers'),
    # GP4 Table X.15: R and H are the F modifier
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOVR.S a, a;
END
""",
                 ["t.fp:3:6: error[E3002]: more than one data type modifier (suffix 'R' and '.S')"],
                 id='precision_suffix_with_integer_type'),
    # GP4 Table X.14
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV.Q a, a;
END
""",
                 ["t.fp:3:5: error[E3002]: unknown instruction modifier '.Q'"],
                 id='unknown_modifier'),
    # GP4 2.X.8.Z TXF (no CUBE or SHADOW targets)
    pytest.param('t.fp', """!!NVfp4.0
TEMP c, coord;
TXF c, coord, texture[0], CUBE;
END
""",
                 ['t.fp:3:27: error[E5001]: TXF cannot fetch from CUBE textures'],
                 id='txf_on_cube'),
    # GP4 2.X.8.Z TXF
    pytest.param('t.fp', """!!NVfp4.0
TEMP c, coord;
TXF c, coord, texture[0], SHADOW2D;
END
""",
                 ['t.fp:3:27: error[E5001]: TXF cannot fetch from SHADOW2D textures'],
                 id='txf_on_shadow'),
    # GP4 2.X.4.4 (TXB/TXL/TXP have no coordinate left for SHADOWCUBE/SHADOWARRAY2D)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TXB a, a, texture[0], SHADOWCUBE;
END
""",
                 ['t.fp:3:23: error[E5001]: TXB cannot be used with SHADOWCUBE (no coordinate left for the reference value)'],
                 id='txb_on_shadowcube'),
    # GP4 2.X.4.4
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TXL a, a, texture[0], SHADOWARRAY2D;
END
""",
                 ['t.fp:3:23: error[E5001]: TXL cannot be used with SHADOWARRAY2D (no coordinate left for the reference value)'],
                 id='txl_on_shadowarray2d'),
    # GP4 2.X.4.4: offsets in [-8, 7]
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], 2D, (8, 0);
END
""",
                 ['t.fp:3:28: error[E5003]: texel offset 8 out of range [-8, 7]'],
                 id='texel_offset_too_large'),
    # GP4 2.X.4.4
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], 2D, (-9, 0);
END
""",
                 ['t.fp:3:28: error[E5003]: texel offset -9 out of range [-8, 7]'],
                 id='texel_offset_too_small'),
    # GP4 2.X.4.4
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], 1D, (1, 1);
END
""",
                 ['t.fp:3:31: error[E5003]: 1D has 1 dimension; offsets beyond it must be zero'],
                 id='texel_offset_in_unused_dimension'),
    # GP4 2.X.4.4: no offsets on cube maps
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], CUBE, (1, 0, 0);
END
""",
                 ['t.fp:3:30: error[E5003]: texel offsets are not allowed with cube map targets'],
                 id='texel_offset_on_cube'),
    # GP4 2.X.2 <texOffsetComp> ::= <optSign> <int>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], 2D, (1.5, 0);
END
""",
                 ['t.fp:3:28: error[E5003]: texel offsets must be integers'],
                 id='texel_offset_not_integer'),
    # GP4 2.X.4.4: one target per texture unit
    pytest.param('t.fp', """!!NVfp4.0
TEMP c, coord;
TEX c, coord, texture[0], 2D;
TEX c, coord, texture[0], ARRAY2D;
END
""",
                 ['t.fp:4:27: error[E5002]: texture unit 0 is used with target ARRAY2D and 2D'],
                 id='two_targets_on_one_unit'),
    # GP4 2.X.4.4 (MAX_TEXTURE_IMAGE_UNITS; xlate allows 0..31)
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[32], 2D;
END
""",
                 ['t.fp:3:19: error[E5004]: texture unit 32 out of range [0, 31]'],
                 id='texture_unit_out_of_range'),
    # GP4 Table X.18 (BUFFER only with TXF and TXQ); nv_dialects.md 12 item 9
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
TEX a, a, texture[0], BUFFER;
END
""",
                 ['t.fp:3:23: error[E5001]: the BUFFER target is only valid with TXF and TXQ, not TEX'],
                 id='buffer_target_on_tex'),
    # GP4 2.X.5: CAL to a label defined nowhere
    pytest.param('t.fp', """!!NVfp4.0
CAL foo;
END
""",
                 ["t.fp:2:5: error[E4001]: CAL to undefined label 'foo'"],
                 id='undefined_label'),
    # GP4 2.X.2 <instLabel> (a label names one subroutine)
    pytest.param('t.fp', """!!NVfp4.0
foo:
RET;
foo:
RET;
END
""",
                 ["t.fp:4:1: error[E4002]: label 'foo' is defined twice"],
                 id='duplicate_label'),
    # GP4 2.X.5: a block that contains an instruction label
    pytest.param('t.fp', """!!NVfp4.0
IF NE.x;
foo:
ENDIF;
CAL foo;
END
""",
                 ["t.fp:3:1: error[E4003]: label 'foo' inside an open IF block (opened at t.fp:2:1)"],
                 id='label_inside_if'),
    # GP4 2.X.5
    pytest.param('t.fp', """!!NVfp4.0
REP 2;
bar:
ENDREP;
END
""",
                 ["t.fp:3:1: error[E4003]: label 'bar' inside an open REP block (opened at t.fp:2:1)"],
                 id='label_inside_rep'),
    # GP4 2.X.5: a block terminated by an incorrect instruction
    pytest.param('t.fp', """!!NVfp4.0
ENDIF;
END
""",
                 ['t.fp:2:1: error[E4003]: ENDIF without a matching IF'],
                 id='endif_without_if'),
    # GP4 2.X.5
    pytest.param('t.fp', """!!NVfp4.0
IF NE.x;
ENDREP;
ENDIF;
END
""",
                 ['t.fp:3:1: error[E4003]: ENDREP without a matching REP (the innermost open block is IF)'],
                 id='endrep_without_rep'),
    # GP4 2.X.8.Z ELSE (one optional ELSE per IF)
    pytest.param('t.fp', """!!NVfp4.0
IF NE.x;
ELSE;
ELSE;
ENDIF;
END
""",
                 ['t.fp:4:1: error[E4003]: second ELSE for one IF'],
                 id='second_else'),
    # GP4 2.X.5: every block must be terminated
    pytest.param('t.fp', """!!NVfp4.0
TEMP t;
IF NAN.x;
MOV t, t;
END
""",
                 ['t.fp:3:1: error[E4003]: IF block is never closed (missing ENDIF)'],
                 id='if_never_closed'),
    # GP4 2.X.5
    pytest.param('t.fp', """!!NVfp4.0
REP 2;
END
""",
                 ['t.fp:2:1: error[E4003]: REP block is never closed (missing ENDREP)'],
                 id='rep_never_closed'),
    # GP4 2.X.5: BRK/CONT outside a REP block
    pytest.param('t.fp', """!!NVfp4.0
BRK;
END
""",
                 ['t.fp:2:1: error[E4004]: BRK outside a REP block'],
                 id='brk_outside_rep'),
    # GP4 2.X.5
    pytest.param('t.fp', """!!NVfp4.0
TEMP t;
CONT (NE.x);
END
""",
                 ['t.fp:3:1: error[E4004]: CONT outside a REP block'],
                 id='cont_outside_rep'),
    # GP4 2.X.5: a count-less REP needs a BRK at its level or a RET
    pytest.param('t.fp', """!!NVfp4.0
TEMP acc;
REP;
ADD acc, acc, acc;
ENDREP;
END
""",
                 ['t.fp:3:1: error[E4006]: REP without a count never ends: it contains no BRK at its level and no RET'],
                 id='rep_without_count_or_exit'),
    # GP4 2.X.5 (the BRK must be at the REP's own nesting level)
    pytest.param('t.fp', """!!NVfp4.0
REP;
REP 2;
BRK;
ENDREP;
ENDREP;
END
""",
                 ['t.fp:2:1: error[E4006]: REP without a count never ends: it contains no BRK at its level and no RET'],
                 id='rep_whose_only_brk_is_nested'),
    # GP4 2.X.5: MAX_PROGRAM_LOOP_DEPTH_NV (4)
    pytest.param('t.fp', "!!NVfp4.0\n" + "REP 1;\n" * 5 + "ENDREP;\n" * 5 + "END\n",
                 ['t.fp:6:1: error[E4005]: REP nested deeper than 4'],
                 id='rep_nested_too_deep'),
    # GP4 2.X.5: MAX_PROGRAM_IF_DEPTH_NV (48)
    pytest.param('t.fp', "!!NVfp4.0\n" + "IF NE.x;\n" * 49 + "ENDIF;\n" * 49 + "END\n",
                 ['t.fp:50:1: error[E4005]: IF nested deeper than 48'],
                 id='if_nested_too_deep'),
    # GP4 2.X.2 <IFop_instruction> needs a <ccTest>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
IF a;
ENDIF;
END
""",
                 ["t.fp:3:4: error[E3007]: expected a condition-code test such as 'NE.x' or '(GT.x)'"],
                 id='if_without_condition'),
    # GP4 2.X.2 <ccMaskRule>
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a (XX.x), a;
END
""",
                 ["t.fp:3:8: error[E3007]: unknown condition-code rule 'XX'"],
                 id='unknown_condition_rule'),
    # GP4 2.X.3.7: only CC0 and CC1 exist
    pytest.param('t.fp', """!!NVfp4.0
TEMP a;
MOV a (EQ2.x), a;
END
""",
                 ["t.fp:3:8: error[E3007]: unknown condition-code rule 'EQ2'"],
                 id='condition_register_2'),

]


@pytest.mark.parametrize("name, src, expected", CASES)
def test_load_error(name, src, expected):
    got = diagnostics(src, name)
    check(got, expected)
    for line in got:      # every code is registered (``xlate explain`` knows it)
        assert line.split("[", 1)[1].split("]", 1)[0] in CODES


def test_scalar_constants_need_no_selector():
    # GP4 2.X.2 <instOperandS> / nv_dialects.md 4.2: "except scalar constants"
    parse_program("!!NVfp4.0\nTEMP a;\nRCP a, 2.0;\nPOW a, 2, a.x;\nEND\n", "t.fp")


def test_if_nesting_at_the_limit_loads():
    # GP4 2.X.5: an IF fails only when nested inside MAX_PROGRAM_IF_DEPTH_NV (48) or more blocks
    parse_program("!!NVfp4.0\n" + "IF NE.x;\n" * 48 + "ENDIF;\n" * 48 + "END\n", "t.fp")
    parse_program("!!NVfp4.0\n" + "REP 1;\n" * 4 + "ENDREP;\n" * 4 + "END\n", "t.fp")


def test_rep_without_count_exits_through_nested_ret_or_conditional_brk():
    # GP4 2.X.5: "a BRK instruction at the current nesting level or a RET instruction at any
    # nesting level" (IF blocks do not count as REP nesting levels)
    parse_program("!!NVfp4.0\nREP;\nIF NE.x;\nREP 2;\nRET;\nENDREP;\nENDIF;\nENDREP;\nEND\n",
                  "t.fp")
    parse_program("!!NVfp4.0\nREP;\nIF NE.x;\nBRK;\nENDIF;\nENDREP;\nEND\n", "t.fp")
    parse_program("!!NVfp4.0\nREP;\nBRK (GT.x);\nENDREP;\nEND\n", "t.fp")


def test_reserved_words_depend_on_the_program_type():
    # GP4 2.X.2: "fragment" is reserved for fragment programs only, "vertex" for vertex and
    # geometry programs, "primitive" for fragment and geometry programs
    parse_program("!!NVvp4.0\nTEMP fragment, primitive;\nMOV fragment, vertex.position;\n"
                  "MOV result.position, fragment;\nEND\n", "t.vp")
    parse_program("!!NVfp4.0\nPARAM vertex = program.local[0];\nMOV result.color, vertex;\n"
                  "END\n", "t.fp")
    assert diagnostics("!!NVfp4.0\nTEMP primitive;\nEND\n", "t.fp") == [
        "t.fp:2:6: error[E2002]: 'primitive' is a reserved word"]
    assert diagnostics("!!NVgp4.0\nPRIMITIVE_IN POINTS;\nPRIMITIVE_OUT POINTS;\nVERTICES_OUT 1;\n"
                       "TEMP vertex;\nEND\n", "t.gp") == [
        "t.gp:5:6: error[E2002]: 'vertex' is a reserved word"]


def test_legal_interpolation_and_array_forms_load():
    # FP4 issue 1 declares "CENTROID NOPERSPECTIVE ATTRIB attribs[3] = {...}"; the same
    # modifiers on one attribute twice are no conflict (FP4 2.X.3.1)
    prog = parse_program("!!NVfp4.0\nCENTROID NOPERSPECTIVE ATTRIB a[3] = { fragment.attrib[0..2] };\n"
                         "NOPERSPECTIVE CENTROID ATTRIB b = fragment.attrib[1];\n"
                         "FLAT ATTRIB c = fragment.color;\nFLAT ATTRIB d = fragment.color.secondary;\n"
                         "END\n", "t.fp")
    assert prog.registers["a"].interpolation == "CENTROID NOPERSPECTIVE"
    assert prog.registers["b"].interpolation == "CENTROID NOPERSPECTIVE"
    # GP4 2.X.3.5: "result.clip[1], result.clip[2]  # valid"; ranges continue a list
    parse_program("!!NVvp4.0\nOUTPUT o[] = { result.clip[1], result.clip[2], result.clip[3..4] };\n"
                  "END\n", "t.vp")
    # GP4 2.X.3.3: relative addressing of two arrays is fine when they share no binding, and
    # one of two overlapping arrays may be addressed relatively; constants may repeat
    parse_program("!!NVvp4.0\nATTRIB a[] = { vertex.attrib[0..3] };\n"
                  "ATTRIB b[] = { vertex.attrib[2..5] };\nPARAM k[] = { {1, 2}, {1, 2} };\n"
                  "INT TEMP i;\nTEMP t;\nMOV t, a[i.x];\nMOV t, b[1];\nMOV t, k[i.x];\nEND\n",
                  "t.vp")


# ---------------------------------------------------------------------------------------------
# nv_dialects.md 11.6-11.9: the worked examples and their load-error variants
# ---------------------------------------------------------------------------------------------


def _variant(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


VARIANTS = [
    # 11.6 VP4-A: "ADD acc, acc, table[i.x - 1];" (negative offset; GP4 2.X.4.2 [0, n-1])
    pytest.param("t.vp", _variant(VP4_A, "table[i.x];", "table[i.x - 1];"),
                 ["t.vp:16:28: error[E2006]: relative offset -1 out of range [0, 7] for 'table' "
                  "(GP4 2.X.4.2)"], id="vp4a_negative_offset"),
    # 11.6 VP4-A: "REP; ... ENDREP; with no BRK/RET inside" (GP4 2.X.5)
    pytest.param("t.vp", _variant(_variant(VP4_A, "REP    ctl.y;", "REP;"),
                                  "    BRK    (GT.x);\n", ""),
                 ["t.vp:14:3: error[E4006]: REP without a count never ends: it contains no BRK at "
                  "its level and no RET"], id="vp4a_rep_without_exit"),
    # 11.6 VP4-A: "ADD.S acc, acc, 1; where acc is declared FLOAT TEMP" (GP4 2.X.3.1)
    pytest.param("t.vp", _variant(_variant(VP4_A, "TEMP acc, t;", "FLOAT TEMP acc, t;"),
                                  "  ENDREP;\n", "  ENDREP;\n  ADD.S acc, acc, 1;\n"),
                 ["t.vp:21:9: error[E3006]: 'acc' is declared FLOAT but the instruction uses it "
                  "as INT (use .NTC to reinterpret the bits)"], id="vp4a_float_temp_int_add"),
    # 11.6 VP4-A: "DP3.S t, acc, acc;" (GP4 2.X.8.Z DP3: float data type modifiers only)
    pytest.param("t.vp", _variant(VP4_A, "  ENDREP;\n", "  ENDREP;\n  DP3.S t, acc, acc;\n"),
                 ["t.vp:21:7: error[E3002]: DP3 has no integer form ('.S')"], id="vp4a_dp3_s"),
    # 11.7 FP4-A: "INT ATTRIB lod = fragment.attrib[1]; without FLAT" (FP4 2.X.3.1)
    pytest.param("t.fp", _variant(FP4_A, "FLAT INT ATTRIB", "INT ATTRIB"),
                 ["t.fp:2:12: error[E2008]: integer fragment attributes must be declared FLAT "
                  "(FP4 2.X.3.1)"], id="fp4a_int_attrib_without_flat"),
    # 11.7 FP4-A: "TXF c, coord, texture[0], CUBE;" (GP4 2.X.8.Z TXF)
    pytest.param("t.fp", _variant(FP4_A, "texture[0], 2D;\nSLT", "texture[0], CUBE;\nSLT"),
                 ["t.fp:13:30: error[E5001]: TXF cannot fetch from CUBE textures"],
                 id="fp4a_txf_cube"),
    # 11.7 FP4-A: "using texture[0] with both 2D and ARRAY2D" (GP4 2.X.4.4)
    pytest.param("t.fp", _variant(FP4_A, "texture[0], 2D;\nSLT", "texture[0], ARRAY2D;\nSLT"),
                 ["t.fp:13:30: error[E5002]: texture unit 0 is used with target ARRAY2D and 2D"],
                 id="fp4a_2d_and_array2d"),
    # 11.7 FP4-B: "CONT (NE.x); outside the REP" (GP4 2.X.5)
    pytest.param("t.fp", _variant(_variant(FP4_B, "  CONT     (NE.x);                      # odd i: "
                                                  "next iteration\n", ""),
                                  "ENDREP;\n", "ENDREP;\nCONT (NE.x);\n"),
                 ["t.fp:14:1: error[E4004]: CONT outside a REP block"], id="fp4b_cont_outside_rep"),
    # 11.7 FP4-B: "IF NAN.x; without a matching ENDIF" (GP4 2.X.5)
    pytest.param("t.fp", _variant(FP4_B, "  MOV    acc, {1, 0, 1, 1};\nENDIF;\n",
                                  "  MOV    acc, {1, 0, 1, 1};\n"),
                 ["t.fp:16:1: error[E4003]: IF block is never closed (missing ENDIF)"],
                 id="fp4b_if_without_endif"),
    # 11.7 FP4-B: "MOV.SAT.S i.x, 1;" (GP4 2.X.4.1: clamping needs a float result)
    pytest.param("t.fp", _variant(FP4_B, "MOV.S    i.x, 0;\n", "MOV.S    i.x, 0;\nMOV.SAT.S i.x, 1;\n"),
                 ["t.fp:9:5: error[E3002]: saturation is only allowed on float results (MOV.S)"],
                 id="fp4b_sat_on_integer"),
    # 11.8 GP4-A: "missing PRIMITIVE_OUT" (GEO4 2.14.6.2)
    pytest.param("t.gp", _variant(GP4_A, "PRIMITIVE_OUT TRIANGLE_STRIP;\n", ""),
                 ["t.gp:1:1: error[E6001]: geometry program without PRIMITIVE_OUT"],
                 id="gp4a_missing_primitive_out"),
    # 11.8 GP4-A: "two VERTICES_OUT lines" (GEO4 2.14.6.4)
    pytest.param("t.gp", _variant(GP4_A, "VERTICES_OUT 6;\n", "VERTICES_OUT 6;\nVERTICES_OUT 6;\n"),
                 ["t.gp:5:1: error[E6002]: VERTICES_OUT declared twice"],
                 id="gp4a_two_vertices_out"),
    # 11.8 GP4-A: "MOV result.position, vertex[i.x].position;" (GEO4 2.X.3.2)
    pytest.param("t.gp", _variant(GP4_A, "MOV    result.position, vpos[i.x];",
                                  "MOV    result.position, vertex[i.x].position;"),
                 ["t.gp:11:34: error[E6003]: the vertex number of a binding must be a constant; "
                  "declare a per-vertex ATTRIB variable to index it"],
                 id="gp4a_variable_vertex_number"),
    # 11.9 PBO: "DP4 p.x, program.buffer[0][3], vertex.position;" (GP4 2.X.3.6)
    pytest.param("t.vp", _variant(PBO, "DP4    p.x, bones[b.x], vertex.position;",
                                  "DP4 p.x, program.buffer[0][3], vertex.position;"),
                 ["t.vp:8:10: error[E2004]: 'program.buffer' can only be used in a BUFFER "
                  "declaration, not in an instruction"], id="pbo_buffer_binding_in_instruction"),
]


@pytest.mark.parametrize("src", [VP4_A, VP4_B, FP4_A, FP4_B, GP4_A, GP4_B, PBO],
                         ids=["VP4-A", "VP4-B", "FP4-A", "FP4-B", "GP4-A", "GP4-B", "PBO"])
def test_worked_example_loads(src):
    prog = parse_program(src, "example")
    assert prog.diagnostics == []


@pytest.mark.parametrize("name, src, expected", VARIANTS)
def test_worked_example_load_error_variant(name, src, expected):
    check(diagnostics(src, name), expected)


# ---------------------------------------------------------------------------------------------
# every error of a file, in source order; caret rendering
# ---------------------------------------------------------------------------------------------
def test_all_errors_are_reported_in_source_order():
    # GP4 2.X.2/2.X.3/2.X.4/2.X.5: each of these lines alone makes the program fail to load;
    # a syntax error (line 6) does not hide the semantic errors of the other statements
    src = """!!NVfp4.0
TEMP a, a;
MOV a, b;
ADD a, a;
MOV a.yx, a;
MOV a, a,, a;
FOO a, a;
TXF a, a, texture[0], CUBE;
IF NE.x;
MOV a, a;
END
"""
    check(diagnostics(src, "multi.fp"), [
        "multi.fp:2:9: error[E2001]: 'a' is already declared",
        "multi.fp:3:8: error[E2003]: undeclared name 'b'",
        "multi.fp:4:1: error[E3003]: ADD takes a destination and 2 source operands; found 2 operands",
        "multi.fp:5:7: error[E1006]: invalid write mask '.yx' (components in order, no repeats, no "
        "mixing xyzw with rgba)",
        "multi.fp:6:10: error[E1002]: unexpected ','...",
        "multi.fp:7:1: error[E3001]: unknown opcode 'FOO'",
        "multi.fp:8:23: error[E5001]: TXF cannot fetch from CUBE textures",
        "multi.fp:9:1: error[E4003]: IF block is never closed (missing ENDIF)",
    ])


def test_errors_found_at_the_end_are_sorted_into_source_order():
    # GEO4 2.14.6.2 (checked at END, reported at the header), GEO4 2.X.3.2, GP4 2.X.3.6, 2.X.5
    src = """!!NVgp4.0
PRIMITIVE_IN LINES;
VERTICES_OUT 2;
TEMP t;
MOV result.position, vertex[2].position;
MOV t, program.buffer[0][1];
CAL nowhere;
BRK;
END
"""
    assert diagnostics(src, "multi.gp") == [
        "multi.gp:1:1: error[E6001]: geometry program without PRIMITIVE_OUT",
        "multi.gp:5:29: error[E6003]: vertex 2 does not exist: the input primitive has 2 vertices",
        "multi.gp:6:8: error[E2004]: 'program.buffer' can only be used in a BUFFER declaration, "
        "not in an instruction",
        "multi.gp:7:5: error[E4001]: CAL to undefined label 'nowhere'",
        "multi.gp:8:1: error[E4004]: BRK outside a REP block",
    ]


def test_caret_rendering():
    # GP4 2.X.3 (declared twice, undeclared binding member) and Table X.13 (unknown opcode)
    src = "!!NVfp4.0\nTEMP a;\nTEMP a;\nMOV a, fragment.colour;\nFOO a, a;\nEND\n"
    with pytest.raises(XlateError) as info:
        parse_program(src, "t.fp")
    assert info.value.render() == "\n".join([
        "t.fp:3:6: error[E2001]: 'a' is already declared",
        "    TEMP a;",
        "         ^",
        "    note: previous declaration at t.fp:2:6",
        "t.fp:4:17: error[E2004]: unknown binding member 'colour' after 'fragment' (expected one "
        "of: attrib, clip, color, facing, fogcoord, position, texcoord)",
        "    MOV a, fragment.colour;",
        "                    ^~~~~~",
        "t.fp:5:1: error[E3001]: unknown opcode 'FOO'",
        "    FOO a, a;",
        "    ^~~",
    ])
    first = info.value.diagnostics[1]
    assert first.render(src) == "\n".join(info.value.render().splitlines()[4:7])


def test_positions_with_crlf_and_bare_cr_line_ends():
    # GP4 2.X.2: newlines and carriage returns are whitespace and end comments
    for eol in ("\r\n", "\r"):
        src = eol.join(["!!NVfp4.0", "TEMP a; # comment", "MOV a, b;", "END", ""])
        assert diagnostics(src, "t.fp") == ["t.fp:3:8: error[E2003]: undeclared name 'b'"]


# ---------------------------------------------------------------------------------------------
# garbage in: only XlateError comes out
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src, expected", [
    # GP4 2.X.2: a program starts with its header
    pytest.param("", ["t.fp:1:1: error[E1001]: not a program: it does not start with a header "
                      "such as '!!NVfp4.0'"], id="empty"),
    pytest.param("END\n", ["t.fp:1:1: error[E1001]: not a program: it does not start with a "
                           "header such as '!!NVfp4.0'"], id="no_header"),
    pytest.param("!!NVfp4.0", ["t.fp:1:10: error[E1004]: program has no END statement"],
                 id="only_header"),
    pytest.param("!!NVfp4.0\n", ["t.fp:2:1: error[E1004]: program has no END statement"],
                 id="only_header_and_newline"),
    pytest.param("\n!!NVfp4.0\nEND\n", ["t.fp:1:1: error[E1001]: the program header must be "
                                        "the first characters of the file (no leading "
                                        "whitespace)"], id="header_after_newline"),
    # GP4 2.X.2: "any tokens or characters not defined in this specification"
    pytest.param("!!NVfp4.0\nTEMP a;\nMOV a,\x00 a;\nEND\n",
                 ["t.fp:3:7: error[E1003]: NUL character in program text"], id="nul_byte"),
    pytest.param("!!NVfp4.0\nTEMP \u00e9;\nEND\n",
                 ["t.fp:2:6: error[E1003]: unexpected character '\u00e9'"], id="non_ascii"),
    # GP4 2.X.5: a block must be terminated
    pytest.param("!!NVfp4.0\nREP 2;\nIF NE.x;\nEND\n",
                 ["t.fp:2:1: error[E4003]: REP block is never closed (missing ENDREP)",
                  "t.fp:3:1: error[E4003]: IF block is never closed (missing ENDIF)"],
                 id="unterminated_blocks"),
    # GP4 2.X.2 <program> ends with END; the last statement also lacks its ';'
    pytest.param("!!NVfp4.0\nMOV result.color, fragment.color",
                 ["t.fp:2:33: error[E1004]: program has no END statement",
                  "t.fp:2:33: error[E1002]: unexpected end of program (missing ';'?)..."],
                 id="missing_end_and_semicolon"),
])
def test_malformed_input(src, expected):
    check(diagnostics(src, "t.fp"), expected)


def test_one_line_program_and_text_after_end():
    # GP4 2.X.2: whitespace (newlines included) only separates tokens
    prog = parse_program("!!NVfp4.0 TEMP a; MOV a, fragment.color; MOV result.color, a; END",
                         "t.fp")
    assert [i.op for i in prog.instructions] == ["MOV", "MOV"]
    # nv_dialects.md 12 item 15: text after END is not specified -> ignored with warning E1005
    prog = parse_program("!!NVfp4.0\nMOV result.color, fragment.color;\nEND\n"
                         "# a comment is fine\ngarbage here;\n", "t.fp")
    assert [d.header() for d in prog.diagnostics] == [
        "t.fp:5:1: warning[E1005]: text after END is ignored"]
    assert [i.op for i in prog.instructions] == ["MOV"]


def _mutations(seed: int, count: int):
    rng = random.Random(seed)
    bases = [VP4_A, VP4_B, FP4_A, FP4_B, GP4_A, GP4_B, PBO]
    pieces = list(";:,.[]{}()|+-=#\n \tx019AZaz_$!@\x00\u00e9") + [
        "END", "TEMP", "REP", "IF", "ENDIF", "ELSE", "main:", "..", "0x", "1e", "CC", "vertex[",
        "program.buffer[0]", "texture[0]", "2D", "{1}", "!!NVfp4.0", "\ufeff", "(NE.x)", "9999999999"]
    for _ in range(count):
        text = list(rng.choice(bases))
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(len(text))
            roll = rng.random()
            if roll < 0.4:
                del text[pos:pos + rng.randint(1, 8)]
            elif roll < 0.8:
                text.insert(pos, rng.choice(pieces))
            else:
                other = rng.randrange(len(text))
                text[pos], text[other] = text[other], text[pos]
        yield "".join(text)
    for _ in range(count // 4):
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(0, 120))).decode("latin-1")
        yield junk
        yield rng.choice(["!!NVvp4.0", "!!NVfp4.0", "!!NVgp4.0"]) + junk


def test_garbage_never_raises_anything_but_xlate_error():
    # GP4 2.X.2: INVALID_OPERATION for any program that is not syntactically correct - never
    # a crash.  Every diagnostic must also render.
    for src in _mutations(seed=4, count=400):
        try:
            parse_program(src, "fuzz.fp")
        except XlateError as err:
            assert err.diagnostics and any(d.is_error for d in err.diagnostics)
            for d in err.diagnostics:
                assert d.code in CODES
                assert d.span is None or (d.span.line >= 1 and d.span.col >= 1)
            err.render()
