"""The fault-injection model's configuration (sim/fault_model.py): the peripheral's state as found in its
Verilog, and the Verilator configuration that makes it, and only it, public in that model."""

from fault_verilog import VERILOG
from sim import fault_model


def test_state_elements_are_registers_and_memories():
    """Registers are what a clocked process assigns (not a comparison in an `assign`, not a
    combinational reg), memories are found with their depth, and a memory's read register knows
    which memory it reads."""
    elements = fault_model.state_elements(VERILOG)
    assert set(elements) == {("", "fsm_state"), ("", "error"), ("regfile", "operands"), ("regfile", "_1_")}
    assert elements[("regfile", "operands")].depth == 8 and elements[("regfile", "operands")].bits == 32
    assert elements[("regfile", "_1_")].reads == "operands"


def test_the_configuration_makes_the_state_and_the_watched_ports_public():
    config = fault_model.verilator_config(VERILOG)
    assert 'public_flat_rw -module "montmul.regfile" -var "operands"' in config
    assert 'public_flat_rw -module "montmul" -var "fsm_state"' in config
    assert all(f'public_flat_rd -module "montmul" -var "{port}"' in config for port in fault_model.WATCHED_PORTS)
    assert "rd__addr" not in config and '"$11"' not in config


def test_another_units_state_and_command_strobe_are_public():
    """Another unit's registers are public and writable; its command strobe, when it has one, readable
    (the hook's activity), and nothing is asked of a unit without one."""
    unit = ("module engine(clk, command_stb);\n  input clk;\n  input command_stb;\n  reg [3:0] round;\n"
            "  always @(posedge clk)\n    round <= command_stb;\nendmodule\n")
    quiet = unit.replace("engine", "source").replace("command_stb", "sample")
    config = fault_model.verilator_config(VERILOG, units=[(unit, "engine"), (quiet, "source")])
    assert 'public_flat_rw -module "engine" -var "round"' in config
    assert 'public_flat_rw -module "source" -var "round"' in config
    assert f'public_flat_rd -module "engine" -var "{fault_model.UNIT_COMMAND_PORT}"' in config
    assert 'public_flat_rd -module "source"' not in config


def test_a_verilog_without_the_peripheral_is_refused():
    import pytest
    from common.errors import ProjectError
    with pytest.raises(ProjectError, match="no module montmul"):
        fault_model.state_elements("module other(clk);\n  reg a;\n  always @(posedge clk)\n    a <= b;\nendmodule\n")
