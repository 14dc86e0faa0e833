import shutil
import subprocess

import pytest
from amaranth.lib import data

from gateware.header import c_header
from gateware.interface import (Command, Status, Opcode, ErrorCode, PeripheralConfig, pack_cmd,
                                 WORD_BITS, NUM_SLOTS, NUM_HIDDEN_SLOTS, TOTAL_SLOTS, SLOT_FIELD_BITS, SLOT_BITS,
                                 ARG_BITS, SIZE_BITS, EXP_INDEX_BITS, WINDOW_BITS, FIXED_WINDOW_BITS, SQUARE_SLOT,
                                 LADDER_SLOT, MAX_BITS_DEFAULT, LANES_DEFAULT, FIRMWARE_SCHEMES, bus_words, table_slot,
                                 fixed_table_slot)


def test_command_layout():
    layout = data.Layout.cast(Command)
    assert layout.size == 32
    assert [(name, f.offset, f.width) for name, f in layout] == [
        ("op", 0, 4), ("dst", 4, 5), ("a", 9, 5), ("b", 14, 5), ("arg", 19, 13)]
    word = pack_cmd(Opcode.MUL, 3, 17, 31, 0x1fff)
    assert word == 4 | 3 << 4 | 17 << 9 | 31 << 14 | 0x1fff << 19
    with pytest.raises(ValueError):
        pack_cmd(Opcode.MUL, 32)


def test_status_layout():
    layout = data.Layout.cast(Status)
    assert layout.size == 32
    fields = {name: (f.offset, f.width) for name, f in layout}
    assert fields["busy"] == (0, 1) and fields["done"] == (1, 1) and fields["error"] == (8, 8)
    assert fields["equal"] == (2, 1)


def test_codes():
    # the firmware's and the tests' command words depend on these staying put: new ones only append
    assert [op.value for op in Opcode] == list(range(15))
    assert Opcode.EXP_FIXED.value == 7 and Opcode.MUL_PAIR.value == 8 and Opcode.EXP_FIXED_PAIR.value == 9
    assert Opcode.CLEAR.value == 10
    assert (Opcode.COPY.value, Opcode.ADD.value, Opcode.SUB.value, Opcode.EQUAL.value) == (11, 12, 13, 14)
    assert ErrorCode.OVERFLOW.value == 9 and ErrorCode.ALIAS.value == 8 and ErrorCode.BAD_BANK.value == 10
    assert WORD_BITS in (16, 32, 64)
    assert NUM_SLOTS >= 16
    assert PeripheralConfig().max_bits == MAX_BITS_DEFAULT == 4096


def test_one_default_configuration():
    # the SoC's: the names of the default's fields are the dataclass's defaults, not a second default
    assert PeripheralConfig() == PeripheralConfig(max_bits=4096, lanes=32, word_bits=32)
    assert (PeripheralConfig().word_bits, PeripheralConfig().lanes) == (WORD_BITS, LANES_DEFAULT)
    assert bus_words(3) == PeripheralConfig().bus_words(3) == 3


def test_config_validation():
    with pytest.raises(ValueError):
        PeripheralConfig(lanes=3)
    with pytest.raises(ValueError):
        PeripheralConfig(max_bits=100)
    # the size of a SETMOD must fit the command's arg field
    PeripheralConfig(max_bits=WORD_BITS * ((1 << SIZE_BITS) - 2) // 32 * 32)
    with pytest.raises(ValueError):
        PeripheralConfig(max_bits=WORD_BITS * (1 << SIZE_BITS))


def test_slot_plan_and_widths():
    layout = {name: f.width for name, f in data.Layout.cast(Command)}
    assert layout["dst"] == layout["a"] == layout["b"] == SLOT_FIELD_BITS == 5
    assert layout["arg"] == ARG_BITS == SIZE_BITS
    # a command names user slots, and one past them is still a slot number it can carry (BAD_SLOT)
    assert NUM_SLOTS < 1 << SLOT_FIELD_BITS
    assert TOTAL_SLOTS == NUM_SLOTS + NUM_HIDDEN_SLOTS <= 1 << SLOT_BITS
    # the window table (odd digits 3 .. 2^K - 1) and the square are distinct hidden slots
    table = [table_slot(digit) for digit in range(3, 1 << WINDOW_BITS, 2)]
    hidden = set(range(NUM_SLOTS, TOTAL_SLOTS))
    assert len(set(table + [SQUARE_SLOT])) == len(table) + 1
    assert set(table + [SQUARE_SLOT, LADDER_SLOT]) <= hidden
    # the fixed-window table: a distinct hidden slot for every digit but 1 (the base's own slot)
    fixed = [fixed_table_slot(digit) for digit in range(1 << FIXED_WINDOW_BITS) if digit != 1]
    assert len(set(fixed)) == len(fixed) == 2 ** FIXED_WINDOW_BITS - 1 and set(fixed) <= hidden
    # a bit index stepped up to WINDOW_BITS below 0 wraps to at least any exponent length (read as 0)
    assert (1 << EXP_INDEX_BITS) - WINDOW_BITS >= 1 << ARG_BITS
    config = PeripheralConfig(max_bits=512, lanes=8, word_bits=16)
    assert config.row_bits == 8 * 16 and config.operand_rows == TOTAL_SLOTS * 4
    assert config.total_slots == TOTAL_SLOTS


def test_c_header_compiles(tmp_path):
    header = c_header(PeripheralConfig(word_bits=16, lanes=64))
    assert "#define MONTMUL_OP_MUL 4" in header
    assert "#define MONTMUL_WORD_BITS 16" in header
    assert "#define MONTMUL_NUM_SLOTS 16" in header
    assert "#define MONTMUL_MAX_BITS 4096" in header
    assert "#define MONTMUL_ERR_OVERFLOW 9" in header
    assert "#define MONTMUL_OP_EXP_FIXED 7" in header
    assert f"#define MONTMUL_FIXED_WINDOW_BITS {FIXED_WINDOW_BITS}" in header
    for op in ("COPY 11", "ADD 12", "SUB 13", "EQUAL 14"):
        assert f"#define MONTMUL_OP_{op}\n" in header
    assert "#define MONTMUL_STATUS_EQUAL (1u << 2)\n" in header
    # the command fields the firmware packs with did not grow with the hidden slots
    assert "#define MONTMUL_CMD_DST_MASK 0x1fu" in header and "#define MONTMUL_CMD_ARG_SHIFT 19" in header
    (tmp_path / "montmul.h").write_text(header)
    (tmp_path / "main.c").write_text(
        '#include <stdio.h>\n#include "montmul.h"\n'
        'int main(void) { printf("%u %u\\n", (unsigned)montmul_cmd(MONTMUL_OP_MUL, 3, 17, 31, 0x1fff), '
        '(unsigned)montmul_cmd(MONTMUL_OP_EXP_FIXED, 3, 1, 2, 1024)); return 0; }\n')
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a host C compiler is needed"
    subprocess.run([cc, "-std=c99", "-Wall", "-Werror", "-o", str(tmp_path / "main"), str(tmp_path / "main.c")],
                   check=True)
    out = subprocess.run([str(tmp_path / "main")], check=True, capture_output=True, text=True).stdout
    assert [int(word) for word in out.split()] == [pack_cmd(Opcode.MUL, 3, 17, 31, 0x1fff),
                                                   pack_cmd(Opcode.EXP_FIXED, 3, 1, 2, 1024)]


def test_the_firmware_s_schemes_in_the_header_and_the_protocol():
    """The schemes the firmware runs (ExponentScheme.impl), constant-time first: the header's X macro
    and the console protocol's implementations list them in that order, as the firmware's table has
    them (sw and hw_cpu before them)."""
    from soc import console_protocol as protocol
    assert [scheme.impl for scheme in FIRMWARE_SCHEMES] == ["hw_seq", "hw_seq_window"]
    assert ("#define MONTMUL_SCHEME_IMPLS(X) X(hw_seq, HW_SEQ, MONTMUL_OP_EXP_FIXED, MONTMUL_OP_EXP_FIXED_PAIR, 1) "
            "X(hw_seq_window, HW_SEQ_WINDOW, MONTMUL_OP_EXP_WINDOW, MONTMUL_OP_NOP, 0)\n") in c_header()
    assert list(protocol.IMPLS) == ["sw", "hw_cpu", "hw_seq", "hw_seq_window"]
    assert protocol.CONSTANT_TIME_IMPLS == ("sw", "hw_cpu", "hw_seq")
    assert protocol.PERIPHERAL_IMPLS == ("hw_cpu", "hw_seq", "hw_seq_window")


def test_the_contract_s_page_lists_every_opcode():
    """docs/peripheral.md's opcode table has a row per opcode (a new scheme adds its own)."""
    from common.paths import ROOT
    text = (ROOT / "docs" / "peripheral.md").read_text()
    assert all(f"\n| {op.name} |" in text for op in Opcode)
