"""Data races of compute dispatches (xlate/exec/races.py): found where two invocations touch
one location with nothing ordering them, and only there -- hand-written programs with a
known answer each way."""
from __future__ import annotations

import numpy as np
import pytest

from xlate import api
from xlate.exec.compute import execute_compute

from test_tgsi_compute import comp


def race(body: str, decls: str = "DCL BUFFER[0]\n", size=(4, 1, 1), groups=(1, 1, 1),
         imm: str = "") -> str | None:
    src = comp(body, decls, size)
    if imm:
        src = src.replace("IMM[0] UINT32 {0, 1, 2, 4}\n", "IMM[0] UINT32 {0, 1, 2, 4}\n" + imm)
    prog = api.parse(src)
    buffers = {0: np.zeros(64, np.uint32)} if "BUFFER[0]" in decls else None
    res = execute_compute(prog, groups, buffers=buffers)
    return res.race


OWN_WORD = "UMUL TEMP[0].x, SV[0].xxxx, IMM[0].wwww\n"           # byte offset 4 * thread


def test_each_invocation_its_own_word_is_no_race():
    assert race(OWN_WORD + "STORE BUFFER[0].x, TEMP[0].xxxx, SV[0].xxxx\n"
                "LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx\n") is None


def test_different_values_to_one_word_race():
    assert race("STORE BUFFER[0].x, IMM[0].xxxx, SV[0].xxxx\n") == (
        "BUFFER0 location 0: invocations 0 and 1 store different values with no BARRIER "
        "between")


def test_the_same_value_to_one_word_is_no_race():
    # every order leaves the one value
    assert race("STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].yyyy\n") is None


def test_a_load_of_another_invocations_store_needs_a_barrier():
    exchange = (OWN_WORD + "STORE MEMORY[0].x, TEMP[0].xxxx, SV[0].xxxx\n{}"
                "UADD TEMP[1].x, TEMP[0].xxxx, IMM[0].wwww\nAND TEMP[1].x, TEMP[1].xxxx, "
                "IMM[1].xxxx\nLOAD TEMP[2].x, MEMORY[0], TEMP[1].xxxx\n")
    decls, imm = "DCL MEMORY[0], SHARED\n", "IMM[1] UINT32 {15, 0, 0, 0}\n"
    assert race(exchange.format("BARRIER\n"), decls, imm=imm) is None
    assert race(exchange.format(""), decls, imm=imm) == (
        "MEMORY0 location 1: invocation 0 loads what invocation 1 stored, with no BARRIER "
        "between")


def test_a_store_after_another_invocations_load_needs_a_barrier():
    # thread 1 loads word 0, then thread 0 (re)stores it: no barrier orders the two
    body = ("USEQ TEMP[1].x, SV[0].xxxx, IMM[0].yyyy\nUIF TEMP[1].xxxx\n"
            "LOAD TEMP[2].x, BUFFER[0], IMM[0].xxxx\nENDIF\n"
            "USEQ TEMP[1].x, SV[0].xxxx, IMM[0].xxxx\nUIF TEMP[1].xxxx\n"
            "{}STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].wwww\nENDIF\n")
    assert race(body.format("")) == ("BUFFER0 location 0: invocation 0 stores where "
                                     "invocation 1 loaded, with no BARRIER between")


def test_workgroups_never_order_their_accesses():
    # a BARRIER orders one workgroup's invocations only: two workgroups (one invocation each)
    # storing different values to word 0 race whatever barriers they pass
    body = "BARRIER\nSTORE BUFFER[0].x, IMM[0].xxxx, SV[1].xxxx\n"
    assert race(body, size=(1, 1, 1)) is None
    assert race(body, size=(1, 1, 1), groups=(2, 1, 1)) == (
        "BUFFER0 location 0: invocations 0 and 1 store different values with no BARRIER "
        "between")


def test_atomics_do_not_race_each_other_but_a_store_does():
    adds = "ATOMUADD TEMP[1].x, BUFFER[0], IMM[0].xxxx, IMM[0].yyyy\n"
    assert race(adds) is None
    assert race(adds + "USEQ TEMP[2].x, SV[0].xxxx, IMM[0].xxxx\nUIF TEMP[2].xxxx\n"
                "STORE BUFFER[0].x, IMM[0].xxxx, IMM[0].wwww\nENDIF\n") == (
        "BUFFER0 location 0: invocations 3 and 0 store after an atomic with no BARRIER "
        "between")
    # after a BARRIER every invocation sees the sum: loading it is no race
    assert race(adds + "BARRIER\nLOAD TEMP[2].x, BUFFER[0], IMM[0].xxxx\n") is None
    assert race(adds + "LOAD TEMP[2].x, BUFFER[0], IMM[0].xxxx\n") == (
        "BUFFER0 location 0: invocation 0 loads what invocation 3 stored, with no BARRIER "
        "between")


def test_image_texels_race_like_words():
    decls = "DCL IMAGE[0], 2D, PIPE_FORMAT_R32_UINT, WR\n"
    store = "STORE IMAGE[0], {}, SV[0].xxxx, 2D, PIPE_FORMAT_R32_UINT\n"
    assert race(store.format("SV[0].xyxy"), decls) is None          # texel (t, 0) each
    assert race(store.format("IMM[0].xxxx"), decls) == (
        "IMAGE0 location 0: invocations 0 and 1 store different values with no BARRIER "
        "between")


def test_the_compute_test_programs_are_race_free_on_verifys_grid():
    # verify dispatches 2 x 2 x 1 workgroups (gl_compute.GROUPS): a racy test program's
    # verdict depends on the implementation's order (ATOMICS numbered its blocks by x alone
    # and was flaky on lavapipe until this check named the race)
    from test_tgsi_compute import ATOMICS, EARLY_RETURN_BARRIER, IMAGE_ATOMICS, IMAGES, REDUCTION
    from xlate.verify.gl_compute import GROUPS
    for name, text in [("ATOMICS", ATOMICS), ("IMAGES", IMAGES), ("REDUCTION", REDUCTION),
                       ("IMAGE_ATOMICS", IMAGE_ATOMICS),
                       ("EARLY_RETURN_BARRIER", EARLY_RETURN_BARRIER)]:
        assert execute_compute(api.parse(text), GROUPS).race is None, name
