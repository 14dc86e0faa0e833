"""A small RV32IM instruction-set simulator for the firmware's bignum/RSA objects.

It runs the very machine code the softcore runs (the rv32im objects, linked at a fixed address) so the
host tests can check it against Python, and it counts instructions with a simple pipeline-penalty
model to estimate VexRiscv cycles (the real numbers come from the SoC's cycle counter).

    python tests/firmware/rv32sim.py      # cycle estimates for the main operations

Model (per instruction 1 cycle, plus): a taken branch or jump +BRANCH_PENALTY, a load whose result is
used by the next instruction +LOAD_USE, a mul/mulh* result used 1 or 2 instructions later +2 / +1,
a division +DIV_CYCLES.
These follow VexRiscv's 5-stage pipeline with bypassing; caches are assumed to hit (integrated RAM).
"""
import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build" / "test-firmware"
RV_FLAGS = ["-march=rv32im", "-mabi=ilp32", "-O2", "-ffreestanding", "-nostdlib", "-Wall", "-Wextra"]

BRANCH_PENALTY = 2
LOAD_USE = 1
DIV_CYCLES = 34   # iterative divider (VexRiscv MulDivIterativePlugin), only in setup code here
MEM_SIZE = 1 << 21
BASE = 0x1000
RETURN_MAGIC = 0xFFFFFFF0

LINKER_SCRIPT = """\
ENTRY(bn_add)
SECTIONS {
  . = 0x1000;
  .text : { *(.text*) }
  .rodata : { *(.rodata*) *(.srodata*) }
  .data : { *(.data*) *(.sdata*) }
  .bss : { *(.bss*) *(.sbss*) *(COMMON) }
  _end = .;
}
"""

MASK = 0xFFFFFFFF


def tool(name):
    path = shutil.which(f"riscv64-unknown-elf-{name}")
    if path is None:
        raise RuntimeError(f"riscv64-unknown-elf-{name} not found")
    return path


def build_image(max_bits=4096, sources=("bignum.c", "rsa_sw.c"), extra_c=(), tag="sim"):
    """Compile and link the sources for rv32im; returns (image bytes, {symbol: address})."""
    out = BUILD / f"rv32{tag}-{max_bits}-{os.getpid()}"
    out.mkdir(parents=True, exist_ok=True)
    objs = []
    for src in [FIRMWARE / s for s in sources] + [Path(p) for p in extra_c]:
        obj = out / (src.stem + ".o")
        subprocess.run([tool("gcc"), *RV_FLAGS, f"-DBN_MAX_BITS={max_bits}", f"-I{FIRMWARE}", "-c",
                        str(src), "-o", str(obj)], check=True, capture_output=True, text=True)
        objs.append(str(obj))
    (out / "sim.ld").write_text(LINKER_SCRIPT)
    elf = out / "sim.elf"
    link = subprocess.run([tool("ld"), "-m", "elf32lriscv", "--no-relax", "-T", str(out / "sim.ld"),
                           *objs, "-o", str(elf)], capture_output=True, text=True)
    if link.returncode != 0:
        raise RuntimeError(link.stderr)
    binary = out / "sim.bin"
    subprocess.run([tool("objcopy"), "-O", "binary", str(elf), str(binary)], check=True)
    nm = subprocess.run([tool("nm"), str(elf)], check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in nm.splitlines():
        parts = line.split()
        if len(parts) == 3:
            symbols[parts[2]] = int(parts[0], 16)
    image = binary.read_bytes()
    shutil.rmtree(out, ignore_errors=True)
    return image, symbols


def sext(x, bits):
    return x - (1 << bits) if x & (1 << (bits - 1)) else x


# Decoded instruction kinds.
(K_LUI, K_AUIPC, K_JAL, K_JALR, K_BR, K_LW, K_LB, K_LBU, K_LH, K_LHU, K_SW, K_SB, K_SH,
 K_ADDI, K_SLTI, K_SLTIU, K_XORI, K_ORI, K_ANDI, K_SLLI, K_SRLI, K_SRAI,
 K_ADD, K_SUB, K_SLL, K_SLT, K_SLTU, K_XOR, K_SRL, K_SRA, K_OR, K_AND,
 K_MUL, K_MULH, K_MULHSU, K_MULHU, K_DIV, K_DIVU, K_REM, K_REMU, K_FENCE) = range(41)

MUL_KINDS = {K_MUL, K_MULH, K_MULHSU, K_MULHU}
LOAD_KINDS = {K_LW, K_LB, K_LBU, K_LH, K_LHU}


def decode(ins):
    op, rd, f3 = ins & 0x7F, (ins >> 7) & 31, (ins >> 12) & 7
    rs1, rs2, f7 = (ins >> 15) & 31, (ins >> 20) & 31, ins >> 25
    imm_i = sext(ins >> 20, 12)
    if op == 0x37:
        return (K_LUI, rd, 0, 0, ins & 0xFFFFF000)
    if op == 0x17:
        return (K_AUIPC, rd, 0, 0, ins & 0xFFFFF000)
    if op == 0x6F:
        imm = ((ins >> 31) << 20) | (((ins >> 12) & 0xFF) << 12) | (((ins >> 20) & 1) << 11) \
            | (((ins >> 21) & 0x3FF) << 1)
        return (K_JAL, rd, 0, 0, sext(imm, 21))
    if op == 0x67:
        return (K_JALR, rd, rs1, 0, imm_i)
    if op == 0x63:
        imm = ((ins >> 31) << 12) | (((ins >> 7) & 1) << 11) | (((ins >> 25) & 0x3F) << 5) \
            | (((ins >> 8) & 0xF) << 1)
        return (K_BR, f3, rs1, rs2, sext(imm, 13))
    if op == 0x03:
        kind = {0: K_LB, 1: K_LH, 2: K_LW, 4: K_LBU, 5: K_LHU}[f3]
        return (kind, rd, rs1, 0, imm_i)
    if op == 0x23:
        imm = sext(((ins >> 25) << 5) | ((ins >> 7) & 31), 12)
        return ({0: K_SB, 1: K_SH, 2: K_SW}[f3], 0, rs1, rs2, imm)
    if op == 0x13:
        if f3 == 1:
            return (K_SLLI, rd, rs1, 0, rs2)
        if f3 == 5:
            return (K_SRAI if f7 & 0x20 else K_SRLI, rd, rs1, 0, rs2)
        return ({0: K_ADDI, 2: K_SLTI, 3: K_SLTIU, 4: K_XORI, 6: K_ORI, 7: K_ANDI}[f3], rd, rs1, 0, imm_i)
    if op == 0x33:
        if f7 == 1:
            return (K_MUL + f3, rd, rs1, rs2, 0)
        if f7 == 0x20:
            return ({0: K_SUB, 5: K_SRA}[f3], rd, rs1, rs2, 0)
        return ([K_ADD, K_SLL, K_SLT, K_SLTU, K_XOR, K_SRL, K_OR, K_AND][f3], rd, rs1, rs2, 0)
    if op == 0x0F:
        return (K_FENCE, 0, 0, 0, 0)
    raise ValueError(f"unsupported instruction {ins:08x}")


class Stats:
    def __init__(self):
        self.instructions = self.cycles = self.muls = self.loads = self.stores = self.taken = 0

    def __repr__(self):
        return (f"instructions={self.instructions} cycles~{self.cycles} muls={self.muls} "
                f"loads={self.loads} stores={self.stores} taken_branches={self.taken}")


class RV32:
    """Flat memory, code at BASE, a bump allocator above the image, the stack at the top."""

    def __init__(self, image, symbols):
        self.mem = bytearray(MEM_SIZE)
        self.mem[BASE:BASE + len(image)] = image
        self.words = memoryview(self.mem).cast("I")
        self.symbols = symbols
        self.heap_start = (symbols.get("_end", BASE + len(image)) + 0xFFF) & ~0xFFF
        self.heap = self.heap_start
        self.decoded = {}

    def alloc(self, nbytes):
        addr = self.heap
        self.heap = (self.heap + nbytes + 15) & ~15
        assert self.heap < MEM_SIZE - 0x10000, "simulator heap overflow"
        self.mem[addr:addr + nbytes] = bytes(nbytes)
        return addr

    def free_all(self):
        self.heap = self.heap_start

    def write_int(self, addr, x, words):
        for i in range(words):
            self.words[(addr >> 2) + i] = (x >> (32 * i)) & MASK

    def read_int(self, addr, words):
        return sum(self.words[(addr >> 2) + i] << (32 * i) for i in range(words))

    def put_int(self, x, words):
        addr = self.alloc(4 * words)
        self.write_int(addr, x, words)
        return addr

    def put_bytes(self, data):
        addr = self.alloc(len(data))
        self.mem[addr:addr + len(data)] = data
        return addr

    def call(self, name, *args, max_instructions=500_000_000):
        """Run the function with integer/pointer args; returns (a0 as a signed int, Stats)."""
        x = [0] * 32
        x[1] = RETURN_MAGIC
        x[2] = MEM_SIZE - 16
        for i, a in enumerate(args):
            x[10 + i] = a & MASK
        pc = self.symbols[name]
        mem, words, decoded = self.mem, self.words, self.decoded
        st = Stats()
        n = cycles = muls = loads = stores = taken = 0
        last_load_rd = 0          # rd of the previous instruction if it was a load
        mul_rd1 = mul_rd2 = 0     # rd of a mul one / two instructions back
        while pc != RETURN_MAGIC:
            d = decoded.get(pc)
            if d is None:
                d = decoded[pc] = decode(words[pc >> 2])
            kind, rd, rs1, rs2, imm = d
            n += 1
            cycles += 1
            # Pipeline penalties for the operands this instruction reads.
            if last_load_rd and (rs1 == last_load_rd or rs2 == last_load_rd) and kind not in (K_LUI, K_AUIPC, K_JAL):
                cycles += LOAD_USE
            if mul_rd1 and (rs1 == mul_rd1 or rs2 == mul_rd1):
                cycles += 2
            elif mul_rd2 and (rs1 == mul_rd2 or rs2 == mul_rd2):
                cycles += 1
            mul_rd2, mul_rd1, last_load_rd = mul_rd1, 0, 0
            a = x[rs1]
            npc = pc + 4
            if kind == K_ADD:
                v = (a + x[rs2]) & MASK
            elif kind == K_SLTU:
                v = 1 if a < x[rs2] else 0
            elif kind == K_LW:
                addr = (a + imm) & MASK
                v = words[addr >> 2]
                loads += 1
                last_load_rd = rd
            elif kind == K_SW:
                addr = (a + imm) & MASK
                words[addr >> 2] = x[rs2]
                stores += 1
                pc = npc
                continue
            elif kind == K_MUL:
                v = (a * x[rs2]) & MASK
                muls += 1
                mul_rd1 = rd
            elif kind == K_MULHU:
                v = (a * x[rs2]) >> 32
                muls += 1
                mul_rd1 = rd
            elif kind == K_ADDI:
                v = (a + imm) & MASK
            elif kind == K_BR:
                b = x[rs2]
                if rd == 0:
                    t = a == b
                elif rd == 1:
                    t = a != b
                elif rd == 4:
                    t = sext(a, 32) < sext(b, 32)
                elif rd == 5:
                    t = sext(a, 32) >= sext(b, 32)
                elif rd == 6:
                    t = a < b
                elif rd == 7:
                    t = a >= b
                else:
                    raise ValueError("bad branch")
                if t:
                    pc = (pc + imm) & MASK
                    cycles += BRANCH_PENALTY
                    taken += 1
                else:
                    pc = npc
                continue
            elif kind == K_SUB:
                v = (a - x[rs2]) & MASK
            elif kind == K_AND:
                v = a & x[rs2]
            elif kind == K_OR:
                v = a | x[rs2]
            elif kind == K_XOR:
                v = a ^ x[rs2]
            elif kind == K_ANDI:
                v = a & (imm & MASK)
            elif kind == K_ORI:
                v = a | (imm & MASK)
            elif kind == K_XORI:
                v = a ^ (imm & MASK)
            elif kind == K_SLLI:
                v = (a << imm) & MASK
            elif kind == K_SRLI:
                v = a >> imm
            elif kind == K_SRAI:
                v = (sext(a, 32) >> imm) & MASK
            elif kind == K_SLL:
                v = (a << (x[rs2] & 31)) & MASK
            elif kind == K_SRL:
                v = a >> (x[rs2] & 31)
            elif kind == K_SRA:
                v = (sext(a, 32) >> (x[rs2] & 31)) & MASK
            elif kind == K_SLT:
                v = 1 if sext(a, 32) < sext(x[rs2], 32) else 0
            elif kind == K_SLTI:
                v = 1 if sext(a, 32) < imm else 0
            elif kind == K_SLTIU:
                v = 1 if a < (imm & MASK) else 0
            elif kind == K_LUI:
                v = imm
            elif kind == K_AUIPC:
                v = (pc + imm) & MASK
            elif kind == K_JAL:
                v = npc
                npc = (pc + imm) & MASK
                cycles += BRANCH_PENALTY
                taken += 1
            elif kind == K_JALR:
                v = npc
                npc = (a + imm) & ~1 & MASK
                cycles += BRANCH_PENALTY
                taken += 1
            elif kind in (K_LB, K_LBU, K_LH, K_LHU):
                addr = (a + imm) & MASK
                if kind == K_LBU:
                    v = mem[addr]
                elif kind == K_LB:
                    v = sext(mem[addr], 8) & MASK
                elif kind == K_LHU:
                    v = mem[addr] | (mem[addr + 1] << 8)
                else:
                    v = sext(mem[addr] | (mem[addr + 1] << 8), 16) & MASK
                loads += 1
                last_load_rd = rd
            elif kind in (K_SB, K_SH):
                addr = (a + imm) & MASK
                mem[addr] = x[rs2] & 0xFF
                if kind == K_SH:
                    mem[addr + 1] = (x[rs2] >> 8) & 0xFF
                stores += 1
                pc = npc
                continue
            elif kind in (K_MULH, K_MULHSU):
                b = x[rs2]
                sa = sext(a, 32)
                v = ((sa * (sext(b, 32) if kind == K_MULH else b)) >> 32) & MASK
                muls += 1
                mul_rd1 = rd
            elif kind in (K_DIV, K_DIVU, K_REM, K_REMU):
                b = x[rs2]
                cycles += DIV_CYCLES
                if kind in (K_DIVU, K_REMU):
                    if b == 0:
                        v = MASK if kind == K_DIVU else a
                    else:
                        v = a // b if kind == K_DIVU else a % b
                else:
                    sa, sb = sext(a, 32), sext(b, 32)
                    if sb == 0:
                        v = MASK if kind == K_DIV else a
                    else:
                        qt = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
                        v = (qt if kind == K_DIV else sa - qt * sb) & MASK
            elif kind == K_FENCE:
                pc = npc
                continue
            else:
                raise ValueError(f"unhandled kind {kind}")
            if rd:
                x[rd] = v
            pc = npc
            if n > max_instructions:
                raise RuntimeError("instruction budget exceeded")
        st.instructions, st.cycles, st.muls, st.loads, st.stores, st.taken = n, cycles, muls, loads, stores, taken
        return sext(x[10], 32), st


# ---- Helpers shared by the tests and the report ----

MONT_CTX_BYTES = lambda max_words: 3 * 4 * max_words + 8  # noqa: E731  n, rr, one, n0inv, words


def mont_ctx(sim, n, words, max_words):
    ctx = sim.alloc(MONT_CTX_BYTES(max_words))
    rc, st = sim.call("mont_init", ctx, sim.put_int(n, words), words)
    assert rc == 0
    return ctx, st


def rsa_key_bytes(max_words, n, e, d, p=None, q=None, dp=None, dq=None, qinv=None):
    half = max_words // 2

    def limbs(x, count):
        return struct.pack(f"<{count}I", *[(x >> (32 * i)) & MASK for i in range(count)])

    out = struct.pack("<I", n.bit_length()) + limbs(n, max_words) + limbs(e, max_words) + limbs(d, max_words)
    has_crt = p is not None
    for v in (p, q, dp, dq, qinv):
        out += limbs(v or 0, half)
    return out + struct.pack("<i", 1 if has_crt else 0)


BASELINE_C = r"""
/* The calibration reference from the project notes: a plain CIOS Montgomery product on 32-bit
 * limbs, two uint64_t multiply-accumulate loops, -O2. */
#include <stdint.h>
void baseline_cios(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *n,
                   uint32_t n0inv, unsigned s)
{
    uint32_t t[130];
    for (unsigned j = 0; j < s + 2; j++) t[j] = 0;
    for (unsigned i = 0; i < s; i++) {
        uint64_t cs = 0; uint32_t c = 0;
        for (unsigned j = 0; j < s; j++) {
            cs = (uint64_t)t[j] + (uint64_t)a[j] * b[i] + c;
            t[j] = (uint32_t)cs; c = (uint32_t)(cs >> 32);
        }
        cs = (uint64_t)t[s] + c; t[s] = (uint32_t)cs; t[s + 1] = (uint32_t)(cs >> 32);
        uint32_t m = t[0] * n0inv;
        cs = (uint64_t)t[0] + (uint64_t)m * n[0]; c = (uint32_t)(cs >> 32);
        for (unsigned j = 1; j < s; j++) {
            cs = (uint64_t)t[j] + (uint64_t)m * n[j] + c;
            t[j - 1] = (uint32_t)cs; c = (uint32_t)(cs >> 32);
        }
        cs = (uint64_t)t[s] + c; t[s - 1] = (uint32_t)cs; t[s] = t[s + 1] + (uint32_t)(cs >> 32);
    }
    uint32_t borrow = 0, d[130];
    for (unsigned j = 0; j < s; j++) {
        uint64_t x = (uint64_t)t[j] - n[j] - borrow; d[j] = (uint32_t)x; borrow = (uint32_t)(x >> 63);
    }
    int use_d = t[s] || !borrow;
    for (unsigned j = 0; j < s; j++) r[j] = use_d ? d[j] : t[j];
}
"""


def measure_products(max_bits=4096, sizes=(512, 1024, 2048)):
    """Simulated baseline CIOS, mont_mul, mont_sqr and mont_init per modulus size (checked results)."""
    import random
    BUILD.mkdir(parents=True, exist_ok=True)
    baseline_src = BUILD / f"baseline_cios-{os.getpid()}.c"
    baseline_src.write_text(BASELINE_C)
    image, symbols = build_image(max_bits, extra_c=[baseline_src], tag="report")
    baseline_src.unlink()
    sim = RV32(image, symbols)
    mw = max_bits // 32
    rng = random.Random(1)
    rows = []
    for bits in sizes:
        w = bits // 32
        n = rng.getrandbits(bits) | (1 << (bits - 1)) | 1
        a, b = rng.randrange(n), rng.randrange(n)
        sim.free_all()
        ctx, st_init = mont_ctx(sim, n, w, mw)
        pa, pb, pr, pn = sim.put_int(a, w), sim.put_int(b, w), sim.alloc(4 * w), sim.put_int(n, w)
        n0inv = (-pow(n, -1, 1 << 32)) % (1 << 32)
        _, st_base = sim.call("baseline_cios", pr, pa, pb, pn, n0inv, w)
        assert sim.read_int(pr, w) == a * b * pow(1 << 32 * w, -1, n) % n
        _, st_mul = sim.call("mont_mul", ctx, pr, pa, pb)
        assert sim.read_int(pr, w) == a * b * pow(1 << 32 * w, -1, n) % n
        _, st_sqr = sim.call("mont_sqr", ctx, pr, pa)
        assert sim.read_int(pr, w) == a * a * pow(1 << 32 * w, -1, n) % n
        rows.append((bits, st_base, st_mul, st_sqr, st_init))
    return rows


def report_rsa(max_bits, bits):
    """Simulated rsa_public / rsa_private_crt / rsa_private for a fresh key (checked results)."""
    import random
    from cryptography.hazmat.primitives.asymmetric import rsa
    image, symbols = build_image(max_bits, tag="rsa")
    sim = RV32(image, symbols)
    mw = max_bits // 32
    priv = rsa.generate_private_key(public_exponent=65537, key_size=bits).private_numbers()
    n, e = priv.public_numbers.n, priv.public_numbers.e
    numbers = (n, e, priv.d, priv.p, priv.q, priv.dmp1, priv.dmq1, priv.iqmp)
    key = sim.put_bytes(rsa_key_bytes(mw, *numbers))
    ctx = sim.alloc(3 * MONT_CTX_BYTES(mw))
    rc, st_ctx = sim.call("rsa_ctx_init", ctx, key)
    assert rc == 0
    w = bits // 32
    m = random.Random(bits).randrange(n)
    c = pow(m, e, n)
    out = sim.alloc(4 * w)
    results = {"rsa_ctx_init": st_ctx}
    for name, x, expect in (("rsa_public", m, c), ("rsa_private_crt", c, m), ("rsa_private", c, m)):
        rc, results[name] = sim.call(name, key, ctx, out, sim.put_int(x, w))
        assert rc == 0 and sim.read_int(out, w) == expect
    return results


def report(max_bits=4096, rsa_sizes=()):
    rows = measure_products(max_bits)
    print(f"model: 1 cycle/instruction, taken branch +{BRANCH_PENALTY}, load-use +{LOAD_USE}, "
          f"mul-use +2/+1 (BN_MAX_BITS={max_bits})")
    print(f"{'bits':>5} {'baseline CIOS':>22} {'mont_mul':>22} {'mont_sqr':>22} {'mont_init':>12}")
    for bits, base, mul, sqr, init in rows:
        print(f"{bits:>5} {base.instructions:>9} ins {base.cycles:>7} cy  "
              f"{mul.instructions:>9} ins {mul.cycles:>7} cy  {sqr.instructions:>9} ins {sqr.cycles:>7} cy"
              f"  {init.cycles:>9} cy")
    for bits in rsa_sizes:
        for name, st in report_rsa(max_bits, bits).items():
            print(f"RSA-{bits} {name:>16}: {st.instructions:>11} instructions, ~{st.cycles:>11} cycles")


if __name__ == "__main__":
    # python tests/firmware/rv32sim.py [BN_MAX_BITS [RSA sizes...]], e.g. 4096 1024 2048
    report(int(sys.argv[1]) if len(sys.argv) > 1 else 4096, [int(a) for a in sys.argv[2:]])
