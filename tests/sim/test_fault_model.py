"""The fault-injection model's configuration (sim/fault_model.py): the peripheral's state as found in its
Verilog, and the Verilator configuration that makes it, and only it, public in that model."""

from sim import fault_model

VERILOG = r"""
module montmul(clk, rst);
  reg [1:0] fsm_state = 2'h0;
  reg [7:0] error;
  wire [7:0] \$11 ;
  always @(posedge clk)
    fsm_state <= \$13 ;
  always @(posedge clk)
    error <= \$11 ;
  assign \$12 = error <= 8'h3;
endmodule
module \montmul.regfile (clk);
  reg [31:0] operands [7:0];
  reg [31:0] _1_;
  reg [31:0] rd__addr;
  always @(posedge clk) begin
    if (en)
      operands[wr__addr][15:0] <= wr__data[15:0];
  end
  always @(posedge clk) begin
    _1_ <= operands[rd__addr];
  end
endmodule
"""


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


def test_a_verilog_without_the_peripheral_is_refused():
    import pytest
    from common.errors import ProjectError
    with pytest.raises(ProjectError, match="no module montmul"):
        fault_model.state_elements("module other(clk);\n  reg a;\n  always @(posedge clk)\n    a <= b;\nendmodule\n")
