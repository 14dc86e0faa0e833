"""The bignum/RSA sources build for the softcore (rv32im, freestanding) warning-free and self-contained."""
import os
import re
import shutil
import subprocess

import pytest

from bnlib import BUILD, FIRMWARE, SOURCES

RV_GCC = "riscv64-unknown-elf-gcc"
RV_FLAGS = ["-march=rv32im", "-mabi=ilp32", "-O2", "-ffreestanding", "-nostdlib", "-Wall", "-Wextra"]


def rv_tool(name):
    path = shutil.which(f"riscv64-unknown-elf-{name}")
    if path is None:   # a missing toolchain is a failure, not a skip
        pytest.fail(f"riscv64-unknown-elf-{name} not found (Debian package gcc-riscv64-unknown-elf)")
    return path


def compile_rv32(source, max_bits, extra=()):
    # a directory per pytest-xdist worker: two workers compiling the same source (with other flags, or
    # one reading the object the other is writing) never share a file
    out_dir = BUILD / f"rv32-{max_bits}" / os.environ.get("PYTEST_XDIST_WORKER", "main")
    out_dir.mkdir(parents=True, exist_ok=True)
    obj = out_dir / source.replace(".c", ".o").replace("/", "_")
    cmd = [rv_tool("gcc"), *RV_FLAGS, f"-I{FIRMWARE}", f"-DBN_MAX_BITS={max_bits}", *extra, "-c",
           str(FIRMWARE / source), "-o", str(obj)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    return result, obj


@pytest.mark.parametrize("max_bits", [4096, 2048])
@pytest.mark.parametrize("source", SOURCES)
def test_rv32_compiles_warning_free(source, max_bits):
    result, _ = compile_rv32(source, max_bits)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def undefined_symbols(obj):
    out = subprocess.run([rv_tool("nm"), "-u", str(obj)], capture_output=True, text=True, check=True)
    return {line.split()[-1] for line in out.stdout.splitlines() if line.strip()}


def test_rv32_objects_need_no_library():
    """No libgcc helpers (64-bit division, shifts, clz) and no libc: only our own symbols."""
    objs = {}
    for source in SOURCES:
        result, objs[source] = compile_rv32(source, 4096)
        assert result.returncode == 0, result.stderr
    assert undefined_symbols(objs["bignum/bignum.c"]) == set()
    header = (FIRMWARE / "bignum" / "bignum.h").read_text()
    for source in ("rsa/rsa.c", "rsa/rsa_sw.c", "bignum/gcd.c", "bignum/divexact.c"):
        for sym in undefined_symbols(objs[source]):
            assert re.search(rf"\b{sym}\(", header), f"{source} needs {sym}, not from bignum.h"


def test_rv32_uses_hardware_multiply():
    result, obj = compile_rv32("bignum/bignum.c", 4096)
    assert result.returncode == 0, result.stderr
    dis = subprocess.run([rv_tool("objdump"), "-d", str(obj)], capture_output=True, text=True, check=True)
    assert re.search(r"\bmulhu\b", dis.stdout) and re.search(r"\bmul\b", dis.stdout)


def test_rv32_memory_budget():
    """Stack frames and static data at BN_MAX_BITS=4096 fit the firmware's 32-48 KiB of RAM.

    The deepest chain (rsa_private_crt -> mont_exp_fixed_m -> mont_sqr -> redc) stays well under
    4 KiB of stack; the static buffers (window table and CRT intermediates) under 12 KiB."""
    frames = {}
    for source in SOURCES:
        result, obj = compile_rv32(source, 4096, extra=["-fstack-usage"])
        assert result.returncode == 0, result.stderr
        for line in obj.with_suffix(".su").read_text().splitlines():
            where, size, kind = line.rsplit(None, 2)
            frames[where.rsplit(":", 1)[-1]] = (int(size), kind)
        size_out = subprocess.run([rv_tool("size"), str(obj)], capture_output=True, text=True, check=True)
        text, data, bss = (int(x) for x in size_out.stdout.splitlines()[1].split()[:3])
        assert data == 0
        assert bss <= 12 * 1024, (source, bss)
    assert all(kind == "static" for _, kind in frames.values()), frames
    assert max(size for size, _ in frames.values()) <= 2200, frames
    chain = ["rsa_private_crt", "mont_exp_fixed_m", "mont_sqr"]
    assert sum(frames[f][0] for f in chain if f in frames) <= 4096, frames


def test_max_bits_is_required():
    result, _ = compile_rv32("bignum/bignum.c", 4096, extra=["-UBN_MAX_BITS"])
    assert result.returncode != 0 and "BN_MAX_BITS must be defined" in result.stderr
    result, _ = compile_rv32("bignum/bignum.c", 4096, extra=["-UBN_MAX_BITS", "-DBN_MAX_BITS=1000"])
    assert result.returncode != 0 and "multiple of 64" in result.stderr


@pytest.mark.parametrize("source", SOURCES)
def test_rv32_compiles_with_litex_firmware_flags(source):
    """The flags LiteX's common.mak adds for C (plus firmware/Makefile's -O2) stay warning-free."""
    litex = ["-Os", "-g3", "-fomit-frame-pointer", "-fno-builtin", "-fno-stack-protector", "-flto",
             "-Wstrict-prototypes", "-Wold-style-definition", "-Wmissing-prototypes", "-O2"]
    result, _ = compile_rv32(source, 4096, extra=litex)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_bignum_parts_build_as_one_unit_or_on_their_own():
    """The files under firmware/bignum/ besides bignum.c are either layers of the one translation unit
    bignum.c (see its comment: it includes each once, and they are no source of their own) or key
    generation's primitives, each an object of its own (firmware/Makefile's BIGNUM_OBJECTS,
    bn_<name>.o; the host tests compile them too). Never both, and none is left out."""
    text = (FIRMWARE / "bignum" / "bignum.c").read_text()
    makefile = (FIRMWARE / "Makefile").read_text()
    [own] = re.findall(r"^BIGNUM_OBJECTS\s*:=(.*)$", makefile, re.M)
    own = {name.removeprefix("bn_").removesuffix(".o") + ".c" for name in own.split()}
    parts = sorted(path.name for path in (FIRMWARE / "bignum").glob("*.c") if path.name != "bignum.c")
    assert parts and own
    for name in parts:
        included = text.count(f'#include "bignum/{name}"')
        if name in own:
            assert included == 0 and f"bignum/{name}" in SOURCES, name
        else:
            assert included == 1 and f"bignum/{name}" not in SOURCES, name
    assert own <= set(parts)
    # The Makefile takes bignum.c alone from bignum/, and every .c file of its other folders.
    [sources] = re.findall(r"^SOURCES\s*:=(.*)$", makefile, re.M)
    assert sources.split()[0] == "bignum.c" and "$(filter-out bignum,$(FOLDERS))" in sources


def test_the_makefile_takes_every_folder():
    """firmware/Makefile's FOLDERS are firmware/'s folders, each holding sources: a new folder's files
    are compiled, and so are those of every folder named."""
    makefile = (FIRMWARE / "Makefile").read_text()
    [folders] = re.findall(r"^FOLDERS\s*:=(.*)$", makefile, re.M)
    assert sorted(folders.split()) == sorted(path.name for path in FIRMWARE.iterdir() if path.is_dir())
    assert all(list((FIRMWARE / name).glob("*.c")) for name in folders.split())
