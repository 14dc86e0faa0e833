"""`python -m sim tls-bench` on the host (jobs/tls_bench.py): the rows it plans and the order it deals them
in, and the report it makes of made-up handshakes. The handshakes themselves, against the device's
server, are tests/jobs/test_tls.py's."""

import json

from jobs import cli, tls_bench
from soc import console_protocol as protocol

CLK_HZ = 100_000_000


def _handshake(bits, impl, suite, curve, cycles, rsa):
    parts = {part: 0 for part in protocol.TLS_PARTS}
    parts.update(rsa=rsa, other=cycles - rsa)
    return {"bits": bits, "impl": impl, "suite": suite, "curve": curve, "cycles": cycles, "io_wait": 7, **parts}


def test_the_rows_are_every_size_impl_variant_and_hash_the_costliest_first():
    args = cli.parse(["tls-bench", "--impls", "hw_seq,sw", "--sizes", "1024,2048"])
    assert args.hashes == ["hw", "sw"]
    rows = tls_bench._rows(args.sizes, args.impls, args.hashes)
    assert len(rows) == 2 * 2 * len(tls_bench.VARIANTS) * 2
    assert {(r.bits, r.impl, r.suite, r.curve, r.sha256) for r in rows} == {
        (bits, impl, suite, curve, sha256) for bits in (1024, 2048) for impl in ("hw_seq", "sw")
        for suite, curve in tls_bench.VARIANTS for sha256 in ("hw", "sw")}
    assert cli.parse(["tls-bench", "--hashes", "sw"]).hashes == ["sw"]
    rows = tls_bench._rows(args.sizes, args.impls)
    dealt = sorted(rows, key=tls_bench._cost, reverse=True)
    assert (dealt[0].bits, dealt[0].impl, dealt[0].curve) == (2048, "sw", "secp256r1")
    assert (dealt[-1].bits, dealt[-1].impl, dealt[-1].curve) == (1024, "hw_seq", "none")
    assert [r.peripheral for r in rows if r.impl == "sw"] == [False] * 6


def test_the_report_takes_medians_in_the_table_s_order(tmp_path):
    rsa_suite, ecdhe_suite = tls_bench.VARIANTS[0][0], tls_bench.VARIANTS[1][0]
    handshakes = [_handshake(2048, "sw", rsa_suite, "none", cycles, 60_000_000 + cycles % 10)
                  for cycles in (62_000_001, 62_000_005, 62_000_003)]
    handshakes += [_handshake(2048, "hw_seq", ecdhe_suite, "x25519", 11_000_000, 137_000),
                   {**_handshake(2048, "hw_seq", rsa_suite, "none", 3_300_000, 135_000), "sha256": "sw"},
                   {**_handshake(2048, "hw_seq", rsa_suite, "none", 1_700_000, 135_000), "sha256": "hw"}]
    rows = tls_bench.summarize(handshakes, CLK_HZ)
    assert [(r["impl"], r["curve"], r["sha256"]) for r in rows] == [
        ("hw_seq", "none", "hw"), ("hw_seq", "none", "sw"), ("sw", "none", "hw"), ("hw_seq", "x25519", "hw")]
    sw = rows[2]
    assert (sw["handshakes"], sw["cycles"], sw["cycles_min"], sw["cycles_max"]) == (3, 62_000_003, 62_000_001,
                                                                                    62_000_005)
    assert sw["parts"]["rsa"] == 60_000_003 and sw["per_second"] == 1.6
    report = {"date": "d", "command": "python -m sim tls-bench --impls hw_seq,sw --sizes 2048",
              "where": "the simulated SoC", "soc": {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": CLK_HZ},
              "handshakes_per_row": 3, "rows": rows, "handshakes": handshakes,
              "timing": {"seconds": 1.0, "simulations": []}}
    text = tls_bench.markdown(report)
    assert "`python -m sim tls-bench --impls hw_seq,sw --sizes 2048` on the simulated SoC" in text
    assert "| 2048 | RSA | none | sw | hw | 62,000,003 | 62,000,001 | 62,000,005 | 60,000,003 |" in text
    assert "| 2048 | RSA | none | hw_seq | sw | 3,300,000 |" in text
    tls_bench.write(report, tmp_path)
    assert json.loads((tmp_path / "report.json").read_text())["rows"][0]["impl"] == "hw_seq"
    assert (tmp_path / "report.md").read_text() == text and (tmp_path / "report.png").stat().st_size > 0
