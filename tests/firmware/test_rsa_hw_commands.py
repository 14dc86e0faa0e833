"""gateware/tools/report.py's `crt_commands` against the firmware: the peripheral commands of one RSA private
operation with CRT on the sequencer backend (`rsa_private_crt` over `rsa_hw_seq`), recorded.

firmware/rsa/rsa_hw.c, rsa.c, bignum.c and the driver montmul_drv.c are built for the host against a
recording stand-in of the peripheral's CSRs (montmul_recorder.c, host_litex/), with the command
encoding generated for each peripheral configuration (gateware.header.c_header). The compute
commands the operation issues, each with the modulus size it runs at, must be the ones
`crt_commands` lists for the sweep's estimate (`crt_cycles`), command for command, at several key
sizes, with the pair commands and without. The Python list is kept for its descriptions; this test
is what keeps it the firmware's.
"""
import collections
import ctypes
import os
import shutil
import subprocess

import pytest
from amaranth.lib import data

from bnlib import (BN_MAX_BITS, FIRMWARE, LAYOUT_SOURCE, BigNumLib, c_layout, key_numbers, layout_mismatches,
                   limbs, mirror_layout, words_for)
from gateware.tools.report import crt_commands, crt_pairs
from gateware import model
from gateware.header import c_header
from gateware.interface import Command, Opcode, PeripheralConfig, pack_cmd

HERE = os.path.dirname(os.path.abspath(__file__))
#: The firmware's sources of an RSA operation on the peripheral (rsa_sw.c is not needed).
SOURCES = ["bignum/bignum.c", "bignum/gcd.c", "bignum/divexact.c", "rsa/rsa.c", "rsa/rsa_hw.c",
           "drivers/montmul_drv.c", "drivers/montmul_wipe.c"]
#: montmul_recorder.c's log: entry kinds and size.
RECORD_CMD, RECORD_WDATA, RECORD_RDATA = 0, 1, 2
RECORD_MAX = 65536

COMMAND = data.Layout.cast(Command)

#: The word width of every configuration here.
W = 16
#: A peripheral a 1024-bit row wide, as the default is.
WIDE = PeripheralConfig(word_bits=W, lanes=64)
#: (configuration, key bits): WIDE (pairs up to 1024-bit factors, so RSA-512 to RSA-2048 run their
#: halves at once and RSA-4096 does not), one without pair commands, and a small one whose pairs stop at
#: 256-bit factors.
CASES = ([(WIDE, bits) for bits in (512, 1024, 2048, 4096)]
         + [(PeripheralConfig(word_bits=W, lanes=256), 2048),
            (PeripheralConfig(max_bits=2048, lanes=16, word_bits=W), 512),
            (PeripheralConfig(max_bits=2048, lanes=16, word_bits=W), 1024)])


def build_recorder(config, path):
    """The firmware's RSA on the peripheral for `config`, over the recorder, as a shared library."""
    generated = path.parent / f"{path.stem}-generated"
    generated.mkdir(parents=True, exist_ok=True)
    (generated / "montmul.h").write_text(c_header(config))
    cmd = ["gcc", "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", f"-DBN_MAX_BITS={BN_MAX_BITS}",
           f"-I{FIRMWARE}", f"-I{generated}", f"-I{os.path.join(HERE, 'host_litex')}", "-o", str(path),
           *(str(FIRMWARE / s) for s in SOURCES), os.path.join(HERE, "montmul_recorder.c"), str(LAYOUT_SOURCE)]
    result = subprocess.run(cmd, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def recorders(tmp_path_factory):
    """{configuration: BigNumLib over the recorder}, built when first asked for."""
    if shutil.which("gcc") is None:
        pytest.fail("host gcc not found")
    directory = tmp_path_factory.mktemp("recorder")
    built = {}

    def get(config):
        if config not in built:
            path = directory / f"librecorder-{config.lanes}-{config.max_bits}.so"
            build_recorder(config, path)
            lib = BigNumLib(path)
            mismatches = layout_mismatches(c_layout(lib.lib), mirror_layout())
            assert not mismatches, f"bnlib's ctypes structures differ from the C layout: {mismatches}"
            built[config] = lib
        return built[config]
    return get


def record_private_crt(lib, bits):
    """The log of one `rsa_private_crt` over `rsa_hw_seq` with a `bits`-bit key, nothing loaded
    before (as the benchmark times it): [(kind, word), ...]."""
    n, e, d, p, q, dp, dq, qinv = key_numbers(bits)
    key = lib.rsa_key(n, e, d, p, q, dp, dq, qinv)
    rc, ctx = lib.rsa_ctx(key)
    assert rc == 0
    words = words_for(bits)
    out = (ctypes.c_uint32 * words)()
    c = lib.lib
    c.rsa_hw_forget()
    c.record_clear()
    backend = ctypes.addressof(ctypes.c_void_p.in_dll(c, "rsa_hw_seq"))
    rc = c.rsa_private_crt(backend, ctypes.byref(key), ctypes.byref(ctx), out, limbs(pow(7, 1000, n), words))
    # The stand-in reads zeros, so the result fails rsa.c's check with e: the whole sequence ran.
    assert rc == -3, "RSA_ERR_FAULT expected"
    assert not ctypes.c_int.in_dll(c, "record_overflow").value
    length = ctypes.c_uint.in_dll(c, "record_len").value
    kinds = (ctypes.c_uint32 * RECORD_MAX).in_dll(c, "record_kind")
    values = (ctypes.c_uint32 * RECORD_MAX).in_dll(c, "record_value")
    return [(kinds[i], values[i]) for i in range(length)]


def issued_commands(log):
    """The compute commands of a log, in issue order, as (op, modulus bits, exponent bits, exponent,
    a_words): SETMOD's bits are its own size; the others run at bank 0's modulus (a pair command's
    bank 1 must have the same size, the only case crt_commands describes). Transfers (WRITE, READ)
    are left out, as crt_commands leaves them; what was written to each slot gives an exponent's
    value."""
    slots, bank_bits, issued = {}, {}, []
    i = 0
    while i < len(log):
        kind, word = log[i]
        assert kind == RECORD_CMD, f"entry {i}: a data word outside a transfer"
        command = COMMAND.from_bits(word)
        op = Opcode(command.op)
        i += 1
        transferred = []
        while i < len(log) and log[i][0] != RECORD_CMD:
            assert log[i][0] == (RECORD_WDATA if op == Opcode.WRITE else RECORD_RDATA), (i, op)
            transferred.append(log[i][1])
            i += 1
        if op == Opcode.WRITE:
            slots[command.dst] = transferred
            continue
        if op == Opcode.READ:
            continue
        assert not transferred, (op, transferred)
        if op == Opcode.SETMOD:
            bank_bits[command.dst] = command.arg * W
            issued.append(("SETMOD", command.arg * W, None, None, 0))
            continue
        if op == Opcode.COPY:
            issued.append(("COPY", bank_bits[command.arg], None, None, 0))
            continue
        bits = bank_bits[0]
        if op in (Opcode.ADD, Opcode.SUB, Opcode.EQUAL):
            issued.append((op.name, bits, None, None, 0))
            continue
        if op in (Opcode.MUL_PAIR, Opcode.EXP_FIXED_PAIR):
            assert bank_bits[1] == bits, "factors of different sizes"
        if op in (Opcode.MUL, Opcode.MUL_PAIR):
            issued.append((op.name, bits, None, None, command.arg))
        else:
            exponent_words = slots[command.b]
            exponent = sum(w << (32 * k) for k, w in enumerate(exponent_words)) & ((1 << command.arg) - 1)
            issued.append((op.name, bits, command.arg, exponent, 0))
    return issued


def cost_key(op, bits, exponent_bits, exponent, a_words):
    """What a command's cycles depend on (the arguments gateware.tools.sweep gives the model): the exponent's
    value only for EXP_WINDOW, a MUL_PAIR's shared a as its size in words (0: the modulus')."""
    if op in ("SETMOD", "MUL", "ADD", "SUB", "EQUAL"):
        return op, bits
    if op == "COPY":
        return (op,)            # its cycles are the configuration's (gateware.model.copy_cycles)
    if op == "MUL_PAIR":
        return op, bits, a_words or model.size_words(bits, W)
    return op, bits, exponent_bits, exponent if op == "EXP_WINDOW" else None


@pytest.mark.parametrize("config, bits", CASES,
                         ids=[f"lanes{c.lanes}-max{c.max_bits}-rsa{bits}" for c, bits in CASES])
def test_crt_commands_are_the_firmwares(recorders, config, bits):
    recorded = collections.Counter(cost_key(*command) for command in issued_commands(
        record_private_crt(recorders(config), bits)))
    listed = collections.Counter()
    for command in crt_commands(bits, crt_pairs(config, bits), config.word_bits):
        listed[cost_key(command.op, command.bits, command.exponent_bits, command.exponent,
                        command.a_words)] += command.count
    assert recorded == listed, {"issued, not listed": dict(recorded - listed),
                                "listed, not issued": dict(listed - recorded)}


def test_the_recording_sees_every_transfer(recorders):
    """The log is complete: at RSA-2048 on WIDE, the one word read back is the signature (n's 64 limbs,
    once), which goes back in for the check with the input (64 limbs, twice), besides the moduli,
    constants and exponents: nothing else of the CRT leaves the peripheral."""
    log = record_private_crt(recorders(WIDE), 2048)
    commands = [(i, COMMAND.from_bits(word)) for i, (kind, word) in enumerate(log) if kind == RECORD_CMD]
    ops = [Opcode(command.op) for _, command in commands]
    assert ops.count(Opcode.SETMOD) == 3 and Opcode.EXP_FIXED_PAIR in ops
    lengths = [(b - a - 1) for (a, _), (b, _) in zip(commands, commands[1:] + [(len(log), None)])]
    writes = [n for op, n in zip(ops, lengths) if op == Opcode.WRITE]
    reads = [n for op, n in zip(ops, lengths) if op == Opcode.READ]
    assert writes.count(64) >= 3
    assert reads == [64]


def test_montmul_wipe_issues_clear(recorders):
    """The driver's montmul_wipe() (drivers/montmul_wipe.c) is one CLEAR command, waited for: 0 from an
    idle peripheral without error."""
    c = recorders(WIDE).lib
    c.record_clear()
    assert c.montmul_wipe() == 0
    length = ctypes.c_uint.in_dll(c, "record_len").value
    kinds = (ctypes.c_uint32 * RECORD_MAX).in_dll(c, "record_kind")
    values = (ctypes.c_uint32 * RECORD_MAX).in_dll(c, "record_value")
    assert [(kinds[i], values[i]) for i in range(length)] == [(RECORD_CMD, pack_cmd(Opcode.CLEAR))]
