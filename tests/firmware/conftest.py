"""Builds the firmware's bignum/RSA sources for the host once per session and loads them (`bn`).

Compiled into build/test-firmware/ with -DBN_MAX_BITS=4096 -O2 and warnings as errors; the ctypes
mirrors of the C structures are checked against the compiler's layout before any test uses them.
"""
import os
import shutil

import pytest

from bnlib import BUILD, BigNumLib, c_layout, compile_host, layout_mismatches, mirror_layout


@pytest.fixture(scope="session")
def bn():
    if shutil.which("gcc") is None:
        pytest.fail("host gcc not found")
    BUILD.mkdir(parents=True, exist_ok=True)
    # A private file name, so parallel sessions never load each other's half-written library.
    path = BUILD / f"libbignum-{os.getpid()}.so"
    compile_host(path)
    try:
        lib = BigNumLib(path)
        mismatches = layout_mismatches(c_layout(lib.lib), mirror_layout())
        if mismatches:
            pytest.fail(f"bnlib's ctypes structures differ from the C layout (C, ctypes): {mismatches}")
        yield lib
    finally:
        path.unlink(missing_ok=True)


@pytest.fixture(scope="session")
def bn_soft():
    """The same sources built with BN_SOFT_MUL: every 32x32 product through firmware/bignum/mul32.h's
    routine for CPUs without a multiplier (rv32i), here checked on the host."""
    if shutil.which("gcc") is None:
        pytest.fail("host gcc not found")
    BUILD.mkdir(parents=True, exist_ok=True)
    path = BUILD / f"libbignum-soft-{os.getpid()}.so"
    compile_host(path, extra=["-DBN_SOFT_MUL"])
    try:
        yield BigNumLib(path)
    finally:
        path.unlink(missing_ok=True)
