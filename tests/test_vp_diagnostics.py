"""Load-time errors of the NV vertex-program dialects (nv_dialects.md 13): exact code, line,
column and message of every diagnostic, all errors of a file reported, never a traceback.
Each case cites the rule it checks."""
from __future__ import annotations

import pytest

import xlate


CASES = {
    # VP1 2.14.1.7: one unique program parameter per instruction
    'two_params': ('!!VP1.0\nMOV o[HPOS], v[0];\nMUL R2, c[A0.x + 8], c[7];\nEND',
        ['two_params.vp:3:22: error[E2014]: an instruction can read only one program parameter register (c[A0.x+8] and c[7])']),
    # VP1 2.14.1.7: one unique attribute register per instruction
    'two_attribs': ('!!VP1.0\nMOV o[HPOS], v[0];\nDP3 R0.x, v[NRML], v[COL0];\nEND',
        ['two_attribs.vp:3:20: error[E2014]: an instruction can read only one vertex attribute register (v[2] and v[3])']),
    # VP2 2.14.1.8: identical references count once
    'same_param_twice_ok': ('!!VP1.0\nMUL o[HPOS], c[3], c[3].x;\nEND',
        []),
    # VP1 2.14.1.7: must write o[HPOS]
    'no_hpos': ('!!VP1.0\nMOV o[COL0], v[0];\nEND',
        ['no_hpos.vp:3:1: error[E2015]: a vertex program must write o[HPOS] (at least one component)']),
    # VP11 2.14.B: no HPOS in position-invariant programs
    'pi_hpos': ('!!VP1.1\nOPTION NV_position_invariant;\nMOV o[HPOS], v[OPOS];\nEND',
        ['pi_hpos.vp:3:5: error[E2015]: a position-invariant program cannot write o[HPOS] (NV_position_invariant)']),
    # VP11 2.14.B: no relative addressing when position-invariant (digest 12.12)
    'pi_relative': ('!!VP1.1\nOPTION NV_position_invariant;\nARL A0.x, v[1].x;\nMOV o[COL0], c[A0.x];\nEND',
        ['pi_relative.vp:4:16: error[E2010]: relative addressing is not available in position-invariant VP1.1 programs']),
    # VP11 2.14.A: ABS is VP1.1
    'abs_vp10': ('!!VP1.0\nMOV o[HPOS], v[0];\nABS R0, v[0];\nEND',
        ["abs_vp10.vp:3:1: error[E3001]: opcode 'ABS' is not available in VP1.0 programs (it needs !!VP1.1)"]),
    # VP1 2.14.4: VSP reads only v[0]
    'vsp_v1': ('!!VSP1.0\nMOV c[0], v[1];\nEND',
        ['vsp_v1.vp:2:13: error[E2004]: a vertex state program can only read v[0] (the ExecuteProgramNV parameters)']),
    # VP1 2.14.4: VSP writes no result registers
    'vsp_out': ('!!VSP1.0\nMOV c[0], v[0];\nMOV o[COL0], v[0];\nEND',
        ['vsp_out.vp:3:5: error[E3005]: a vertex state program cannot write result registers (it writes program parameters c[n])']),
    # VP1 2.14.4: <dstReg> ::= <absProgParamReg>
    'vsp_rel_write': ('!!VSP1.0\nARL A0.x, v[0].x;\nMOV c[A0.x], v[0];\nEND',
        ['vsp_rel_write.vp:3:5: error[E3005]: a vertex state program writes program parameters with an absolute index: c[n]']),
    # NV_vertex_program2 2.14.1.8 gives !!VSP1.0 an empty <programText>: the grammar accepts
    # it, and the load rule of VP1 2.14.4 / VP2 2.14.1.8 (write a program parameter) refuses it
    'vsp_empty': ('!!VSP1.0\nEND',
        ['vsp_empty.vp:2:1: error[E2015]: a vertex state program must write at least one program parameter c[n]']),
    # VP1 2.14.4: must write a program parameter
    'vsp_nowrite': ('!!VSP1.0\nMOV R0, v[0];\nEND',
        ['vsp_nowrite.vp:3:1: error[E2015]: a vertex state program must write at least one program parameter c[n]']),
    # VP2 2.14.2.3: undefined label
    'undef_label': ('!!VP2.0\nMOV o[HPOS], v[0];\nBRA nowhere (GT.x);\nCAL gone;\nEND',
        ["undef_label.vp:3:5: error[E4001]: undefined label 'nowhere'",
         "undef_label.vp:4:5: error[E4001]: undefined label 'gone'"]),
    # labels are unique
    'dup_label': ('!!VP2.0\nl:\nMOV o[HPOS], v[0];\nl:\nEND',
        ["dup_label.vp:4:1: error[E4002]: label 'l' is defined twice"]),
    # VP2 2.14.2: the C suffix is VP2 only
    'addc_vp11': ('!!VP1.1\nMOV o[HPOS], v[0];\nADDC R0, v[0], v[0];\nEND',
        ["addc_vp11.vp:3:1: error[E3002]: 'ADDC': condition-code updates (suffix C) are not available in VP1.1 programs (they need !!VP2.0)"]),
    # VP1 2.14.1.7 <optionalSign> ::= '-'
    'plus_vp10': ('!!VP1.0\nMOV o[HPOS], +v[0];\nEND',
        ["plus_vp10.vp:2:14: error[E1002]: '+' is not an operand sign in VP1.0 (only '-')"]),
    # VP1: R0-R11
    'r12_vp1': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV R12, v[0];\nEND',
        ['r12_vp1.vp:3:5: error[E2006]: temporary register R12 does not exist (R0-R11)']),
    # VP1: c[0]-c[95]
    'c96_vp1': ('!!VP1.0\nMOV o[HPOS], c[96];\nEND',
        ['c96_vp1.vp:2:16: error[E2006]: program parameter c[96] does not exist (c[0]-c[95])']),
    # VP1: offsets -64..63
    'rel_offset_vp1': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], c[A0.x + 64];\nEND',
        ['rel_offset_vp1.vp:3:16: error[E2006]: relative offset +64 out of range [-64, 63]']),
    # VP1: <addrReg> ::= A0.x
    'rel_y_vp1': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], c[A0.y];\nEND',
        ["rel_y_vp1.vp:3:16: error[E2010]: invalid address component '.y' (VP1 relative addressing uses A0.x)"]),
    # VP1 <relProgParamReg>: relative addressing only for c[] reads (audit: every "fails to
    # load" rule of VP1 2.14.1.7 / VP11 / VP2 2.14.1.8 has a case in this table)
    'rel_attrib': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], v[A0.x];\nEND',
        ['rel_attrib.vp:3:16: error[E2010]: relative addressing exists only for program parameters c[...]; attribute registers take a number or a mnemonic']),
    'rel_result': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], v[0];\nMOV o[A0.x], v[0];\nEND',
        ['rel_result.vp:4:7: error[E2010]: relative addressing exists only for program parameters c[...]; result registers are written o[NAME]']),
    # VP2 2.14.1.8: "more than once only if all such matches are identical" -- two relative
    # references with different offsets (or one relative and one absolute) are two registers
    'two_relative_params': ('!!VP1.0\nARL A0.x, v[0].x;\nADD o[HPOS], c[A0.x + 1], c[A0.x + 2];\nADD o[HPOS], c[A0.x + 1], c[1];\nMUL o[COL0], c[A0.x + 1], c[A0.x+1].x;\nEND',
        ['two_relative_params.vp:3:27: error[E2014]: an instruction can read only one program parameter register (c[A0.x+1] and c[A0.x+2])',
         'two_relative_params.vp:4:27: error[E2014]: an instruction can read only one program parameter register (c[A0.x+1] and c[1])']),
    # "... refer to the same register": a number and its mnemonic are one attribute register
    'same_attrib_two_spellings_ok': ('!!VP1.0\nADD o[HPOS], v[0], v[OPOS];\nMAD o[TEX0], v[TEX0], v[8].x, v[8];\nEND',
        []),
    # the address register is written only by ARL and read only as an index (VP1 <addrReg>)
    'a0_read': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], A0.x;\nEND',
        ['a0_read.vp:3:14: error[E3004]: address register A0 can only be used as an index (c[A0.x + n])']),
    'a0_written_by_mov': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV A0.x, v[0].x;\nEND',
        ['a0_written_by_mov.vp:3:5: error[E3005]: address register A0 is written only by ARL']),
    # VP1 <ARL-instruction> ::= "ARL" <addrReg> "," <scalarSrcReg>
    'arl_vector_source': ('!!VP1.0\nARL A0.x, v[0];\nMOV o[HPOS], v[0];\nEND',
        ["arl_vector_source.vp:2:11: error[E3004]: a scalar operand needs a component selector (for example '.x')"]),
    # VP1 <progParamNegOffset> 0..64
    'rel_offset_neg_vp1': ('!!VP1.0\nARL A0.x, v[0].x;\nMOV o[HPOS], c[A0.x - 64];\nMOV o[COL0], c[A0.x - 65];\nEND',
        ['rel_offset_neg_vp1.vp:4:16: error[E2006]: relative offset -65 out of range [-64, 63]']),
    # VP11 2.14.B: position-invariant VP1.1 programs have at most 124 instructions
    'pi_too_many': ('!!VP1.1\nOPTION NV_position_invariant;\n' + 'MOV o[COL0], v[0];\n' * 125 + 'END',
        ['pi_too_many.vp:128:1: error[E1008]: 125 instructions; a VP1.1 program (position-invariant) may have at most 124']),
    # VP1 2.14.4: a vertex state program has at most 128 instructions, and one c[] per instruction
    'vsp_too_many': ('!!VSP1.0\n' + 'MOV c[0], v[0];\n' * 129 + 'END',
        ['vsp_too_many.vp:131:1: error[E1008]: 129 instructions; a VSP1.0 vertex state program may have at most 128']),
    'vsp_two_params': ('!!VSP1.0\nADD c[0], c[1], c[2];\nEND',
        ['vsp_two_params.vp:2:17: error[E2014]: an instruction can read only one program parameter register (c[1] and c[2])']),
    # VP11 2.14.A: DPH, RCC, SUB (like ABS) are VP1.1
    'vp11_ops_in_vp10': ('!!VP1.0\nMOV o[HPOS], v[0];\nDPH R0, v[0], c[0];\nRCC R0, v[0].x;\nSUB R0, v[0], c[0];\nEND',
        ["vp11_ops_in_vp10.vp:3:1: error[E3001]: opcode 'DPH' is not available in VP1.0 programs (it needs !!VP1.1)",
         "vp11_ops_in_vp10.vp:4:1: error[E3001]: opcode 'RCC' is not available in VP1.0 programs (it needs !!VP1.1)",
         "vp11_ops_in_vp10.vp:5:1: error[E3001]: opcode 'SUB' is not available in VP1.0 programs (it needs !!VP1.1)"]),
    # VP1 <optionalMask> / <swizzleSuffix>: xyzw only (no rgba), ordered, 1 or 4 components
    'rgba_vp1': ('!!VP1.0\nMOV o[HPOS].rgba, v[0];\nMOV o[COL0], v[0].rgba;\nMOV o[COL1].xx, v[0].xyz;\nEND',
        ["rgba_vp1.vp:2:13: error[E1006]: invalid write mask '.rgba' (components x, y, z, w in order, no repeats)",
         "rgba_vp1.vp:3:19: error[E1006]: invalid swizzle '.rgba' (components are x, y, z, w)",
         "rgba_vp1.vp:4:13: error[E1006]: invalid write mask '.xx' (components x, y, z, w in order, no repeats)",
         "rgba_vp1.vp:4:22: error[E1006]: swizzle '.xyz' must have 1 or 4 components"]),
    # VP2 2.14.1.8: labels are VP2 only
    'label_vp1': ('!!VP1.0\nstart:\nMOV o[HPOS], v[0];\nEND',
        ['label_vp1.vp:2:1: error[E1002]: labels are not allowed in VP1.0 programs (they need !!VP2.0)']),
    # VP2 <identifier>: no '$'
    'label_dollar': ('!!VP2.0\nMOV o[HPOS], v[0];\na$b:\nEND',
        ["label_dollar.vp:3:1: error[E1002]: invalid label name 'a$b' (letters, digits and '_', starting with a letter or '_')"]),
    # VP1 2.14.1.7: at most 128 instructions
    'too_many': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nMOV o[HPOS], v[0];\nEND',
        ['too_many.vp:131:1: error[E1008]: 129 instructions; a VP1.0 program may have at most 128']),
    # VP2 <vp2-absScalarSrc>
    'abs_vp1': ('!!VP1.0\nMOV o[HPOS], |v[0]|;\nEND',
        ['abs_vp1.vp:2:15: error[E3004]: absolute value operands |x| are not available in VP1.0 programs (they need !!VP2.0)']),
    # VP1.0 has no options
    'option_vp10': ('!!VP1.0\nOPTION NV_position_invariant;\nMOV o[HPOS], v[0];\nEND',
        ['option_vp10.vp:2:1: error[E2011]: VP1.0 programs take no options']),
    # VP2 <vp2-option> ::= NV_position_invariant
    'unknown_option': ('!!VP2.0\nOPTION NV_vertex_program3;\nMOV o[HPOS], v[0];\nEND',
        ["unknown_option.vp:2:8: error[E2011]: unknown option 'NV_vertex_program3' (the only option is NV_position_invariant)"]),
    # nv_dialects.md 2.1: case-sensitive
    'lowercase': ('!!VP1.0\nmov o[HPOS], v[0];\nEND',
        ["lowercase.vp:2:1: error[E3001]: unknown opcode 'mov' (opcodes are upper case)"]),
    # VP1 <addrWriteMask> ::= .x
    'arl_mask_vp1': ('!!VP1.0\nARL A0, v[0].x;\nMOV o[HPOS], v[0];\nEND',
        ["arl_mask_vp1.vp:2:5: error[E3005]: the address register write mask must be '.x' in VP1.0 programs"]),
    # VP1 <addrRegister> ::= A0
    'a1_vp1': ('!!VP1.0\nARL A1.x, v[0].x;\nMOV o[HPOS], v[0];\nEND',
        ["a1_vp1.vp:2:5: error[E3005]: 'A1' is not an address register (available: A0)"]),
    # VP2 <vp2-branchCondition> ::= <optionalCCMask>
    'bra_noparen': ('!!VP2.0\nMOV o[HPOS], v[0];\nl:\nBRA l LE.x;\nEND',
        ["bra_noparen.vp:4:7: error[E1002]: the branch condition is written in parentheses right after the label: 'BRA label (GT.x);'"]),
    # CC masks are VP2 only
    'ccmask_vp1': ('!!VP1.0\nMOV o[HPOS] (GT), v[0];\nEND',
        ['ccmask_vp1.vp:2:14: error[E3007]: condition-code masks are not available in VP1.0 programs (they need !!VP2.0)']),
    # VP2 has one condition code
    'c1_vp2': ('!!VP2.0\nMOVC1 o[HPOS], v[0];\nEND',
        ["c1_vp2.vp:2:1: error[E3002]: 'MOVC1': suffix C1 needs OPTION NV_vertex_program3 (two condition-code registers)"]),
    # VP2 has one condition code
    'eq1_vp2': ('!!VP2.0\nMOV o[HPOS] (EQ1), v[0];\nEND',
        ["eq1_vp2.vp:2:14: error[E3007]: 'EQ1': numbered condition codes need OPTION NV_vertex_program3"]),
    # VP2 2.14.3.3: no swizzle on the ARA operand
    'ara_swizzle': ('!!VP2.0\nMOV o[HPOS], v[0];\nARA A0, A1.xy;\nEND',
        ['ara_swizzle.vp:3:12: error[E3004]: the ARA operand takes no swizzle']),
    # VP1 <srcReg>: results are write-only
    'read_o': ('!!VP1.0\nMOV o[HPOS], o[COL0];\nEND',
        ['read_o.vp:2:14: error[E3004]: result registers o[...] are write-only']),
    # VP1 <dstReg>: attributes are read-only
    'write_v': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV v[1], v[0];\nEND',
        ['write_v.vp:3:5: error[E3005]: attribute registers v[n] are read-only']),
    # VP1 <scalarSrcReg> needs a <scalarSuffix>
    'scalar_no_sel': ('!!VP1.0\nRCP o[HPOS], v[0];\nEND',
        ["scalar_no_sel.vp:2:14: error[E3004]: a scalar operand needs a component selector (for example '.x')"]),
    # VP1 <swizzleSuffix>: 1 or 4 components
    'two_letter': ('!!VP1.0\nMOV o[HPOS], v[0].xy;\nEND',
        ["two_letter.vp:2:19: error[E1006]: swizzle '.xy' must have 1 or 4 components"]),
    # VP1 <optionalMask>: xyzw order
    'bad_mask': ('!!VP1.0\nMOV o[HPOS].yx, v[0];\nEND',
        ["bad_mask.vp:2:13: error[E1006]: invalid write mask '.yx' (components x, y, z, w in order, no repeats)"]),
    # VP1: no literal constants
    'constant': ('!!VP1.0\nMOV o[HPOS], {1, 2, 3, 4};\nEND',
        ['constant.vp:2:14: error[E3004]: constants cannot be used in VP1.0 programs: constants live in program parameters c[n]']),
    # VP2: no declarations
    'temp_decl': ('!!VP2.0\nTEMP t;\nMOV o[HPOS], v[0];\nEND',
        ['temp_decl.vp:2:1: error[E1002]: TEMP declarations do not exist in VP2.0 programs (registers are predefined)']),
    # every error of the file is reported
    'multi': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV R0, c[200];\nFOO R1, R0;\nMOV R99, R0;\nEND',
        ['multi.vp:3:11: error[E2006]: program parameter c[200] does not exist (c[0]-c[95])',
         "multi.vp:4:1: error[E3001]: unknown opcode 'FOO'",
         'multi.vp:5:5: error[E2006]: temporary register R99 does not exist (R0-R11)']),
    # VP2 <vp2-resultRegName>
    'clp_vp1': ('!!VP1.0\nMOV o[HPOS], v[0];\nMOV o[CLP0], v[0];\nEND',
        ['clp_vp1.vp:3:7: error[E3005]: unknown result register (expected one of HPOS, COL0, COL1, BFC0, BFC1, FOGC, PSIZ, TEX0, TEX1, TEX2, TEX3, TEX4, TEX5, TEX6, TEX7) (CLP0-CLP5 need !!VP2.0)']),
    # _SAT does not exist in VP2
    'sat_vp2': ('!!VP2.0\nMOV_SAT o[HPOS], v[0];\nEND',
        ["sat_vp2.vp:2:1: error[E3002]: 'MOV_SAT': _SAT is not available in VP2.0 programs"]),
    # VP2 Table X.5 has no POW
    'pow_vp2': ('!!VP2.0\nPOW o[HPOS], v[0].x, v[0].y;\nEND',
        ["pow_vp2.vp:2:1: error[E3001]: opcode 'POW' is not available in VP2.0 programs (it exists only in !!ARBvp1.0 programs)"]),
    # PUSHA/POPA are VP3 (ARB option) only
    'popa_vp2': ('!!VP2.0\nMOV o[HPOS], v[0];\nPOPA A0;\nEND',
        ["popa_vp2.vp:3:1: error[E3001]: opcode 'POPA' is not available in VP2.0 programs (it exists only in !!ARBvp1.0 programs)"]),
    # VP2 <vp2-RET-instruction>
    'ret_operand': ('!!VP2.0\nMOV o[HPOS], v[0];\nRET R0;\nEND',
        ["ret_operand.vp:3:5: error[E1002]: RET takes an optional condition in parentheses: 'RET (LE.x);'"]),
    # VP2 <vp2-ccMaskRule>
    'unknown_rule': ('!!VP2.0\nMOV o[HPOS] (XX.x), v[0];\nEND',
        ["unknown_rule.vp:2:14: error[E3007]: unknown condition-code rule 'XX' (expected one of EQ, GE, GT, LE, LT, NE, TR, FL)"]),
    # VP1 <vertexAttribRegNum>
    'bad_attr': ('!!VP1.0\nMOV o[HPOS], v[POS];\nEND',
        ['bad_attr.vp:2:16: error[E2006]: invalid attribute register (expected a number or one of OPOS, WGHT, NRML, COL0, COL1, FOGC, TEX0, TEX1, TEX2, TEX3, TEX4, TEX5, TEX6, TEX7)']),
    # VP1 <vertexResultRegName>
    'bad_result': ('!!VP1.0\nMOV o[XPOS], v[0];\nEND',
        ['bad_result.vp:2:7: error[E3005]: unknown result register (expected one of HPOS, COL0, COL1, BFC0, BFC1, FOGC, PSIZ, TEX0, TEX1, TEX2, TEX3, TEX4, TEX5, TEX6, TEX7)']),
}


@pytest.mark.parametrize("name", list(CASES))
def test_diagnostics_exact(name):
    src, want = CASES[name]
    if not want:
        xlate.parse(src, filename=name + ".vp")
        return
    with pytest.raises(xlate.XlateError) as err:
        xlate.parse(src, filename=name + ".vp")
    assert [d.header() for d in err.value.diagnostics] == want


def test_caret_rendering():
    src, _ = CASES["two_params"]
    with pytest.raises(xlate.XlateError) as err:
        xlate.parse(src, filename="two_params.vp")
    text = err.value.diagnostics[0].render(src)
    assert text.splitlines()[1:] == ["    MUL R2, c[A0.x + 8], c[7];", "                         ^~~"]


def test_no_traceback_on_garbage():
    for src in ("!!VP1.0\n", "!!VP2.0\n;;;\nEND", "!!VP1.1\nMOV o[HPOS], v[0]\nEND",
                "!!VSP1.0\nMOV c[, v[0];\nEND", "!!VP2.0\nBRA;\nCAL (GT);\nRET RET;\nEND",
                "!!VP2.0\nARL A0 (GT.q), c[0];\nMOV o[HPOS], c[A0.q+1];\nEND"):
        with pytest.raises(xlate.XlateError) as err:
            xlate.parse(src)
        assert err.value.diagnostics and all(d.code.startswith("E") for d in err.value.diagnostics)
