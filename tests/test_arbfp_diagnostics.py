"""!!ARBfp1.0 load-time errors (ARBFP 3.11.2-3.11.6, FPO, FP2, ARBFPS; nv_dialects.md 13): every
error is a diagnostic with code, line, column (and caret); every error of a file is reported;
never a traceback."""
from __future__ import annotations

import pytest

import xlate
from xlate.diagnostics import XlateError


def headers(text: str) -> list[str]:
    try:
        prog = xlate.parse(text, filename="t.fp")
    except XlateError as e:
        return [d.header() for d in e.diagnostics]
    return [d.header() for d in prog.diagnostics]


CASES = [
    pytest.param('!!ARBfp1.0\nMOV result.color, fragment.color\nEND\n',
                 ["t.fp:2:33: error[E1002]: unexpected end of program (missing ';'?)"],
                 id='missing_semicolon'),
    pytest.param('!!ARBfp1.0\nMOV result.color, fragment.color;\n',
                 ['t.fp:3:1: error[E1004]: program has no END statement'],
                 id='missing_end'),
    pytest.param('!!ARBfp1.0\nTEMP a;\nOPTION NV_fragment_program;\nEND\n',
                 ['t.fp:3:1: error[E2011]: OPTION statements must come before every other statement (ARBFP 3.11.4.5)'],
                 id='option_after_statement'),
    pytest.param('!!ARBfp1.0\nOPTION NV_vertex_program2;\nEND\n',
                 ["t.fp:2:8: error[E2011]: unknown option 'NV_vertex_program2' for ARB fragment programs (allowed: ARB_draw_buffers, ARB_fog_exp, ARB_fog_exp2, ARB_fog_linear, ARB_fragment_coord_origin_upper_left, ARB_fragment_coord_pixel_center_integer, ARB_fragment_program_shadow, ARB_precision_hint_fastest, ARB_precision_hint_nicest, ATI_draw_buffers, MESA_texture_array, NV_fragment_program, NV_fragment_program2)"],
                 id='unknown_option'),
    pytest.param('!!ARBfp1.0\nOPTION ARB_fog_exp;\nOPTION ARB_fog_linear;\nEND\n',
                 ["t.fp:3:8: error[E2011]: option 'ARB_fog_linear' conflicts with 'ARB_fog_exp': only one fog option may be given (ARBFP 3.11.4.5.1)"],
                 id='two_fog_options'),
    pytest.param('!!ARBfp1.0\nOPTION ARB_precision_hint_fastest;\nOPTION ARB_precision_hint_nicest;\nEND\n',
                 ['t.fp:3:8: error[E2011]: both precision hints given (ARBFP 3.11.4.5.2)'],
                 id='both_precision_hints'),
    pytest.param('!!ARBfp1.0\nTEMP a, a;\nPARAM p = {1};\nATTRIB p = fragment.color;\nEND\n',
                 ["t.fp:2:9: error[E2001]: 'a' is already declared",
                  "t.fp:4:8: error[E2001]: 'p' is already declared"],
                 id='duplicate_declaration'),
    pytest.param('!!ARBfp1.0\nTEMP TEX;\nTEMP fragment;\nTEMP MOV_SAT;\nEND\n',
                 ["t.fp:2:6: error[E2002]: 'TEX' is a reserved word",
                  "t.fp:3:6: error[E2002]: 'fragment' is a reserved word",
                  "t.fp:4:6: error[E2002]: 'MOV_SAT' is a reserved word"],
                 id='reserved_words'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nTEMP DDX;\nTEMP MOVRC_SAT;\nTEMP SHORT;\nEND\n',
                 ["t.fp:3:6: error[E2002]: 'DDX' is a reserved word",
                  "t.fp:4:6: error[E2002]: 'MOVRC_SAT' is a reserved word",
                  "t.fp:5:6: error[E2002]: 'SHORT' is a reserved word"],
                 id='reserved_words_with_option'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP A0;\nEND\n',
                 ["t.fp:3:6: error[E2002]: 'A0' is the predefined loop index register of NV_fragment_program2 and cannot be declared"],
                 id='a0_reserved_with_option2'),
    pytest.param('!!ARBfp1.0\nMOV a, fragment.color;\nALIAS b = c;\nEND\n',
                 ["t.fp:2:5: error[E2003]: undeclared name 'a'",
                  "t.fp:3:11: error[E2003]: ALIAS of undeclared name 'c'"],
                 id='undeclared'),
    pytest.param('!!ARBfp1.0\nPARAM p[2] = { program.local[0..2] };\nPARAM q[] = { program.local[3..1] };\nPARAM r = program.local[0..1];\nPARAM s[] = program.local[0];\nEND\n',
                 ["t.fp:2:7: error[E2005]: 'p' is declared with 2 elements but bound to 3",
                  't.fp:3:29: error[E2006]: empty range [3..1]',
                  "t.fp:4:7: error[E2005]: PARAM 'r' is not an array but its binding has 2 elements; declare it as 'r[]'",
                  "t.fp:5:7: error[E1002]: the array 's' needs a braced initializer list: 's[] = { ... }'"],
                 id='param_arrays'),
    pytest.param('!!ARBfp1.0\nPARAM p[2] = { program.local[0..1] };\nTEMP t;\nMOV result.color, p[2];\nMOV result.color, p;\nMOV result.color, t[0];\nEND\n',
                 ["t.fp:4:21: error[E2006]: index 2 out of range for 'p' (2 elements)",
                  "t.fp:5:19: error[E2007]: array 'p' must be indexed",
                  "t.fp:6:21: error[E2007]: 't' is not an array and cannot be indexed"],
                 id='array_use'),
    pytest.param('!!ARBfp1.0\nPARAM p[2] = { program.local[0..1] };\nTEMP t;\nMOV result.color, p[t.x];\nEND\n',
                 ["t.fp:4:21: error[E2010]: 'p' can only be indexed with a constant (ARBFP 3.11.3.2: program parameter arrays use absolute addressing)"],
                 id='relative_addressing'),
    pytest.param('!!ARBfp1.0\nADDRESS a0;\nTEMP t[4];\nATTRIB a[] = { fragment.texcoord[0..1] };\nDEFINE x = 1;\nEND\n',
                 ['t.fp:2:1: error[E1002]: address registers cannot be declared in fragment programs (FP2 predefines A0 as the LOOP index)',
                  't.fp:3:6: error[E2007]: TEMP arrays do not exist in ARB fragment programs',
                  't.fp:4:8: error[E2007]: ATTRIB arrays do not exist in ARB fragment programs',
                  't.fp:5:1: error[E1002]: DEFINE exists only in !!FP1.0 programs; declare a PARAM'],
                 id='no_other_declarations'),
    pytest.param('!!ARBfp1.0\nSHORT TEMP a;\nEND\n',
                 ["t.fp:2:1: error[E2008]: the size modifier 'SHORT' requires OPTION NV_fragment_program (FPO 3.11.3.3)"],
                 id='size_modifiers'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nSHORT PARAM a = {1};\nLONG SHORT TEMP b;\nINT TEMP c;\nFLAT ATTRIB d = fragment.color;\nEND\n',
                 ["t.fp:3:1: error[E2008]: 'SHORT' only applies to TEMP and OUTPUT declarations",
                  't.fp:4:6: error[E2008]: more than one size modifier',
                  "t.fp:5:1: error[E2008]: 'INT' is not a declaration modifier of ARB fragment programs",
                  "t.fp:6:1: error[E2008]: 'FLAT' is not a declaration modifier of ARB fragment programs"],
                 id='size_modifiers_with_option'),
    pytest.param('!!ARBfp1.0\nMOV result.color, fragment.texcoord[8];\nMOV result.color, fragment.facing;\nMOV result.color, fragment.colour;\nMOV result.color, vertex.position;\nMOV result.color[1], fragment.color;\nMOV result.color.primary, fragment.color;\nMOV result.position, fragment.color;\nEND\n',
                 ['t.fp:2:37: error[E2006]: binding index 8 out of range [0, 7]',
                  't.fp:3:28: error[E2004]: fragment.facing requires OPTION NV_fragment_program2 (FP2 3.11.3.1)',
                  "t.fp:4:28: error[E2004]: unknown binding member 'colour' after 'fragment' (expected one of: color, fogcoord, position, texcoord)",
                  "t.fp:5:19: error[E2003]: undeclared name 'vertex'",
                  "t.fp:6:18: error[E2004]: result.color[n] needs 'OPTION ARB_draw_buffers;' (or ATI_draw_buffers)",
                  "t.fp:7:18: error[E2004]: unknown binding member 'primary' after 'result.color[0]'",
                  "t.fp:8:12: error[E2004]: unknown binding member 'position' after 'result' (expected one of: color, depth)"],
                 id='bindings'),
    pytest.param('!!ARBfp1.0\nMOV result.color, state.texgen[0].eye.s;\nMOV result.color, state.matrix.mvp;\nMOV result.color, state.light[8].diffuse;\nMOV result.color, program.local[1024];\nMOV result.color, program.env[256];\nMOV result.color, state.clip[0].plane;\nMOV result.color, state.matrix.program.row[0];\nEND\n',
                 ["t.fp:2:25: error[E2004]: unknown binding member 'texgen' after 'state' (expected one of: depth, fog, light, lightmodel, lightprod, material, matrix, texenv)",
                  't.fp:3:19: error[E2004]: a whole matrix can only be bound by a PARAM array; use .row[n] in instructions',
                  't.fp:4:31: error[E2006]: binding index 8 out of range [0, 7]',
                  't.fp:5:33: error[E2006]: binding index 1024 out of range [0, 1023]',
                  't.fp:6:31: error[E2006]: binding index 256 out of range [0, 255]',
                  "t.fp:7:25: error[E2004]: unknown binding member 'clip' after 'state' (expected one of: depth, fog, light, lightmodel, lightprod, material, matrix, texenv)",
                  "t.fp:8:19: error[E2004]: 'state.matrix.program.row' needs an index"],
                 id='state_bindings'),
    pytest.param('!!ARBfp1.0\nMOV result.color, fragment.color.xy;\nMOV result.color.xg, fragment.color;\nMOV result.color.yx, fragment.color;\nMOV result.color, fragment.color.xyzr;\nMOV result.color, fragment.color.q;\nEND\n',
                 ["t.fp:2:34: error[E1006]: swizzle '.xy' must have 1 or 4 components",
                  "t.fp:3:18: error[E1006]: invalid write mask '.xg' (components in order, no repeats, no mixing xyzw with rgba)",
                  "t.fp:4:18: error[E1006]: invalid write mask '.yx' (components in order, no repeats, no mixing xyzw with rgba)",
                  "t.fp:5:34: error[E1006]: invalid swizzle '.xyzr'",
                  "t.fp:6:34: error[E2004]: unknown binding member 'q' after 'fragment.color'"],
                 id='swizzles_and_masks'),
    pytest.param('!!ARBfp1.0\nRCP result.color, fragment.color;\nRCP result.color, 2.0;\nRCP result.color, {2.0};\nPOW result.color, fragment.color.x, 2;\nCOS result.color, 3.14159;\nEND\n',
                 ["t.fp:2:19: error[E3004]: scalar operand 'fragment.color' needs a component selector (for example '.x')",
                  "t.fp:3:19: error[E3004]: the scalar constant '2.0' used as a scalar operand needs a component selector in ARB_fragment_program ('2.0.x'; ARBFP 3.11.2 <scalarSrcReg>, lifted by OPTION NV_fragment_program)",
                  "t.fp:4:19: error[E3004]: a constant vector used as a scalar operand needs a component selector (for example '{1, 2}.x')",
                  "t.fp:5:37: error[E3004]: the scalar constant '2' used as a scalar operand needs a component selector in ARB_fragment_program ('2.x'; ARBFP 3.11.2 <scalarSrcReg>, lifted by OPTION NV_fragment_program)",
                  "t.fp:6:19: error[E3004]: the scalar constant '3.14159' used as a scalar operand needs a component selector in ARB_fragment_program ('3.14159.x'; ARBFP 3.11.2 <scalarSrcReg>, lifted by OPTION NV_fragment_program)"],
                 id='scalar_operands'),
    pytest.param('!!ARBfp1.0\nMOVC result.color, fragment.color;\nMOV result.color (GT), fragment.color;\nKIL GT.x;\nMOV result.color, |fragment.color|;\nMOV_SSAT result.color, fragment.color;\nMOVX result.color, fragment.color;\nDDX result.color, fragment.color;\nMOVC CC, fragment.color;\nEND\n',
                 ["t.fp:2:1: error[E3002]: the condition-code update suffix 'C' on MOV requires OPTION NV_fragment_program",
                  't.fp:3:19: error[E3005]: condition-code write masks require OPTION NV_fragment_program',
                  't.fp:4:5: error[E3004]: KIL with a condition-code test requires OPTION NV_fragment_program',
                  "t.fp:5:20: error[E3004]: absolute value operands '|x|' require OPTION NV_fragment_program",
                  "t.fp:6:1: error[E3002]: '_SSAT' requires OPTION NV_fragment_program2",
                  "t.fp:7:1: error[E3002]: the precision suffix 'X' on MOV requires OPTION NV_fragment_program",
                  "t.fp:8:1: error[E3001]: 'DDX' requires OPTION NV_fragment_program",
                  "t.fp:9:1: error[E3002]: the condition-code update suffix 'C' on MOV requires OPTION NV_fragment_program"],
                 id='nv_features_without_option'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nCOSX result.color, fragment.color.x;\nCMPC result.color, fragment.color, fragment.color, fragment.color;\nPK2HC result.color, fragment.color;\nMOV_SSAT result.color, fragment.color;\nKIL_SAT fragment.color;\nADDC_SATR result.color, fragment.color, fragment.color;\nXPDR result.color, fragment.color, fragment.color;\nMOVRR result.color, fragment.color;\nEND\n',
                 ["t.fp:3:1: error[E3002]: COS does not take the precision suffix 'X' (FPO Table X.5)",
                  "t.fp:4:1: error[E3002]: the condition-code update suffix 'C' on CMP requires OPTION NV_fragment_program2",
                  "t.fp:5:1: error[E3002]: PK2H does not take the condition-code update suffix 'C' (FPO Table X.5)",
                  "t.fp:6:1: error[E3002]: '_SSAT' requires OPTION NV_fragment_program2",
                  "t.fp:7:1: error[E3002]: KIL does not take the saturation suffix '_SAT' (FPO Table X.5)",
                  "t.fp:8:1: error[E3001]: 'ADDC_SATR': the suffixes of ADD must appear in the order R/H/X, then C, then _SAT/_SSAT, each at most once",
                  "t.fp:9:1: error[E3002]: the precision suffix 'R' on XPD requires OPTION NV_fragment_program2",
                  "t.fp:10:1: error[E3001]: 'MOVRR': the suffixes of MOV must appear in the order R/H/X, then C, then _SAT/_SSAT, each at most once"],
                 id='suffix_tables'),
    pytest.param('!!ARBfp1.0\nARL result.color, fragment.color.x;\nTXF result.color, fragment.color, texture[0], 2D;\nmov result.color, fragment.color;\nIF GT.x;\nMOV.F result.color, fragment.color;\nEND\n',
                 ["t.fp:2:1: error[E3001]: 'ARL' is a vertex program opcode",
                  "t.fp:3:1: error[E3001]: unknown opcode 'TXF'",
                  "t.fp:4:1: error[E3001]: unknown opcode 'mov' (opcodes are upper case)",
                  "t.fp:5:1: error[E3001]: 'IF' requires OPTION NV_fragment_program2",
                  "t.fp:6:5: error[E3002]: '.F': dot modifiers are NV_gpu_program4 syntax; this dialect uses glued suffixes"],
                 id='unknown_opcodes'),
    pytest.param('!!ARBfp1.0\nADD result.color, fragment.color;\nMOV result.color, fragment.color, fragment.color;\nKIL;\nEND\n',
                 ['t.fp:2:1: error[E3003]: ADD takes a destination and 2 source operands; found 2 operands',
                  't.fp:3:1: error[E3003]: MOV takes a destination and 1 source operand; found 3 operands',
                  't.fp:4:1: error[E3003]: KIL takes one operand (a vector or a condition-code test); found 0 operands'],
                 id='operand_counts'),
    pytest.param('!!ARBfp1.0\nTEX result.color, fragment.texcoord[0], texture[0], SHADOW2D;\nTEX result.color, fragment.texcoord[0], texture[16], 2D;\nTEX result.color, fragment.texcoord[0], texture[1], ARRAY2D;\nTXB result.color, fragment.texcoord[0], texture, 2D;\nTXP result.color, fragment.texcoord[0], texture[0], 3D;\nTEX result.color, fragment.texcoord[0], 2D;\nTEX result.color, fragment.texcoord[0], texture[2], 2D, (1, 0);\nEND\n',
                 ['t.fp:2:53: error[E5001]: the SHADOW2D target requires OPTION ARB_fragment_program_shadow (ARBFPS)',
                  't.fp:3:49: error[E5004]: texture unit 16 out of range [0, 15]',
                  't.fp:4:53: error[E5001]: the ARRAY2D target requires OPTION MESA_texture_array',
                  't.fp:6:53: error[E5002]: texture unit 0 is used with target 3D and 2D; one target per unit',
                  't.fp:7:1: error[E3003]: TEX takes a destination, 1 coordinate operand, a texture unit and a target',
                  't.fp:8:1: error[E3003]: TEX takes a destination, 1 coordinate operand, a texture unit and a target'],
                 id='textures'),
    pytest.param('!!ARBfp1.0\nOPTION ARB_fragment_program_shadow;\nTEX result.color.rgb, fragment.texcoord[0], texture[0], 2D;\nTEX result.color.a, fragment.texcoord[1], texture[0], SHADOW2D;\nEND\n',
                 ['t.fp:4:55: error[E5002]: texture unit 0 is used with target SHADOW2D and 2D; one target per unit'],
                 id='shadow_target_conflict'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nTXD result.color, fragment.texcoord[0], texture[0], 2D;\nTXL result.color, fragment.texcoord[0], texture[0], 2D;\nDIV result.color, fragment.texcoord[0], fragment.color.x;\nEND\n',
                 ['t.fp:3:1: error[E3003]: TXD takes a destination, 3 coordinate operands, a texture unit and a target',
                  "t.fp:4:1: error[E3001]: 'TXL' requires OPTION NV_fragment_program2",
                  "t.fp:5:1: error[E3001]: 'DIV' requires OPTION NV_fragment_program2"],
                 id='txd_txl'),
    pytest.param('!!ARBfp1.0\nSWZ result.color, fragment.color, x, y, 2, w;\nSWZ result.color, -fragment.color, x, y, z, w;\nSWZ result.color, fragment.color.x, x, y, z, w;\nSWZ result.color, fragment.color, x, y, z;\nSWZ result.color, fragment.color, a, b, x, r;\nSWZ result.color, fragment.color, xcellent, y, z, w;\nEND\n',
                 ['t.fp:2:41: error[E3004]: extended swizzle selectors are 0, 1, x, y, z, w (or r, g, b, a)',
                  't.fp:3:19: error[E3004]: the SWZ source takes no sign, absolute value or swizzle',
                  't.fp:4:19: error[E3004]: the SWZ source takes no sign, absolute value or swizzle',
                  't.fp:5:1: error[E3003]: SWZ takes a destination, a source and four extended swizzle selectors; found 5 operands',
                  't.fp:6:35: error[E3004]: an extended swizzle cannot mix xyzw and rgba selectors',
                  't.fp:7:35: error[E3004]: extended swizzle selectors are 0, 1, x, y, z, w (or r, g, b, a)'],
                 id='swz'),
    pytest.param('!!ARBfp1.0\nMOV fragment.color, program.local[0];\nMOV program.local[0], fragment.color;\nMOV result.color, result.depth;\nOUTPUT o = result.color;\nMOV result.color, o;\nMOV result.color, texture[0];\nEND\n',
                 ['t.fp:2:5: error[E3005]: fragment attributes are read-only',
                  't.fp:3:5: error[E3005]: program parameters are read-only',
                  't.fp:4:19: error[E3004]: result bindings are write-only',
                  "t.fp:6:19: error[E3004]: 'o' is an OUTPUT variable and cannot be read",
                  't.fp:7:19: error[E3004]: a texture unit is not a value operand'],
                 id='read_write_rules'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nTEMP d;\nSHORT TEMP h;\nPK2H h, fragment.color;\nUP2H d, h.x;\nRFL d, fragment.color, fragment.color;\nEND\n',
                 ['t.fp:5:6: error[E3005]: PK2H cannot write a 16-bit (SHORT) variable: the packed 32-bit word does not fit (FPO 3.11.5.32-35)',
                  't.fp:6:9: error[E3004]: UP2H cannot read a 16-bit (SHORT) variable: it unpacks a 32-bit word (FPO 3.11.5.43-46)',
                  "t.fp:7:5: warning[E3010]: RFL writes the w component, which its result does not define (FPO 3.11.5.36 / FP1 3.11.5.26: fails to load); accepted as NVIDIA's drivers did, w = 0.0"],
                 id='pack_unpack_rfl'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nSHORT OUTPUT a = result.color;\nLONG OUTPUT b = result.color;\nMOV a, fragment.color;\nMOV b, fragment.color;\nEND\n',
                 ["t.fp:6:5: error[E2008]: 'result.color[0]' is written through variables declared SHORT and LONG (FPO 3.11.3.4)"],
                 id='result_sizes'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nMOV result.color (NAN.x), fragment.color;\nMOV result.color (GT1.x), fragment.color;\nIF LEG;\nENDIF;\nEND\n',
                 ["t.fp:3:19: error[E3007]: unknown condition-code rule 'NAN' (expected one of EQ, GE, GT, LE, LT, NE, TR, FL)",
                  "t.fp:4:19: error[E3007]: unknown condition-code rule 'GT1' (expected one of EQ, GE, GT, LE, LT, NE, TR, FL)",
                  "t.fp:5:4: error[E3007]: expected a condition-code test such as 'NE.x' or '(GT.x)'"],
                 id='cc_rules'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nTEMP EQ;\nMOV EQ, fragment.color;\nKIL EQ;\nEND\n',
                 ["t.fp:5:5: warning[E3007]: 'EQ' is both a variable and a condition-code rule; it is read as a condition-code test here"],
                 id='cc_name_warning'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nPARAM p = program.local[0];\nIF GT.x;\nLOOP p;\nENDIF;\nENDLOOP;\nELSE;\nENDREP;\nREP p;\nEND\n',
                 ['t.fp:4:1: error[E4003]: IF block is never closed (missing ENDIF)',
                  't.fp:6:1: error[E4003]: ENDIF without a matching IF (the innermost open block is LOOP)',
                  't.fp:9:1: error[E4003]: ENDREP without a matching REP (the innermost open block is IF)',
                  't.fp:10:1: error[E4003]: REP block is never closed (missing ENDREP)'],
                 id='blocks'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP t;\nLOOP t;\nENDLOOP;\nREP fragment.color;\nENDREP;\nREP;\nENDREP;\nEND\n',
                 ['t.fp:4:6: error[E3004]: the LOOP operand must be a program parameter (FP2 3.11.X.8/9), not a temporary or attribute',
                  't.fp:6:5: error[E3004]: the REP operand must be a program parameter (FP2 3.11.X.8/9), not a temporary or attribute',
                  't.fp:8:1: error[E3003]: REP takes one program parameter operand; found 0 operands'],
                 id='loop_operands'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nTEMP t;\nBRK;\nMOV t, fragment.texcoord[A0.x];\nREP {2};\nMOV t, fragment.texcoord[A0.x];\nENDREP;\nEND\n',
                 ['t.fp:4:1: error[E4004]: BRK outside a LOOP or REP block',
                  't.fp:5:26: error[E2010]: A0.x is only available inside a LOOP/ENDLOOP block (FP2 3.11.3.Y)',
                  't.fp:7:26: error[E2010]: A0.x is only available inside a LOOP/ENDLOOP block (FP2 3.11.3.Y)'],
                 id='brk_and_a0_outside_loops'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nPARAM p = program.local[0];\nREP p;\ninside:\nENDREP;\nCAL nowhere;\ntwice:\ntwice:\nEND\n',
                 ["t.fp:5:1: error[E4003]: label 'inside' inside an open REP block (opened at t.fp:4:1)",
                  "t.fp:7:5: error[E4001]: CAL to undefined label 'nowhere'",
                  "t.fp:9:1: error[E4002]: label 'twice' is defined twice"],
                 id='labels'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program;\nmain:\nCAL main;\nEND\n',
                 ["t.fp:3:1: error[E1002]: labels ('main:') require OPTION NV_fragment_program2",
                  "t.fp:4:1: error[E3001]: 'CAL' requires OPTION NV_fragment_program2"],
                 id='labels_need_option2'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nPARAM p = program.local[0];\nREP p; LOOP p; REP p; LOOP p; REP p;\nENDREP; ENDLOOP; ENDREP; ENDLOOP; ENDREP;\nEND\n',
                 ['t.fp:4:31: error[E4005]: REP nested inside 4 LOOP/REP blocks (MAX_PROGRAM_LOOP_DEPTH_NV)'],
                 id='nesting_limits'),
    pytest.param('!!ARBfp1.0\nOPTION NV_fragment_program2;\nPARAM p = program.local[0];\nTEMP t;\nLOOP p;\nMOV t, fragment.texcoord[A0.y];\nMOV t, fragment.texcoord[A0.x + 10];\nMOV t, fragment.texcoord[A0.x - 1];\nMOV t, fragment.texcoord[t.x];\nMOV t, A0.x;\nENDLOOP;\nEND\n',
                 ['t.fp:6:26: error[E2010]: only A0.x exists (the loop index)',
                  't.fp:7:26: error[E2006]: offset +10 out of range: fragment.texcoord[A0.x + n] takes n in [0, 9] (FP2 3.11.2)',
                  't.fp:8:26: error[E2006]: offset -1 out of range: fragment.texcoord[A0.x + n] takes n in [0, 9] (FP2 3.11.2)',
                  't.fp:9:26: error[E2010]: fragment attributes can only be indexed relatively by the loop index A0.x (fragment.texcoord[A0.x + n], OPTION NV_fragment_program2)',
                  't.fp:10:8: error[E2010]: A0 can only be used as an index: fragment.texcoord[A0.x + n]'],
                 id='loop_index_forms'),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_diagnostics(text, expected):
    assert headers(text) == expected


def test_if_nesting_limit():
    # FP2 3.11.4.X: an IF nested inside MAX_PROGRAM_IF_DEPTH_NV (48) IF blocks fails to load
    ok = "!!ARBfp1.0\nOPTION NV_fragment_program2;\n" + "IF NE.x;\n" * 48 + "ENDIF;\n" * 48 + "END\n"
    assert headers(ok) == []
    bad = "!!ARBfp1.0\nOPTION NV_fragment_program2;\n" + "IF NE.x;\n" * 49 + "ENDIF;\n" * 49 + "END\n"
    assert headers(bad) == ["t.fp:51:1: error[E4005]: IF nested inside 48 IF blocks "
                            "(MAX_PROGRAM_IF_DEPTH_NV)"]


def test_resource_limits():
    # ARBFP 3.11.3.6 (limits in xlate/frontends/nv/fp_tables.py); fog options lower them
    temps = "!!ARBfp1.0\n" + "".join(f"TEMP t{i};\n" for i in range(513)) + "END\n"
    assert headers(temps) == ["t.fp:1:1: error[E1008]: 513 temporaries; the limit is 512 "
                              "(MAX_PROGRAM_TEMPORARIES_ARB)"]
    fog = "!!ARBfp1.0\nOPTION ARB_fog_exp;\n" + "".join(f"TEMP t{i};\n" for i in range(512)) + "END\n"
    assert headers(fog) == ["t.fp:1:1: error[E1008]: 512 temporaries; the limit is 511 "
                            "(MAX_PROGRAM_TEMPORARIES_ARB)"]
    params = ("!!ARBfp1.0\nPARAM p[] = { " + ", ".join(f"{{{i}}}" for i in range(1025)) + " };\nEND\n")
    assert headers(params) == ["t.fp:1:1: error[E1008]: 1025 parameter bindings; the limit is 1024 "
                               "(MAX_PROGRAM_PARAMETERS_ARB)"]
    # identical constant vectors and repeated state count once
    same = "!!ARBfp1.0\nPARAM p[] = { " + ", ".join(["{1}", "state.fog.color"] * 600) + " };\nEND\n"
    assert headers(same) == []


def test_instruction_limit():
    text = "!!ARBfp1.0\nOPTION ARB_fog_linear;\n" + "MOV result.color, fragment.color;\n" * 16383 + "END\n"
    assert headers(text) == ["t.fp:1:1: error[E1008]: 16383 instructions; the limit is 16382 "
                             "(MAX_PROGRAM_INSTRUCTIONS_ARB)"]


def test_caret_rendering():
    with pytest.raises(XlateError) as err:
        xlate.parse("!!ARBfp1.0\nMOVX result.color, fragment.color;\nEND\n", filename="t.fp")
    assert err.value.render() == (
        "t.fp:2:1: error[E3002]: the precision suffix 'X' on MOV requires OPTION NV_fragment_program\n"
        "    MOVX result.color, fragment.color;\n"
        "    ^~~~")


def test_every_error_of_a_file_is_reported():
    text = ("!!ARBfp1.0\nTEMP a;\nMOV b, a;\nDDX a, a;\nMOV a, |a|;\nRCP a, 2.0;\n"
            "TEX a, a, texture[0], 2D;\nTEX a, a, texture[0], 3D;\nEND\n")
    assert [h.split(": error")[0] for h in headers(text)] == [
        "t.fp:3:5", "t.fp:4:1", "t.fp:5:9", "t.fp:6:8", "t.fp:8:23"]


_PIECES = list(";:,.[]{}()|+-=#\n \tx019AZaz_$!@\x00\u00e9") + [
    "A0.x", "LOOP p;", "ENDLOOP;", "REP p;", "IF GT.x;", "ENDIF;", "ELSE;", "BRK;", "CAL f;", "f:",
    "RET;", "OPTION NV_fragment_program2;", "fragment.texcoord[A0.x+1]", "texture[0]", "2D",
    "SHADOW2D", "CC", "END", "{1,2}", "-|", "_SAT", "X", "H", "C", "SHORT", "result.color"]
_BASE = ("!!ARBfp1.0\nOPTION NV_fragment_program2;\nPARAM p = program.local[0];\n"
         "SHORT TEMP h;\nTEMP a;\nmain:\nLOOP p;\nADDXC a, a, fragment.texcoord[A0.x + 1];\n"
         "BRK (GT.x);\nENDLOOP;\nIF NE.x;\nTXP h, a, texture[1], CUBE;\nENDIF;\nCAL f;\n"
         "MOV_SAT result.color, h;\nRET;\nf:\nKIL LT.y;\nRET;\nEND\n")


def test_no_traceback_on_mutated_programs():
    import random
    rng = random.Random(5)
    for _ in range(400):
        text = _BASE
        for _ in range(rng.randint(1, 3)):
            pos = rng.randrange(len(text))
            if rng.random() < 0.5:
                text = text[:pos] + rng.choice(_PIECES) + text[pos:]
            else:
                text = text[:pos] + text[pos + rng.randint(1, 6):]
        try:
            xlate.parse(text, filename="t.fp")
        except XlateError as e:
            assert all(d.span is not None for d in e.diagnostics if d.is_error), text
