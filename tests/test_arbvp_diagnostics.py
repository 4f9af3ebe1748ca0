"""Load-time errors of ``!!ARBvp1.0`` (+ NV_vertex_program2/3): exact code, line, column and
message; the load-error variants of nv_dialects.md 11.3; all errors of a file reported."""
from __future__ import annotations

import pytest

import xlate


CASES = {
    # nv_dialects.md 11.3 AVP2-A load-error variant: without the OPTION, BRA/ARLC/labels/A0.y fail
    'avp2_no_option': ('!!ARBvp1.0\n# program.local[0]      = (lightCount, 1, -1, 2)\n# program.local[1+2i]   = light i direction, program.local[2+2i] = light i color\nPARAM mvp[4]   = { state.matrix.mvp };\nPARAM lights[] = { program.local[0..8] };\nADDRESS A0;\nTEMP acc, ndotl;\nDP4   result.position.x, mvp[0], vertex.position;\nDP4   result.position.y, mvp[1], vertex.position;\nDP4   result.position.z, mvp[2], vertex.position;\nDP4   result.position.w, mvp[3], vertex.position;\nMOV   acc, {0, 0, 0, 1};\nARLC  A0, lights[0];              # vector ARL (option): A0 = (count, 1, -1, 2)\nBRA   done (LE.x);\nloop:\n  CAL   shade;\n  ARAC  A0.xy, A0;\n  BRA   loop (GT.x);\ndone:\n  MOV   result.color, acc;\n  RET;\nshade:\n  DP3C  ndotl.x, vertex.normal, lights[A0.y];\n  RET   (LE.x);\n  MAD   acc.xyz, ndotl.x, lights[A0.y + 1], acc;\n  RET;\nEND\n',
        ["avp2_no_option.vp:13:1: error[E3002]: 'ARLC': condition-code updates (suffix C) are not available in ARB vertex programs (they need OPTION NV_vertex_program2)",
         "avp2_no_option.vp:14:1: error[E3001]: opcode 'BRA' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         'avp2_no_option.vp:15:1: error[E1002]: labels are not allowed in ARB vertex programs (they need OPTION NV_vertex_program2)',
         "avp2_no_option.vp:16:3: error[E3001]: opcode 'CAL' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         "avp2_no_option.vp:17:3: error[E3001]: opcode 'ARA' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         "avp2_no_option.vp:18:3: error[E3001]: opcode 'BRA' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         'avp2_no_option.vp:19:1: error[E1002]: labels are not allowed in ARB vertex programs (they need OPTION NV_vertex_program2)',
         "avp2_no_option.vp:21:3: error[E3001]: opcode 'RET' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         'avp2_no_option.vp:22:1: error[E1002]: labels are not allowed in ARB vertex programs (they need OPTION NV_vertex_program2)',
         "avp2_no_option.vp:23:3: error[E3002]: 'DP3C': condition-code updates (suffix C) are not available in ARB vertex programs (they need OPTION NV_vertex_program2)",
         "avp2_no_option.vp:24:3: error[E3001]: opcode 'RET' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)",
         "avp2_no_option.vp:25:34: error[E2010]: 'A0.y': only the x component of an address register exists without OPTION NV_vertex_program2",
         "avp2_no_option.vp:26:3: error[E3001]: opcode 'RET' is not available in ARB vertex programs (it needs OPTION NV_vertex_program2 or NV_vertex_program3)"]),
    # AVP2-A variant: base ARB ARL writes .x from a scalar (ARBVP 2.14.2)
    'avp2_arl_y_base': ('!!ARBvp1.0\nPARAM lights[] = { program.local[0..8] };\nADDRESS A0;\nARL A0.y, lights[0];\nEND',
        ["avp2_arl_y_base.vp:4:8: error[E3005]: the address register write mask must be '.x' in ARB vertex programs",
         "avp2_arl_y_base.vp:4:11: error[E3004]: a scalar operand needs a component selector (for example '.x')"]),
    # AVP2-A variant / ARBVP Table X.2.1: conventional + generic alias
    'avp2_aliasing': ('!!ARBvp1.0\nATTRIB n = vertex.normal;\nMOV result.color, vertex.attrib[2];\nEND',
        ["avp2_aliasing.vp:3:19: error[E2013]: 'vertex.attrib[2]' and 'vertex.normal' are the same vertex attribute; a program may bind only one of them (ARBVP Table X.2.1)"]),
    # ARBVP 2.14.3: a name is declared once
    'redeclare': ('!!ARBvp1.0\nTEMP a;\nPARAM a = {1};\nEND',
        ["redeclare.vp:3:7: error[E2001]: 'a' is already declared"]),
    # ARBVP 2.14.3: declared before use
    'use_before_decl': ('!!ARBvp1.0\nMOV result.color, t;\nTEMP t;\nEND',
        ["use_before_decl.vp:2:19: error[E2003]: undeclared name 't'"]),
    # ARBVP 2.14.2 reserved keywords
    'reserved': ('!!ARBvp1.0\nTEMP MOV, result;\nEND',
        ["reserved.vp:2:6: error[E2002]: 'MOV' is a reserved word",
         "reserved.vp:2:11: error[E2002]: 'result' is a reserved word"]),
    # VP2O: the new opcodes are reserved with the option
    'reserved_nv2': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP BRA;\nEND',
        ["reserved_nv2.vp:3:6: error[E2002]: 'BRA' is a reserved word"]),
    # ... and free names without it
    'not_reserved_base': ('!!ARBvp1.0\nTEMP BRA, SEQ;\nMOV result.color, BRA;\nEND',
        []),
    # ARBVP 2.14.4.5: options first
    'option_late': ('!!ARBvp1.0\nTEMP t;\nOPTION NV_vertex_program2;\nEND',
        ['option_late.vp:3:1: error[E2011]: OPTION statements must come before every other statement']),
    # ARBVP: unsupported options fail to load
    'fp_option': ('!!ARBvp1.0\nOPTION NV_fragment_program;\nEND',
        ["fp_option.vp:2:8: error[E2011]: unknown option 'NV_fragment_program' (vertex programs know ARB_position_invariant, NV_vertex_program2, NV_vertex_program3, ARB_fragment_program_shadow)"]),
    # ARBVP 2.14.3.2: relative addressing only into PARAM arrays
    'rel_non_param': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nADDRESS a;\nTEMP t;\nMOV result.color, vertex.normal[a.x];\nEND',
        ['rel_non_param.vp:5:33: error[E2007]: this operand cannot be indexed (only program parameter arrays are addressed with [...])']),
    # ARBVP <addrRegPosOffset> 0..63, <addrRegNegOffset> 0..64: beyond that a warning (Mesa's
    # MaxAddressOffset; digest 12 item 34), beyond [-4096, 4095] an error
    'rel_offset': ('!!ARBvp1.0\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\nMOV result.color, p[a.x + 64];\nMOV result.color, p[a.x - 65];\nEND',
        ["rel_offset.vp:4:21: warning[E2017]: relative offset +64 is outside ARB_vertex_program's range [-64, 63]; accepted (as by Mesa and the NV_vertex_program2 option grammar)",
         "rel_offset.vp:5:21: warning[E2017]: relative offset -65 is outside ARB_vertex_program's range [-64, 63]; accepted (as by Mesa and the NV_vertex_program2 option grammar)"]),
    'rel_offset_in_range': ('!!ARBvp1.0\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\nMOV result.color, p[a.x + 63];\nMOV result.color, p[a.x - 64];\nEND',
        []),
    'rel_offset_huge': ('!!ARBvp1.0\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\nMOV result.color, p[a.x + 4096];\nMOV result.color, p[a.x - 4097];\nEND',
        ['rel_offset_huge.vp:4:21: error[E2006]: relative offset +4096 out of range [-4096, 4095]',
         'rel_offset_huge.vp:5:21: error[E2006]: relative offset -4097 out of range [-4096, 4095]']),
    # VP2O <arrayMemRelOffset> ::= "+" <integer>: no bound with the options, no warning
    'rel_offset_nv2': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nADDRESS a;\nPARAM p[] = { program.local[0..3] };\nMOV result.color, p[a.y + 200];\nEND',
        []),
    # ARBVP 2.14.3.6: the right-hand side of ALIAS is an established name.  A binding there
    # (foonull/HaloMD) is accepted with one E2016 warning per program (the note lists the rest)
    'alias_binding': ('!!ARBvp1.0\nALIAS oPos = result.position;\nALIAS oT0 = result.texcoord[0];\nALIAS v0 = vertex.attrib[0];\nALIAS k = program.env[3];\nMOV oPos, v0;\nMOV oT0, k;\nEND',
        ["alias_binding.vp:2:14: warning[E2016]: ALIAS 'oPos' names a binding, not a declared variable (ARBVP 2.14.3.6 requires an established name); read as 'OUTPUT oPos = ...'"]),
    # ... with every check of the declaration it stands for
    'alias_binding_checks': ('!!ARBvp1.0\nOPTION ARB_position_invariant;\nALIAS p = result.position;\nALIAS c = result.color.xyz;\nALIAS n = vertex.normal;\nALIAS g = vertex.attrib[2];\nALIAS m = state.matrix.mvp;\nALIAS q = result.colour;\nEND',
        ['alias_binding_checks.vp:3:11: error[E2004]: result.position cannot be used with OPTION ARB_position_invariant',
         'alias_binding_checks.vp:4:24: error[E2004]: unexpected selector after the result binding',
         # the warning names the first binding ALIAS that was accepted
         "alias_binding_checks.vp:5:11: warning[E2016]: ALIAS 'n' names a binding, not a declared variable (ARBVP 2.14.3.6 requires an established name); read as 'ATTRIB n = ...'",
         "alias_binding_checks.vp:6:11: error[E2013]: 'vertex.attrib[2]' and 'vertex.normal' are the same vertex attribute; a program may bind only one of them (ARBVP Table X.2.1)",
         'alias_binding_checks.vp:7:11: error[E2005]: a single PARAM binds one vector; declare an array with [] for a range or a whole matrix',
         "alias_binding_checks.vp:8:18: error[E2004]: unknown binding member 'colour' after 'result' (expected one of: color, fogcoord, pointsize, position, texcoord)"]),
    # ... but a component or element of a variable is still no name, and names stay unique
    'alias_component': ('!!ARBvp1.0\nTEMP r0;\nPARAM a[] = { program.local[0..1] };\nALIAS x = r0.x;\nALIAS y = a[1];\nALIAS z = nothing.x;\nALIAS r0 = result.color;\nEND',
        ['alias_component.vp:4:14: error[E1002]: the right-hand side of ALIAS must be a declared name or a binding (vertex.*, result.*, program.*, state.*), not a component or an element of a variable (ARBVP 2.14.3.6)',
         'alias_component.vp:5:13: error[E1002]: the right-hand side of ALIAS must be a declared name or a binding (vertex.*, result.*, program.*, state.*), not a component or an element of a variable (ARBVP 2.14.3.6)',
         "alias_component.vp:6:11: error[E2003]: ALIAS of undeclared name 'nothing'",
         "alias_component.vp:7:7: error[E2001]: 'r0' is already declared"]),
    # an alias of a binding alias is an ordinary ALIAS (no second warning)
    'alias_of_binding_alias': ('!!ARBvp1.0\nALIAS oPos = result.position;\nALIAS p2 = oPos;\nMOV p2, vertex.position;\nEND',
        ["alias_of_binding_alias.vp:2:14: warning[E2016]: ALIAS 'oPos' names a binding, not a declared variable (ARBVP 2.14.3.6 requires an established name); read as 'OUTPUT oPos = ...'"]),
    # OUTPUT takes a result binding without a write mask (<resultBinding>)
    'output_mask': ('!!ARBvp1.0\nOUTPUT o = result.position.xy;\nEND',
        ['output_mask.vp:2:28: error[E2004]: unexpected selector after the result binding']),
    # VP3 2.14.3.1: vertex.attrib[A0.x+n] needs NV_vertex_program3
    'attrib_rel_nv2': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nADDRESS a;\nMOV result.color, vertex.attrib[a.x + 1];\nEND',
        ["attrib_rel_nv2.vp:4:33: error[E2010]: relative addressing of 'vertex.attrib' needs OPTION NV_vertex_program3"]),
    # VP3 2.14.5.43: POPA takes no CC mask -- but "some driver versions erroneously allowed
    # conditional write masks on POPA" (revision 7): accepted with a warning; a component write
    # mask stays an error
    'popa_cc': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nPUSHA a;\nPOPA a (EQ);\nEND',
        ['popa_cc.vp:5:9: warning[E3009]: POPA with a condition-code write mask: VP3 2.14.5.43 says the program fails to load; accepted as NVIDIA\'s drivers did (the pop always happens, the write is conditional)']),
    'popa_cc_tr': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nPUSHA a;\nPOPA a (TR);\nEND',
        []),
    'popa_mask': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nPUSHA a;\nPOPA a.xy (EQ);\nEND',
        ['popa_mask.vp:5:8: error[E3005]: POPA writes the whole address register: no write mask']),
    # VP3 2.14.3.7: MAX_VERTEX_TEXTURE_IMAGE_UNITS_ARB
    'tex_units': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEX result.texcoord[0], vertex.position, texture[0], 2D;\nTEX result.texcoord[1], vertex.position, texture[1], 2D;\nTEX result.texcoord[2], vertex.position, texture[2], 2D;\nTEX result.texcoord[3], vertex.position, texture[3], 2D;\nTEX result.texcoord[4], vertex.position, texture[4], 2D;\nEND',
        ['tex_units.vp:7:42: error[E5004]: a vertex program can use at most 4 texture units (MAX_VERTEX_TEXTURE_IMAGE_UNITS_ARB, VP3 2.14.3.7)']),
    # one target per texture unit
    'tex_two_targets': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEX result.color, vertex.position, texture[1], 2D;\nTEX result.texcoord[0], vertex.position, texture[1], 3D;\nEND',
        ['tex_two_targets.vp:4:54: error[E5002]: texture unit 1 is used with target 3D and 2D']),
    # VP3: SHADOW targets need ARB_fragment_program_shadow
    'shadow_no_option': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEX result.color, vertex.position, texture[0], SHADOW2D;\nEND',
        ['shadow_no_option.vp:3:48: error[E5001]: the SHADOW2D target needs OPTION ARB_fragment_program_shadow']),
    # ... and work with it
    'shadow_option': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nOPTION ARB_fragment_program_shadow;\nTEX result.color, vertex.position, texture[0], SHADOW2D;\nEND',
        []),
    # texture units 0-15
    'unit_range': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nTEX result.color, vertex.position, texture[16], 2D;\nEND',
        ['unit_range.vp:3:44: error[E5004]: texture unit 16 out of range [0, 15]']),
    # _SAT needs NV_vertex_program3 (VP3 Table X.5)
    'sat_nv2': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nMOV_SAT result.color, vertex.position;\nEND',
        ["sat_nv2.vp:3:1: error[E3002]: 'MOV_SAT': _SAT is not available in ARB vertex programs (it needs OPTION NV_vertex_program3)"]),
    # VP3 Table X.5: no _SAT on ARL/ARR/ARA
    'sat_arl': ('!!ARBvp1.0\nOPTION NV_vertex_program3;\nADDRESS a;\nARL_SAT a, vertex.position;\nEND',
        ['sat_arl.vp:4:1: error[E3002]: ARL cannot saturate (its result is an integer)']),
    # VP3 Table X.5: no suffix on BRA/CAL/RET
    'c_on_bra': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nl:\nBRAC l;\nEND',
        ['c_on_bra.vp:4:1: error[E3002]: BRA takes no suffix']),
    # labels are unique
    'dup_label': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nl:\nl:\nEND',
        ["dup_label.vp:4:1: error[E4002]: label 'l' is defined twice"]),
    # VP2O 2.14.4.X: undefined label
    'undef_label': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nCAL nowhere (GT);\nEND',
        ["undef_label.vp:3:5: error[E4001]: undefined label 'nowhere'"]),
    # ARBVP 2.14.3.2: array size must match the bindings
    'array_size': ('!!ARBvp1.0\nPARAM p[3] = { program.local[0..3] };\nEND',
        ["array_size.vp:2:7: error[E2005]: 'p' is declared with 3 elements but bound to 4"]),
    # |x| needs NV_vertex_program2 (VP2O)
    'abs_base': ('!!ARBvp1.0\nMOV result.color, |vertex.position|;\nEND',
        ['abs_base.vp:2:20: error[E3004]: absolute value operands |x| are not available in ARB vertex programs (they need OPTION NV_vertex_program2)']),
    # ARBVP 2.14.4.5.1: position-invariant programs cannot bind result.position
    'pi_write': ('!!ARBvp1.0\nOPTION ARB_position_invariant;\nOUTPUT o = result.position;\nEND',
        ['pi_write.vp:3:12: error[E2004]: result.position cannot be used with OPTION ARB_position_invariant']),
    # ARBVP 2.14.3.1: weight numbers are multiples of four below MAX_VERTEX_UNITS_ARB
    'weight_index': ('!!ARBvp1.0\nMOV result.color, vertex.weight[2];\nEND',
        ['weight_index.vp:2:19: error[E2006]: vertex.weight[2]: the index must be a multiple of four (and below MAX_VERTEX_UNITS_ARB = 4)']),
    # ARBVP Table X.2
    'bad_binding': ('!!ARBvp1.0\nMOV result.color, vertex.colour;\nEND',
        ["bad_binding.vp:2:26: error[E2004]: unknown binding member 'colour' after 'vertex' (expected one of: attrib, color, fogcoord, matrixindex, normal, position, texcoord, weight)"]),
    # parameters are read-only
    'write_param': ('!!ARBvp1.0\nPARAM p = program.env[0];\nMOV p, vertex.position;\nEND',
        ["write_param.vp:3:5: error[E3005]: 'p' is a PARAM variable and cannot be written"]),
    # results are write-only
    'read_output': ('!!ARBvp1.0\nOUTPUT o = result.color;\nMOV o, o;\nEND',
        ["read_output.vp:3:8: error[E3004]: 'o' is an OUTPUT variable and cannot be read"]),
    # ARBVP <floatConstant>: decimal
    'hex': ('!!ARBvp1.0\nMOV result.color, 0x10;\nEND',
        ["hex.vp:2:19: error[E1007]: '0x10': hexadecimal constants do not exist in ARB programs"]),
    # constant vectors have at most four components
    'five_components': ('!!ARBvp1.0\nMOV result.color, {1, 2, 3, 4, 5};\nEND',
        ['five_components.vp:2:32: error[E1007]: a constant vector has at most 4 components']),
    # ARBvp swizzles are xyzw
    'rgba_swizzle': ('!!ARBvp1.0\nMOV result.color, vertex.color.rgba;\nEND',
        ["rgba_swizzle.vp:2:32: error[E1006]: invalid swizzle '.rgba' (components are x, y, z, w)"]),
    # digest 2.2: condition-code rule names are not reserved
    'cc_rule_name_var': ('!!ARBvp1.0\nOPTION NV_vertex_program2;\nTEMP LT;\nMOVC LT, vertex.position;\nMOV result.color (LT.x), LT;\nEND',
        []),
    # CC masks need NV_vertex_program2
    'ccmask_base': ('!!ARBvp1.0\nMOV result.color (GT), vertex.position;\nEND',
        ['ccmask_base.vp:2:19: error[E3007]: condition-code masks are not available in ARB vertex programs (they need OPTION NV_vertex_program2)']),
    # every error of the file is reported
    'multi': ('!!ARBvp1.0\nTEMP t;\nMOV t, vertex.nothing;\nMOV q, t;\nFOO t, t;\nMOV t, program.local[5000];\nEND',
        ["multi.vp:3:15: error[E2004]: unknown binding member 'nothing' after 'vertex' (expected one of: attrib, color, fogcoord, matrixindex, normal, position, texcoord, weight)",
         "multi.vp:4:5: error[E2003]: undeclared name 'q'",
         "multi.vp:5:1: error[E3001]: unknown opcode 'FOO'",
         'multi.vp:6:22: error[E2006]: binding index 5000 out of range [0, 4095]']),
}


@pytest.mark.parametrize("name", list(CASES))
def test_diagnostics_exact(name):
    src, want = CASES[name]
    if all("warning[" in w for w in want):        # loads; exactly these warnings (or none)
        prog = xlate.parse(src, filename=name + ".vp")
        assert [d.header() for d in prog.diagnostics] == want
        return
    with pytest.raises(xlate.XlateError) as err:
        xlate.parse(src, filename=name + ".vp")
    assert [d.header() for d in err.value.diagnostics] == want
