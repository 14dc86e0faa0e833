"""soc/cpus.py: the supported softcores, "type:variant" parsing, and one-line refusals."""
import pytest

from common.errors import ProjectError
from soc import config, cpus


def test_every_supported_cpu_is_in_litex_with_its_variant_and_isa():
    from litex.soc.cores.cpu import CPUS
    for cpu in cpus.supported():
        assert cpu.type in CPUS
        assert cpu.variant in CPUS[cpu.type].variants
        assert cpus.isa(cpu) in ("rv32i", "rv32im")


def test_the_default_set_is_supported_and_spans_three_families():
    chosen = cpus.parse_list("all")
    assert [c.name for c in chosen] == list(config.CPUS_ALL)
    assert set(chosen) <= set(cpus.supported())
    assert len({c.type for c in chosen}) >= 3
    assert {cpus.isa(c) for c in chosen} == {"rv32i", "rv32im"}      # with and without a multiplier


def test_parse_bare_types_and_variants():
    assert cpus.parse("serv") == cpus.Cpu("serv", "standard")
    assert cpus.parse("vexriscv") == cpus.default() == cpus.Cpu(config.CPU_TYPE, config.CPU_VARIANT)
    assert cpus.parse("PicoRV32:minimal").name == "picorv32:minimal"
    assert cpus.parse("vexriscv", variant="lite").name == "vexriscv:lite"
    assert [c.name for c in cpus.parse_list("serv, vexriscv:minimal,serv:standard")] == \
        ["serv:standard", "vexriscv:minimal"]


@pytest.mark.parametrize("text, words", [
    ("microblaze", "Vivado"),
    ("rocket", "unknown CPU type"),
    ("vexriscv:huge", "unknown variant 'huge' of vexriscv"),
    ("serv:minimal", "unknown variant 'minimal' of serv; supported: standard"),
    ("serv:mdu", "downloads SERV's multiply/divide unit"),
])
def test_unsupported_cpus_get_one_line(text, words):
    with pytest.raises(ProjectError) as error:
        cpus.parse_list(text)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_missing_sources_are_one_line(monkeypatch):
    monkeypatch.setitem(config.CPU_PACKAGES, "serv", "pythondata-cpu-not-installed")
    with pytest.raises(ProjectError, match="pythondata-cpu-not-installed"):
        cpus.require_sources(cpus.parse("serv"))
    cpus.require_sources(cpus.parse("vexriscv:minimal"))         # installed: no error
