"""Builds the firmware's bignum/RSA sources for the host once per session and loads them (`bn`).

Compiled into build/test-firmware/ with -DBN_MAX_BITS=4096 -O2 and warnings as errors.
"""
import os
import shutil

import pytest

from bnlib import BUILD, BigNumLib, compile_host


@pytest.fixture(scope="session")
def bn():
    if shutil.which("gcc") is None:
        pytest.fail("host gcc not found")
    BUILD.mkdir(parents=True, exist_ok=True)
    # A private file name, so parallel sessions never load each other's half-written library.
    path = BUILD / f"libbignum-{os.getpid()}.so"
    compile_host(path)
    try:
        yield BigNumLib(path)
    finally:
        path.unlink(missing_ok=True)
