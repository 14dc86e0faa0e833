"""Loading the register file from a testbench through its bus write port (one 32-bit word per cycle)."""

from gateware.interface import BUS_BITS


async def write_row(ctx, regfile, config, addr, value):
    """Write the row ``value`` at ``addr``, a bus word (BUS_BITS / W words) per cycle."""
    words = BUS_BITS // config.word_bits
    for k in range(config.row_bits // BUS_BITS):
        ctx.set(regfile.bus_write.addr, addr)
        ctx.set(regfile.bus_write.data, (value >> (BUS_BITS * k)) & ((1 << BUS_BITS) - 1))
        ctx.set(regfile.bus_write.en, ((1 << words) - 1) << (words * k))
        await ctx.tick()
    ctx.set(regfile.bus_write.en, 0)


async def write_slot(ctx, regfile, config, slot, value):
    """Write every row of ``slot`` (``value`` is truncated to the slot)."""
    for k in range(config.rows_per_slot):
        row = (value >> (config.row_bits * k)) & ((1 << config.row_bits) - 1)
        await write_row(ctx, regfile, config, slot * config.rows_per_slot + k, row)
