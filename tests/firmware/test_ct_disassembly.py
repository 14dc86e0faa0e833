"""The helpers that claim constant time, as compiled: in the firmware image the simulated SoC runs, each has
no conditional branch but those of its loops and of choices on public values (sizes, indices, which backend,
a backend's error exit), counted here function by function with the reason. A branch the compiler makes out
of a secret comparison (as GCC does of a 64-bit `r >= d` on rv32) shows up as one more.

Key generation's helpers are kept out of line (keygen.c's CT_FUNCTION) so that each is seen on its own; the
bignum primitives it composes are functions of their own anyway. The check is seen to work on the code GCC
makes of the earlier div_64_32 (a 64-bit comparison), compiled with the firmware's flags."""

import re
import subprocess

import pytest

#: RV32's conditional branches, and the assembler's aliases objdump prints for them.
CONDITIONAL_BRANCHES = {"beq", "bne", "blt", "bge", "bltu", "bgeu", "beqz", "bnez", "blez", "bgez", "bltz", "bgtz",
                        "bgt", "ble", "bgtu", "bleu"}
#: What GCC appends to a function's name in a clone of it (a constant argument propagated, ...).
CLONE_SUFFIX = re.compile(r"\.(constprop|isra|part|cold)\.\d+$")

#: name -> (conditional branches, why each is there). Every branch counted is on a loop counter, a size
#: or another public value; a guard is a loop's test before its first pass (a count of 0), a latch its
#: test at the end of a pass.
CONSTANT_TIME = {
    # firmware/keygen/keygen.c
    "div_64_32": (1, "the latch of the loop over the quotient's 32 bits"),
    "times_2_32_mod": (7, "the pass over words + 1 limbs: its latch, and three choices on the index (c's limb or "
                          "0, a's limb below or 0, k's limb or the top); the two additions of c: the guard and "
                          "latch of their pass over the limbs, the latch of the two"),
    "double_mod": (3, "two passes over the limbs: the first's guard, both latches"),
    "candidate_one": (1, "the latch of the four Newton steps of c^-1 mod 2^32"),
    "candidate_rr": (4, "the doublings over the limbs (guard, latch), the latch of the five squarings and its "
                        "exit on a backend's error"),
    "half_of": (3, "the pass over the limbs (guard, latch) and the choice at the top limb (the index)"),
    "mr_verdict": (0, "straight-line: the comparisons are bn_cmp's"),
    "mod_e": (2, "the pass over the limbs (guard, latch)"),
    "inv_mod_e": (1, "the latch of the loop over e - 2's 16 bits"),
    "inv_e_mod": (0, "straight-line: the loops are bn_mul_limb_add's and bn_divexact_odd's"),
    "pretest": (13, "the passes over the candidates (one or two: guards, latches), the backend's path (pair "
                    "commands or not, the size they take), the one-candidate case, and the exits on a "
                    "backend's error"),
    # firmware/bignum: the primitives key generation composes, and the exponentiation's selections
    "bn_gcd_odd": (3, "the divsteps' rounds (a count fixed by the size) and the packing into limbs"),
    "bn_divexact_odd": (3, "the latch of the four Newton steps of d^-1 mod 2^32; the pass over the limbs "
                           "(guard, latch)"),
    "bn_mul_limb_add": (2, "the pass over the limbs (guard, latch)"),
    "bn_mul": (9, "the rows two at a time and the last one alone (the count is the size's), the inner "
                  "passes over the limbs"),
    "bn_cmp": (2, "the pass over the limbs (guard, latch)"),
    "bn_less_same": (2, "the pass over the limbs (guard, latch)"),
    "bn_add": (2, "the pass over the limbs (guard, latch)"),
    "bn_sub": (2, "the pass over the limbs (guard, latch)"),
    "cswap": (1, "the latch of the pass over the limbs"),
    "table_select": (5, "the passes over the entries and over each entry's limbs (guards, latches), and the "
                        "clearing of the result"),
}

#: div_64_32 as it was: branch-free in C, but GCC compiles its 64-bit comparison into branches on rv32.
OLD_DIV_64_32 = """
#include <stdint.h>
__attribute__((noinline)) uint32_t div_64_32(uint64_t n, uint32_t d)
{
	uint32_t q = 0;
	uint64_t r = n >> 32;

	for (int bit = 31; bit >= 0; bit--) {
		r = r << 1 | ((n >> bit) & 1);
		uint32_t fits = (uint32_t)0 - (uint32_t)(r >= d);
		r -= d & fits;
		q |= fits & (1u << bit);
	}
	return q;
}
"""


def functions(path):
    """{name: [(address, mnemonic, operands)]} of the code in the ELF file `path`, a clone under its
    function's name (an object's local labels, .L*, inside their function); a function split in pieces
    (two symbols, one name) fails the test."""
    out = subprocess.run(["riscv64-unknown-elf-objdump", "-d", "--no-show-raw-insn", str(path)], capture_output=True,
                         text=True, check=True).stdout
    found, body = {}, None
    for line in out.splitlines():
        if (symbol := re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)) and not symbol.group(1).startswith(".L"):
            name = CLONE_SUFFIX.sub("", symbol.group(1))
            assert name not in found or name not in CONSTANT_TIME, f"{name} is in the image twice: {symbol.group(1)}"
            body = found.setdefault(name, [])
        elif (insn := re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)) and body is not None:
            body.append((int(insn.group(1), 16), insn.group(2), insn.group(3)))
    return found


def branches(body):
    return [insn for insn in body if insn[1] in CONDITIONAL_BRANCHES]


def firmware_cflags(sim_soc):
    """The CPU flags the firmware is built with (LiteX's generated variables.mak), and the firmware's -O2."""
    variables = (sim_soc.build_dir / "software" / "include" / "generated" / "variables.mak").read_text()
    [cpu_flags] = re.findall(r"^CPUFLAGS=(.*)$", variables, re.M)
    return [*cpu_flags.split(), "-O2"]


@pytest.fixture(scope="module")
def image(sim_soc):
    return functions(sim_soc.build_dir / "software" / "firmware" / "firmware.elf")


def test_constant_time_helpers_branch_only_where_expected(image):
    found = {name: len(branches(image[name])) if name in image else "not in the image (inlined?)"
             for name in CONSTANT_TIME}
    assert found == {name: count for name, (count, _) in CONSTANT_TIME.items()}


def test_the_check_sees_a_compiled_64_bit_comparison(sim_soc, tmp_path):
    source, obj = tmp_path / "old_div.c", tmp_path / "old_div.o"
    source.write_text(OLD_DIV_64_32)
    subprocess.run(["riscv64-unknown-elf-gcc", *firmware_cflags(sim_soc), "-ffreestanding", "-c", str(source),
                    "-o", str(obj)], check=True, capture_output=True, text=True)
    old = branches(functions(obj)["div_64_32"])
    assert len(old) > CONSTANT_TIME["div_64_32"][0], old
