"""The SHA-256 engine on the simulated SoC (soc/sha256.py, firmware/hash/): `hash sw` (BearSSL's software
SHA-256) and `hash hw` (the engine's BearSSL hash class) agree with hashlib on messages of none, one and
several blocks, and on a message fed n times over (`repeat=`), each hash timed, the engine's fewer cycles
than software's on a long message; whole blocks word-aligned in main RAM go to the engine by its DMA, unaligned ones
through its window (`shift`; which path a block takes is tests/firmware/test_sha256_hw.py's), the
cycles a block are the bench's; bad input gives one `error=` line and the console carries on. The
engine's CSRs sit at their pinned location and the others where they were without it; its window at its
pinned address."""

import hashlib
import random

import pytest

from soc import config
from soc.console_protocol import (HASH, HASH_IMPLS, HASH_MAX_BYTES, HASH_MAX_REPEAT, HASH_REPEAT_OPTION, Error,
                                  error_code, error_lines, hex_argument)
from soc.sha256 import WINDOW_BYTES

#: One worker: the module's tests share one boot.
pytestmark = pytest.mark.xdist_group("sha256_engine")

#: FIPS 180-4's examples (one block, two blocks) and the edges of the padding, then a long random message.
MESSAGES = [
    b"",
    b"abc",
    b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",     # 448 bits: two blocks
    bytes(range(55)), bytes(range(56)), bytes(range(64)),
    random.Random(20261129).randbytes(1000),
]
#: The CSR locations of the SoC before the engine (build/sim/csr.csv then): unchanged with it.
CSR_LOCATIONS = {"ctrl": 0, "identifier_mem": 1, "montmul": 2, "timer0": 3, "uart": 4,
                 "entropy": config.ENTROPY_CSR_LOCATION}
CSR_PAGE = 0x800
CSR_BASE = 0xf0000000


def _hash(con, impl, message, repeat=None, shift=0):
    """The HASH line of `hash`; `shift`: spaces more before the message, whose bytes the console decodes in
    place (so that many bytes further from its line's word-aligned start: 1 makes them unaligned)."""
    option = f" {HASH_REPEAT_OPTION}={repeat}" if repeat is not None else ""
    out = con.command(f"hash {impl} {' ' * shift}{hex_argument(message)}{option}")
    lines = HASH.parse_all(out)
    assert len(lines) == 1 and len(out.strip().splitlines()) == 1, out
    return lines[0]


@pytest.fixture(scope="module")
def hashes(shared_console):
    """{(impl, message index): HASH line} for every message on both implementations, interleaved."""
    return {(impl, i): _hash(shared_console, impl, message)
            for i, message in enumerate(MESSAGES) for impl in HASH_IMPLS}


@pytest.mark.parametrize("impl", list(HASH_IMPLS))
def test_hash_agrees_with_hashlib(hashes, impl):
    for i, message in enumerate(MESSAGES):
        line = hashes[impl, i]
        assert line["impl"] == impl and line["bytes"] == len(message)
        assert line["digest"] == hashlib.sha256(message).digest(), (impl, len(message))
        assert line["cycles"] > 0


def test_engine_takes_fewer_cycles_than_software_on_a_long_message(hashes):
    long = len(MESSAGES) - 1
    assert hashes["hw", long]["cycles"] < hashes["sw", long]["cycles"]


@pytest.mark.parametrize("impl", list(HASH_IMPLS))
@pytest.mark.parametrize("length, repeat, shift", [(1024, 16, 0), (1000, 3, 1), (0, HASH_MAX_REPEAT, 0),
                                                   (64, 1, 0), (192, 2, 3)])
def test_repeat_hashes_the_message_that_many_times(shared_console, impl, length, repeat, shift):
    message = random.Random(length).randbytes(length)
    line = _hash(shared_console, impl, message, repeat, shift)
    assert line["bytes"] == length * repeat
    assert line["digest"] == hashlib.sha256(message * repeat).digest(), (impl, length, repeat, shift)


@pytest.mark.parametrize("line, code", [
    pytest.param("hash hw 616263 repeat=0", Error.BAD_REPEAT, id="repeat_0"),
    pytest.param(f"hash sw 616263 repeat={HASH_MAX_REPEAT + 1}", Error.BAD_REPEAT, id="repeat_too_many"),
    pytest.param("hash hw 616263 repeat=x", Error.BAD_REPEAT, id="repeat_not_a_number"),
    pytest.param("hash hw 616263 repeat=", Error.BAD_REPEAT, id="repeat_empty"),
    pytest.param("hash hw 616263 times=2", Error.USAGE, id="unknown_option"),
    pytest.param("hash hw 616263 repeat=2 repeat=2", Error.USAGE, id="too_many_arguments"),
    pytest.param("hash md5 616263", Error.UNKNOWN_IMPL, id="unknown_impl"),
    pytest.param("hash hw 61626", Error.BAD_HEX, id="odd_digits"),
    pytest.param("hash sw zz", Error.BAD_HEX, id="not_hex"),
    pytest.param(f"hash hw {'00' * (HASH_MAX_BYTES + 1)}", Error.TOO_LARGE, id="too_long"),
    pytest.param("hash hw", Error.USAGE, id="no_message"),
])
def test_bad_input_gives_one_error_line_and_the_console_carries_on(shared_console, line, code):
    out = shared_console.command(line)
    errors = error_lines(out)
    assert len(errors) == 1 and len(out.strip().splitlines()) == 1, out
    assert error_code(errors[0]) == code
    assert _hash(shared_console, "hw", b"abc")["digest"] == hashlib.sha256(b"abc").digest()


def test_engine_csrs_are_pinned_and_the_others_keep_their_addresses(sim_soc):
    rows = [line.split(",") for line in (sim_soc.gateware_dir.parent / "csr.csv").read_text().splitlines()]
    bases = {row[1]: int(row[2], 16) for row in rows if row[0] == "csr_base"}
    expected = {**CSR_LOCATIONS, "sha256": config.SHA256_CSR_LOCATION}
    assert bases == {name: CSR_BASE + CSR_PAGE * location for name, location in expected.items()}
    regions = {row[1]: (int(row[2], 16), int(row[3]), row[4]) for row in rows if row[0] == "memory_region"}
    assert regions["sha256_window"] == (config.SHA256_WINDOW_BASE, WINDOW_BYTES, "io")


def test_the_idle_clock_gate_changes_no_count(sim_soc, shared_console):
    """The engine's clock stops while it idles and opens on a window access or a command: the same hashes
    (the window's stores and loads, BLOCKs streamed while it is busy, idle gaps between commands) take the
    same cycles with the model's plain clock."""
    from link.console import SimConsole
    from soc import sim_clock_gate

    message = random.Random(7).randbytes(1000)
    commands = [("hw", message, 3), ("hw", b"abc", None), ("sw", b"abc", None)]
    gated = [_hash(shared_console, *command) for command in commands]
    plain = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=300,
                       model_args=[sim_clock_gate.PLAIN_CLOCK_ARG])
    try:
        plain.wait_prompt()
        assert [_hash(plain, *command) for command in commands] == gated
    finally:
        plain.close()
    assert gated[0]["digest"] == hashlib.sha256(message * 3).digest()
