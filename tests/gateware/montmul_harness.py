"""What the gateware tests share: the RTL in the Amaranth simulator (or its Verilog in Verilator) behind
``gateware.driver``, the model run the same way, and the plain-Python references the model is itself
checked against."""

from gateware import driver, interface
from gateware.model import PeripheralModel, mont_mul, to_mont, from_mont

__all__ = ["W", "bus_words", "Driver", "simulate", "simulate_verilated", "model_driver", "twin", "twin_verilated",
           "mont_ref", "mont_textbook", "mont_exp_ref", "to_mont", "from_mont"]

#: The word width of the tests' small configurations, and the references' default: 16-bit words keep
#: the simulations fast (the default configuration's 32-bit words are tested where named).
W = 16


def bus_words(size_words, word_bits=W):
    """32-bit bus words per operand of ``size_words`` words (of ``W`` bits unless told)."""
    return interface.bus_words(size_words, word_bits)


# ---- references ------------------------------------------------------------------------------

def mont_ref(a, b, n, size, word_bits=W):
    """The model's Montgomery product (``gateware.model.mont_mul``), at ``W``-bit words unless told."""
    return mont_mul(a, b, n, size, word_bits)


def mont_textbook(a, b, n, size, word_bits=W):
    """Word-serial CIOS Montgomery product, as a cross-check of the model's ``mont_mul``."""
    w = word_bits
    mask = (1 << w) - 1
    n_inv = (-pow(n, -1, 1 << w)) & mask
    t = 0
    for i in range(size):
        t += ((a >> (w * i)) & mask) * b
        q = ((t & mask) * n_inv) & mask
        t = (t + q * n) >> w
    return t - n if t >= n else t


def mont_exp_ref(a, e, n, size, word_bits=W):
    """a^e in the Montgomery domain, a^e * R^(1-e) mod n, via pow()."""
    r = 1 << (word_bits * size)
    return pow(a, e, n) * pow(r, 1 - e, n) % n if e else r % n


# ---- drivers ---------------------------------------------------------------------------------

class Driver(driver.Driver):
    """The driver on the Amaranth simulation, with the testbench's own access to the ports."""

    @property
    def ctx(self):
        return self.transport.ctx

    @property
    def dut(self):
        return self.transport.dut

    def status(self):
        return driver.decode_status(self.ctx.get(self.dut.status))


def simulate(config, testbench, vcd=None):
    """Run ``await testbench(driver)`` against a fresh peripheral; return its result."""
    return driver.simulate(config, testbench, vcd, driver_class=Driver)


def simulate_verilated(config, testbench):
    """``testbench`` as ``simulate`` runs it, on the same RTL's Verilog in Verilator
    (sim.montmul_verilator: the same driver, the same cycle counts, its model built once per
    configuration under build/verilator). For the tests whose exponentiations are hundreds of
    thousands of cycles: the Amaranth simulator runs about 3,000 a second."""
    from sim.montmul_verilator import VerilatorTransport
    with VerilatorTransport(config) as transport:
        return driver.complete(testbench(driver.Driver(transport)))


def model_driver(config):
    """A driver of a fresh ``PeripheralModel``; its coroutines never suspend (``driver.complete``)."""
    return driver.Driver(driver.PeripheralModelTransport(PeripheralModel(config)))


def twin(config, scenario):
    """``scenario(driver)`` (async, returning what it observed) on the RTL and on the model; returns
    (rtl, model) observations."""
    return simulate(config, scenario), driver.complete(scenario(model_driver(config)))


def twin_verilated(config, scenario):
    """``twin`` with the RTL in Verilator (``simulate_verilated``)."""
    return simulate_verilated(config, scenario), driver.complete(scenario(model_driver(config)))
