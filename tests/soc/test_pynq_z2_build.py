"""The PYNQ-Z2 target without any FPGA toolchain: what it generates, and how it stops."""

import re
import subprocess

import pytest

from boards import pynq_z2
from soc.firmware import image_words

from board_runs import LANES, ROOT, WORD_BITS, Run, board_command, toolchain_free_env

#: One worker runs every test of the session's board runs (pynq_z2_runs): they are built once.
pytestmark = pytest.mark.xdist_group("pynq_z2")

BUILD_NAME = "pynq_z2"


def xdc_pins(run):
    """{port: LOC} from the generated constraints."""
    return dict((port, pin) for pin, port in
                re.findall(r"set_property LOC (\w+) \[get_ports \{?(\w+)\}?\]", run.text(f"{BUILD_NAME}.xdc")))


@pytest.fixture(scope="module")
def arduino_gateware(tmp_path_factory):
    """`--uart arduino` with the yosys+nextpnr toolchain: the gateware pass alone, in this process
    (the two command-line runs already cover the firmware and the missing-toolchain exit), with the
    runs' narrow peripheral (the pins do not depend on it) and the deterministic entropy stand-in."""
    from litex.soc.integration.builder import Builder
    from gateware.interface import PeripheralConfig

    build_dir = tmp_path_factory.mktemp("pynq_z2_arduino")
    soc = pynq_z2.BaseSoC(toolchain="yosys+nextpnr", uart="arduino", deterministic_entropy=True,
                          montmul_config=PeripheralConfig(lanes=LANES, word_bits=WORD_BITS))
    Builder(soc, output_dir=str(build_dir), compile_software=False, compile_gateware=False).build(run=False)
    return Run([], build_dir, 0, "", "")


def test_generates_gateware_constraints_and_firmware(pynq_z2_runs):
    run = pynq_z2_runs["vivado"]
    for name in (f"{BUILD_NAME}.v", "montmul.v", f"{BUILD_NAME}.xdc", f"build_{BUILD_NAME}.sh",
                 f"{BUILD_NAME}.tcl", f"{BUILD_NAME}_rom.init", f"{BUILD_NAME}_main_ram.init"):
        assert (run.gateware / name).stat().st_size > 0, name
    top = run.text(f"{BUILD_NAME}.v")
    assert "montmul montmul(" in top or re.search(r"\bmontmul\s+\w+\s*\(", top)
    assert "VexRiscv" in top
    tcl = run.text(f"{BUILD_NAME}.tcl")
    assert "xc7z020clg400-1" in tcl
    assert "VexRiscv_Full.v" in tcl and "montmul.v" in tcl
    # The 125 MHz input, the PLL, the status LEDs.
    pins = xdc_pins(run)
    assert pins["clk125"] == "H16"
    assert "create_clock -name clk125 -period 8.0" in run.text(f"{BUILD_NAME}.xdc")
    assert "PLLE2_ADV" in top
    assert (pins["user_led0"], pins["user_led1"]) == ("R14", "P14")
    # The entropy source on its ring oscillators, with their constraints; the firmware told neither
    # simulation nor deterministic build.
    assert "entropy_source.v" in tcl and "LUT1" in run.text("entropy_source.v")
    assert "ALLOW_COMBINATORIAL_LOOPS TRUE" in run.text(f"{BUILD_NAME}.xdc")
    soc_h = (run.build_dir / "software" / "include" / "generated" / "soc.h").read_text()
    assert "RSA_BENCH_SIMULATION" not in soc_h and "RSA_BENCH_DETERMINISTIC_ENTROPY" not in soc_h
    assert re.search(r"#define ENTROPY_SEED_WORDS \d+", soc_h)


def test_deterministic_entropy_is_a_build_option_the_firmware_is_told_of(arduino_gateware):
    soc_h = (arduino_gateware.build_dir / "software" / "include" / "generated" / "soc.h").read_text()
    assert "RSA_BENCH_DETERMINISTIC_ENTROPY" in soc_h and "RSA_BENCH_SIMULATION" not in soc_h
    assert "LUT1" not in arduino_gateware.text("entropy_source.v")
    assert "ALLOW_COMBINATORIAL_LOOPS" not in arduino_gateware.text(f"{BUILD_NAME}.xdc")


def _words(data):
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def test_rom_carries_the_bios_and_main_ram_the_firmware(pynq_z2_runs):
    run = pynq_z2_runs["vivado"]
    bios = (run.build_dir / "software" / "bios" / "bios.bin").read_bytes()
    rom = [int(line, 16) for line in run.text(f"{BUILD_NAME}_rom.init").split()]
    assert len(bios) > 1024 and rom == _words(bios)
    firmware_bin = run.build_dir / "software" / "firmware" / "firmware.bin"
    assert firmware_bin.stat().st_size > 1024
    ram = [int(line, 16) for line in run.text(f"{BUILD_NAME}_main_ram.init").split()]
    assert ram == image_words(firmware_bin, pynq_z2.MAIN_RAM_SIZE)
    assert len(ram) * 4 == pynq_z2.MAIN_RAM_SIZE
    # The BIOS boots it when no host answers its serial-boot request.
    soc_h = (run.build_dir / "software" / "include" / "generated" / "soc.h").read_text()
    assert re.search(r"#define ROM_BOOT_ADDRESS (0x40000000|1073741824)\b", soc_h)
    # The board image leaves the peer libraries out (BRAM budget): its bench reports them missing.
    peers = (run.build_dir / "software" / "firmware_gen" / "peer_build.h").read_text()
    assert "PEER_HAVE_MBEDTLS 0" in peers and "PEER_HAVE_BEARSSL 0" in peers


@pytest.mark.parametrize("name, tool", [("vivado", "vivado"), ("openxc7", "nextpnr-xilinx")])
def test_missing_toolchain_stops_with_a_message(pynq_z2_runs, name, tool):
    run = pynq_z2_runs[name]
    assert run.returncode == 1
    output = run.stdout + run.stderr
    assert "Traceback" not in output
    message = [line for line in run.stderr.splitlines() if line.startswith("error:")]
    assert len(message) == 1 and tool in message[0]
    assert str(run.build_dir.name) in run.stderr          # where the generated files are
    assert not (run.gateware / f"{BUILD_NAME}.bit").exists()
    # Everything before the toolchain is there.
    for file in (f"{BUILD_NAME}.v", f"{BUILD_NAME}.xdc", f"build_{BUILD_NAME}.sh"):
        assert (run.gateware / file).exists()
    assert (run.build_dir / "software" / "firmware" / "firmware.bin").exists()


def test_open_flow_script(pynq_z2_runs):
    run = pynq_z2_runs["openxc7"]
    script = run.text(f"build_{BUILD_NAME}.sh")
    assert (run.gateware / f"{BUILD_NAME}.ys").exists()      # the Yosys script it starts with
    for step in ("yosys", "nextpnr-xilinx", "fasm2frames", "xc7frames2bit"):
        assert step in script
    assert "--xdc pynq_z2.xdc" in script and "--output_file pynq_z2.bit" in script
    assert "chip database" in run.stderr and "prjxray-db" in run.stderr


# Console pins: Pmod USBUART on JB pins 2/3 (litex-boards' usb_uart), USB-serial adapter on
# AR0/AR1, or no pins at all (JTAG-UART through the board's USB/JTAG).
UART_PINS = {
    "vivado":  {"usb_uart_tx": "Y14", "usb_uart_rx": "T11"},
    "arduino": {"serial_tx": "T14", "serial_rx": "U12"},
    "openxc7": {},
}


@pytest.mark.parametrize("name", list(UART_PINS))
def test_uart_pins(request, name):
    run = request.getfixturevalue("arduino_gateware") if name == "arduino" else \
        request.getfixturevalue("pynq_z2_runs")[name]
    pins = xdc_pins(run)
    uart_pins = {port: pin for port, pin in pins.items() if port.endswith(("_tx", "_rx"))}
    assert uart_pins == UART_PINS[name]
    jtag_uart = "BSCANE2" in run.text(f"{BUILD_NAME}.v")
    assert jtag_uart == (name == "openxc7")
    if jtag_uart:
        assert "zynq_7000" in (run.build_dir / "openocd_pynq_z2.cfg").read_text()


def run_soc(*args, tmp_path):
    return subprocess.run(board_command(*args, "--output-dir", str(tmp_path)), cwd=ROOT,
                          env=toolchain_free_env(), capture_output=True, text=True, timeout=300)


def test_help_lists_the_board_options(tmp_path):
    result = run_soc("--help", tmp_path=tmp_path)
    assert result.returncode == 0
    for option in ("--uart", "{usb-pmod,arduino,jtag}", "--toolchain", "--sys-clk-freq", "--report", "--load"):
        assert option in result.stdout
    assert "f4pga" not in result.stdout


def test_load_without_bitstream(tmp_path):
    result = run_soc("--load", tmp_path=tmp_path)
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert "no bitstream" in result.stderr
