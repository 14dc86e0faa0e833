"""`python -m sim sha256-vectors` (jobs/sha256_vectors.py) without a SoC or the RTL: the response files'
parsing, the Monte Carlo test's definition against NIST's checkpoints (hashlib as the hash), the device's
lines checked and counted, the report and its verdict, and the command line."""

import hashlib
import json

import pytest

from common.errors import ProjectError
from jobs import cli
from jobs import sha256_vectors as job
from sim import build as sim_build
from soc import console_protocol as protocol

SHORT_TEXT = """#  CAVS 11.0
#  "SHA-256 ShortMsg" information

[L = 32]

Len = 0
Msg = 00
MD = e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855

Len = 24
Msg = 616263
MD = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
"""


def _sha256(data):
    return hashlib.sha256(data).digest()


def test_a_message_file_parses_to_messages_and_digests():
    assert job.parse_messages(SHORT_TEXT) == [(b"", _sha256(b"")), (b"abc", _sha256(b"abc"))]
    with pytest.raises(ProjectError, match="whole bytes"):
        job.parse_messages("Len = 3\nMsg = 80\nMD = 00\n")


def test_the_monte_carlo_definition_gives_nists_first_checkpoints():
    seed, checkpoints = job.monte_carlo_vectors()
    assert len(seed) == protocol.HASH_MCT_SEED_BYTES and len(checkpoints) == protocol.HASH_MCT_CHECKPOINTS
    assert job.monte_carlo(seed, 2, _sha256) == checkpoints[:2]


def test_padding_makes_whole_blocks():
    for length in (0, 55, 56, 64, 119, 120):
        blocks = job.message_blocks(bytes(length))
        assert len(blocks) == (length + 9 + 63) // 64 and all(len(block) == 16 for block in blocks)
        assert blocks[-1][-1] == 8 * length


def _line(impl, checkpoint, digest, cycles=1000):
    return f"hash_mct impl={impl} checkpoint={checkpoint} cycles={cycles} digest={digest.hex()}"


def test_the_devices_lines_are_checked_against_the_file():
    expected = [bytes([i]) * 32 for i in range(3)]
    good = job.checkpoint_rows("hw", [_line("hw", i, expected[i], 2000 + i) for i in range(3)], expected)
    assert (good["checkpoints"], good["passed"], good["failed_checkpoints"], good["error"]) == (3, 3, [], None)
    assert good["in_order"] and good["cycles"] == [2000, 2001, 2002] and good["cycles_per_hash"] == 2
    lines = [_line("sw", 0, expected[0]), _line("sw", 1, bytes(32)), f"{protocol.Error.HASH_ENGINE.prefix} err=-1"]
    bad = job.checkpoint_rows("sw", lines, expected)
    assert (bad["checkpoints"], bad["passed"], bad["failed_checkpoints"]) == (2, 1, [1])
    assert bad["error"].startswith("error=hash_engine")


class _Console:
    """Answers `hash_mct` with NIST's checkpoints, or a wrong one at `wrong`."""

    def __init__(self, wrong=None):
        self.wrong, self.lines = wrong, []

    def command_lines(self, line):
        self.lines.append(line)
        _, impl, seed, last = line.split()
        checkpoints = job.monte_carlo(bytes.fromhex(seed), int(last) + 1, _sha256)
        for index, digest in enumerate(checkpoints):
            yield _line(impl, index, bytes(32) if index == self.wrong else digest)


def test_a_run_passes_only_with_every_checkpoint_asked_for():
    console = _Console()
    row = job.run_monte_carlo(console, "hw", 2)
    seed = job.monte_carlo_vectors()[0]
    assert console.lines == [f"hash_mct hw {seed.hex()} 1"] and row["ok"] and row["passed"] == 2
    assert not job.run_monte_carlo(_Console(wrong=1), "sw", 2)["ok"]


def _rtl_row(vectors, passed):
    return {"file": "SHA256ShortMsg.rsp", "vectors": vectors, "passed": passed, "failed_bytes": [3] * (vectors - passed),
            "blocks": 74, "seconds": 0.9}


def test_the_report_and_its_verdict():
    rows = [job.run_monte_carlo(_Console(), "hw", 1), job.run_monte_carlo(_Console(wrong=0), "sw", 1)]
    soc = {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100e6}
    good = job.make_report({"short": _rtl_row(65, 65)}, rows[:1], command="c", soc=soc, seconds=1)
    assert good["passed"] and "agrees with NIST's" in job.markdown(good)
    job.check(good)
    bad = job.make_report({"short": _rtl_row(65, 64)}, rows, command="c", soc=soc, seconds=1)
    assert not bad["passed"] and "| sw | 1 of 1 | 0 |" in job.markdown(bad)
    with pytest.raises(ProjectError, match="SHA256ShortMsg.rsp: 1 of 65; Monte Carlo on sw: 0 of 1"):
        job.check(bad)


def test_the_command_line(monkeypatch, tmp_path, capsys):
    args = cli.parse(["sha256-vectors", "--impls", "sw,hw", "--checkpoints", "3"])
    assert args.impls == ["sw", "hw"] and args.checkpoints == 3 and args.timeout == 7200
    assert cli.parse(["sha256-vectors"]).checkpoints == protocol.HASH_MCT_CHECKPOINTS
    assert cli.main(["sha256-vectors", "--checkpoints", "101"]) == 2
    assert capsys.readouterr().err.startswith("error: python -m sim sha256-vectors: --checkpoints: the Monte Carlo")
    # no checkpoints: the RTL sets only (stood in for here), no SoC built
    monkeypatch.setattr(sim_build, "build", lambda *a, **k: pytest.fail("a simulation was built"))
    monkeypatch.setattr(job, "rtl_set", lambda name: _rtl_row(65, 65))
    assert cli.main(["sha256-vectors", "--checkpoints", "0", "--out", str(tmp_path), "--quiet"]) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["passed"] and report["monte_carlo"] == [] and set(report["rtl"]) == set(job.MESSAGE_SETS)
    assert (tmp_path / "report.md").read_text() == job.markdown(report)
