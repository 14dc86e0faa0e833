"""The console's code can change without moving what the timed regions touch (firmware/linker.ld.in).

Every timed region starts with both caches invalidated, and the caches are direct-mapped, so a
count is a function of the addresses of the code and data it touches. The firmware is built twice
here, from firmware/ and from a copy whose console code and data have grown (a `help` line, a
table line, a string buffer, an initialised counter): every symbol of the timed part of the image
must keep its address, while the console's own symbols do move, which shows that the change
took."""

import re
import shutil
import subprocess

import pytest

from soc import firmware

#: (file under firmware/, text, replacement): console-only code and data the copy gains.
CONSOLE_CHANGES = [
    ("console/console.c", "void console_print_help(void)\n{",
     "static int layout_probe_count = 5;\nstatic char layout_probe_text[300];\n\n"
     "void console_print_help(void)\n{\n"
     "\tprintf(\"probe %d %s %lu\\n\", layout_probe_count++, layout_probe_text,\n"
     "\t       strtoul(layout_probe_text, 0, 0));"),
    ("console/bench_cmds.c", "static unsigned table_len;",
     "static unsigned table_len;\nstatic char layout_probe_row[100];\nstatic int layout_probe_rows = 3;"),
    ("console/bench_cmds.c", "static void print_table(unsigned bits)\n{\n\tunsigned i;\n",
     "static void print_table(unsigned bits)\n{\n\tunsigned i;\n\tlayout_probe_row[table_len % 100] = 1;\n"
     "\tprintf(\"probe %s %d\\n\", layout_probe_row, layout_probe_rows++);\n"),
]

#: One worker runs the module: the two builds are made once.
pytestmark = pytest.mark.xdist_group("firmware_layout")


def _symbols(elf):
    """{name: address} of the image's symbols; a name defined more than once (statics of several
    files, e.g. the operand buffers of `bench` and of `time`) gets its lowest address."""
    out = subprocess.run(["riscv64-unknown-elf-nm", "-n", str(elf)], capture_output=True, text=True,
                         check=True).stdout
    seen = {}
    for address, _kind, name in re.findall(r"^([0-9a-f]{8}) (\w) (\S+)$", out, re.M):
        seen.setdefault(name, []).append(int(address, 16))
    return {name: addresses[0] for name, addresses in seen.items()}


def _build(sim_soc, target, source_dir):
    """The firmware of the simulated SoC built from `source_dir` into `target`, from a copy of the
    SoC's generated software tree."""
    shutil.copytree(sim_soc.build_dir / "software", target / "software",
                    ignore=shutil.ignore_patterns("firmware"))
    firmware.build(target, extra_headers=firmware.soc_headers(), source_dir=source_dir)
    return _symbols(target / "software" / "firmware" / "firmware.elf")


@pytest.fixture(scope="module")
def layouts(sim_soc, tmp_path_factory):
    base = tmp_path_factory.mktemp("layout")
    changed = base / "changed_source"
    shutil.copytree(firmware.FIRMWARE_DIR, changed)
    for name, text, replacement in CONSOLE_CHANGES:
        source = (changed / name).read_text()
        assert source.count(text) == 1, (name, text)
        (changed / name).write_text(source.replace(text, replacement))
    return _build(sim_soc, base / "as_is", firmware.FIRMWARE_DIR), _build(sim_soc, base / "changed", changed)


def test_the_timed_code_constants_data_and_bss_stay_put(layouts):
    before, after = layouts
    for end in ("_etimed_text", "_etimed_rodata", "_edata", "_etimed_bss"):
        assert after[end] == before[end], end
    timed = {name: address for name, address in before.items()
             if address < before["_etimed_bss"] and name in after}
    moved = {name: (hex(address), hex(after[name])) for name, address in timed.items()
             if after[name] != address}
    assert not moved
    assert {"mont_mul", "rsa_timed", "memcpy", "bench_keys", "mbedtls_mpi_exp_mod", "br_i31_modpow_opt",
            "buf_in", "buf_hw", "ctx"} <= set(timed)


def test_the_console_did_change(layouts):
    before, after = layouts
    assert "layout_probe_count" in after and "layout_probe_count" not in before
    assert after["console_run"] != before["console_run"]
    assert after["_etext"] > before["_etext"]
