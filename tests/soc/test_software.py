"""The picolibc cache's key (soc/software.py): one entry per compiler set-up, whichever SoC asks."""

from pathlib import Path

import pytest

from soc import software

RV32IM = "-march=rv32i2p0_m -mabi=ilp32 -D__vexriscv__"
RV32I = "-march=rv32i2p0 -mabi=ilp32 -D__vexriscv__"


def software_dir(root, cpuflags, cpu="vexriscv"):
    """A software directory as LiteX's Builder prepares it for the libc package: variables.mak only."""
    import litex
    import pythondata_software_picolibc
    soc_dir = Path(litex.__file__).parent / "soc"
    software = Path(root) / "software"
    (software / "include" / "generated").mkdir(parents=True)
    (software / "libc").mkdir()
    (software / "include" / "generated" / "variables.mak").write_text("\n".join([
        "TRIPLE=riscv64-unknown-elf", f"CPU={cpu}", "CPUFAMILY=riscv", f"CPUFLAGS={cpuflags}",
        "CPUENDIANNESS=little", "CLANG=0", f"CPU_DIRECTORY={soc_dir}/cores/cpu/{cpu}",
        f"SOC_DIRECTORY={soc_dir}", f"PICOLIBC_DIRECTORY={pythondata_software_picolibc.data_location}",
        "PICOLIBC_FORMAT=integer", "export BUILDINC_DIRECTORY", f"BUILDINC_DIRECTORY={software}/include",
        f"LIBC_DIRECTORY={soc_dir}/software/libc", "LTO=0", ""]))
    return software


@pytest.fixture
def libc_makefile():
    import litex
    return Path(litex.__file__).parent / "soc" / "software" / "libc" / "Makefile"


def test_the_key_leaves_the_soc_directory_out_and_keeps_the_flags(tmp_path, libc_makefile):
    first = software.picolibc_key(software_dir(tmp_path / "a", RV32IM), libc_makefile)
    second = software.picolibc_key(software_dir(tmp_path / "b", RV32IM), libc_makefile)
    without_m = software.picolibc_key(software_dir(tmp_path / "c", RV32I), libc_makefile)
    assert first == second
    assert first != without_m
    # The cross file LiteX writes for meson carries the flags, with this SoC's directory left out.
    cross = first[0]
    assert "'-march=rv32i2p0_m'" in cross and "<software>/include" in cross and str(tmp_path) not in cross
    assert (tmp_path / "a" / "software" / "libc" / "cross.txt").exists()


def test_cpus_with_one_instruction_set_share_a_key(tmp_path, libc_makefile):
    """The CPU's name, its header directory and GCC's default -mno-save-restore reach no byte of the
    library (soc/software.py), so only the instruction set and the flags that matter separate keys."""
    vexriscv = software.picolibc_key(software_dir(tmp_path / "a", RV32I), libc_makefile)
    serv = software.picolibc_key(software_dir(tmp_path / "b", RV32I.replace("vexriscv", "serv"), "serv"),
                                 libc_makefile)
    picorv32 = software.picolibc_key(software_dir(tmp_path / "c", "-mno-save-restore " +
                                                  RV32I.replace("vexriscv", "picorv32"), "picorv32"), libc_makefile)
    assert vexriscv == serv == picorv32
    assert "serv" not in serv[0] and "picorv32" not in picorv32[0]
    # A flag that changes the code still separates them.
    small = software.picolibc_key(software_dir(tmp_path / "d", "-msave-restore " + RV32I.replace("vexriscv", "serv"),
                                               "serv"), libc_makefile)
    assert small != serv
