"""A slice of the peripheral's Verilog as Amaranth writes it, for the fault model's tests (tests/sim,
tests/jobs): a register of the status, a state machine's, an operand memory and its read register."""

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
