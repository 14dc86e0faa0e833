/*
 * A host model of the Montgomery peripheral's CSRs and data window (host_litex/generated/csr.h) for the console's
 * fuzz target: the firmware's driver and backends (montmul_drv.c, rsa_hw.c) run unchanged on the host
 * and get the answers the peripheral gives, so the hardware paths (hw_cpu, hw_seq, hw_seq_window, the
 * default of the signature commands and of keygen) reach their success paths, not only their error
 * paths.
 *
 * What it models is the contract (docs/peripheral.md, gateware/model.py's PeripheralModel): the user
 * slots, the write and read pointers, both modulus banks, every refusal with its error code, and the
 * values of MUL, MUL_PAIR (with a shared a of `arg` words), the exponentiations (computed by
 * square-and-multiply from the accumulator's value), ADD, SUB, COPY and EQUAL (its status bit). Not modelled: time (never busy), the hidden slots
 * (an exponentiation here leaves the other user slots alone, as the RTL does), and the RTL's values
 * outside the operand contract (here a classic Montgomery product's). Single-word-per-bus-word
 * configurations only (32-bit words and bus), which the fuzz build asks for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <generated/csr.h>
#include <generated/mem.h>

#include "montmul.h"

_Static_assert(MONTMUL_WORD_BITS == 32 && MONTMUL_BUS_BITS == 32, "the model takes 32-bit words and bus");

#define SLOT_WORDS MONTMUL_BUS_WORDS_PER_SLOT
#define HAS_PAIRS (MONTMUL_PAIR_MAX_WORDS > 0)

static uint32_t slots[MONTMUL_NUM_SLOTS][SLOT_WORDS];
static struct { int set; unsigned size; uint32_t n[SLOT_WORDS]; uint32_t n0inv; } bank[MONTMUL_NUM_BANKS];
static unsigned wslot, wpos, rslot, rpos, error, done, equal;
static uint64_t uptime;

void montmul_model_reset(void)
{
	memset(slots, 0, sizeof(slots));
	memset(bank, 0, sizeof(bank));
	wslot = wpos = rslot = rpos = error = done = equal = 0;
}

/* r = a b 2^(-32 aw) mod n (n odd, nw words), the classic way (CIOS), one conditional subtraction. */
static void mont_product(uint32_t *r, const uint32_t *a, unsigned aw, const uint32_t *b, const uint32_t *n,
                         unsigned nw, uint32_t n0inv)
{
	uint32_t t[SLOT_WORDS + 2] = { 0 }, d[SLOT_WORDS];
	uint64_t c, borrow = 0;
	unsigned i, j;

	for (i = 0; i < aw; i++) {
		uint32_t m;
		c = 0;
		for (j = 0; j < nw; j++) {
			c += (uint64_t)a[i] * b[j] + t[j];
			t[j] = (uint32_t)c;
			c >>= 32;
		}
		c += t[nw];
		t[nw] = (uint32_t)c;
		t[nw + 1] = (uint32_t)(c >> 32);
		m = t[0] * n0inv;
		c = ((uint64_t)m * n[0] + t[0]) >> 32;
		for (j = 1; j < nw; j++) {
			c += (uint64_t)m * n[j] + t[j];
			t[j - 1] = (uint32_t)c;
			c >>= 32;
		}
		c += t[nw];
		t[nw - 1] = (uint32_t)c;
		t[nw] = t[nw + 1] + (uint32_t)(c >> 32);
		t[nw + 1] = 0;
	}
	for (j = 0; j < nw; j++) {
		uint64_t x = (uint64_t)t[j] - n[j] - borrow;
		d[j] = (uint32_t)x;
		borrow = (x >> 32) & 1;
	}
	/* t >= n when the subtraction did not borrow past t's top word */
	memcpy(r, t[nw] >= borrow ? d : t, nw * sizeof(uint32_t));
}

/* A command's result: `value` (size words) into dst, zeros above it to the end of its last row. */
static void write_result(unsigned dst, const uint32_t *value, unsigned size)
{
	unsigned end = (size + MONTMUL_LANES - 1) / MONTMUL_LANES * MONTMUL_LANES;
	memset(slots[dst], 0, (end < SLOT_WORDS ? end : SLOT_WORDS) * sizeof(uint32_t));
	memcpy(slots[dst], value, size * sizeof(uint32_t));
}

/* acc = acc * base^e in bank b's Montgomery domain, e the low ebits bits of e. */
static void exp_product(uint32_t *acc, const uint32_t *base, const uint32_t *e, unsigned ebits, unsigned b)
{
	unsigned size = bank[b].size;
	while (ebits--) {
		mont_product(acc, acc, size, acc, bank[b].n, size, bank[b].n0inv);
		if (e[ebits / 32] >> (ebits % 32) & 1)
			mont_product(acc, acc, size, base, bank[b].n, size, bank[b].n0inv);
	}
}

static void setmod(unsigned b, unsigned slot, unsigned size)
{
	uint32_t n0 = slots[slot][0], x = n0;
	int i;

	if (!(n0 & 1)) {
		error = MONTMUL_ERR_EVEN_MODULUS;
		return;
	}
	for (i = 0; i < 5; i++)
		x *= 2 - n0 * x;            /* Newton: n0^-1 mod 2^32 */
	bank[b].set = 1;
	bank[b].size = size;
	memcpy(bank[b].n, slots[slot], size * sizeof(uint32_t));
	bank[b].n0inv = -x;
	done = 1;
}

/* ADD and SUB over bank 0: (a +/- b) mod n for a, b < n, as the word-serial unit computes it for any
   words (gateware/model.py's add_sub): ADD gives s - n mod R if s = a + b >= n, else s; SUB gives
   a - b + n mod R if a < b, else a - b. */
static void add_sub(unsigned op, uint32_t *r, const uint32_t *a, const uint32_t *b)
{
	unsigned size = bank[0].size, j;
	uint32_t s[SLOT_WORDS], t[SLOT_WORDS];
	uint64_t c = 0, d = 0;

	for (j = 0; j < size; j++) {
		uint64_t x = op == MONTMUL_OP_ADD ? (uint64_t)a[j] + b[j] + c : (uint64_t)a[j] - b[j] - c;
		s[j] = (uint32_t)x;
		c = (x >> 32) & 1;          /* ADD: the carry; SUB: the borrow */
		x = op == MONTMUL_OP_ADD ? (uint64_t)s[j] - bank[0].n[j] - d : (uint64_t)s[j] + bank[0].n[j] + d;
		t[j] = (uint32_t)x;
		d = (x >> 32) & 1;
	}
	/* ADD: s >= n when it carried out or n did not borrow from it; SUB: a < b when it borrowed */
	memcpy(r, (op == MONTMUL_OP_ADD ? c || !d : c) ? t : s, size * sizeof(uint32_t));
}

static void refuse(unsigned code)
{
	error = code;
}

static void accept(void)
{
	error = MONTMUL_ERR_NONE;
	done = 1;
}

/* Context ctx's row of a slot (pair commands). */
static const uint32_t *row(unsigned slot, unsigned ctx)
{
	return slots[slot] + ctx * MONTMUL_PAIR_OFFSET;
}

static void pair_command(unsigned op, unsigned dst, unsigned a, unsigned b, unsigned arg)
{
	uint32_t result[2][SLOT_WORDS];
	unsigned ctx, max_size = bank[0].size > bank[1].size ? bank[0].size : bank[1].size;

	if (op != MONTMUL_OP_MUL_PAIR && (dst == a || dst == b))
		return refuse(MONTMUL_ERR_ALIAS);
	if (op != MONTMUL_OP_MUL_PAIR && (arg < 1 || arg > 32 * max_size))
		return refuse(MONTMUL_ERR_BAD_EXP_BITS);
	for (ctx = 0; ctx < 2; ctx++) {
		unsigned size = bank[ctx].size;
		uint32_t b_value[SLOT_WORDS] = { 0 };
		memcpy(b_value, row(b, ctx), size * sizeof(uint32_t));
		if (op == MONTMUL_OP_MUL_PAIR) {
			if (arg) {      /* the shared a (row 0 and on), R = 2^(32 arg) */
				mont_product(result[ctx], slots[a], arg, b_value, bank[ctx].n, size, bank[ctx].n0inv);
			} else {
				uint32_t a_value[SLOT_WORDS] = { 0 };
				memcpy(a_value, row(a, ctx), size * sizeof(uint32_t));
				mont_product(result[ctx], a_value, size, b_value, bank[ctx].n, size, bank[ctx].n0inv);
			}
		} else {
			uint32_t base[SLOT_WORDS] = { 0 }, e[SLOT_WORDS] = { 0 };
			memcpy(result[ctx], row(dst, ctx), size * sizeof(uint32_t));
			memcpy(base, row(a, ctx), size * sizeof(uint32_t));
			/* each exponent is its row's low arg bits, not cut at its own modulus' size */
			memcpy(e, row(b, ctx), MONTMUL_LANES * sizeof(uint32_t));
			exp_product(result[ctx], base, e, arg, ctx);
		}
	}
	for (ctx = 0; ctx < 2; ctx++) {
		uint32_t *r = slots[dst] + ctx * MONTMUL_PAIR_OFFSET;
		memset(r, 0, MONTMUL_LANES * sizeof(uint32_t));
		memcpy(r, result[ctx], bank[ctx].size * sizeof(uint32_t));
	}
	accept();
}

void montmul_cmd_write(uint32_t cmd)
{
	unsigned op = cmd >> MONTMUL_CMD_OP_SHIFT & MONTMUL_CMD_OP_MASK;
	unsigned dst = cmd >> MONTMUL_CMD_DST_SHIFT & MONTMUL_CMD_DST_MASK;
	unsigned a = cmd >> MONTMUL_CMD_A_SHIFT & MONTMUL_CMD_A_MASK;
	unsigned b = cmd >> MONTMUL_CMD_B_SHIFT & MONTMUL_CMD_B_MASK;
	unsigned arg = cmd >> MONTMUL_CMD_ARG_SHIFT & MONTMUL_CMD_ARG_MASK;
	int bad = dst >= MONTMUL_NUM_SLOTS || a >= MONTMUL_NUM_SLOTS || b >= MONTMUL_NUM_SLOTS;

	/* every scheme's exponentiation computes the same value: the header lists their opcodes */
#define EXP_CASE(opcode) case opcode:
	switch (op) {
	case MONTMUL_OP_NOP:
		return accept();
	case MONTMUL_OP_CLEAR:
		/* the wipe: every slot and both banks; the pointers stay */
		memset(slots, 0, sizeof(slots));
		memset(bank, 0, sizeof(bank));
		equal = 0;
		return accept();
	case MONTMUL_OP_WRITE:
		if (dst >= MONTMUL_NUM_SLOTS)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		wslot = dst;
		wpos = 0;
		return accept();
	case MONTMUL_OP_READ:
		if (a >= MONTMUL_NUM_SLOTS)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		rslot = a;
		rpos = 0;
		return accept();
	case MONTMUL_OP_SETMOD:
		if (a >= MONTMUL_NUM_SLOTS)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		if (dst >= MONTMUL_NUM_BANKS || (dst == 1 && !HAS_PAIRS))
			return refuse(MONTMUL_ERR_BAD_BANK);
		if (arg < MONTMUL_MIN_WORDS || arg > (dst == 1 ? MONTMUL_PAIR_MAX_WORDS : MONTMUL_MAX_WORDS))
			return refuse(MONTMUL_ERR_BAD_SIZE);
		error = MONTMUL_ERR_NONE;
		done = 0;
		return setmod(dst, a, arg);
	case MONTMUL_OP_ADD:
	case MONTMUL_OP_SUB:
	case MONTMUL_OP_EQUAL: {
		uint32_t r[SLOT_WORDS];
		if ((op != MONTMUL_OP_EQUAL && dst >= MONTMUL_NUM_SLOTS) || a >= MONTMUL_NUM_SLOTS
		    || b >= MONTMUL_NUM_SLOTS)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		if (!bank[0].set)
			return refuse(MONTMUL_ERR_NO_MODULUS);
		if (op == MONTMUL_OP_EQUAL) {
			equal = memcmp(slots[a], slots[b], bank[0].size * sizeof(uint32_t)) == 0;
			return accept();
		}
		add_sub(op, r, slots[a], slots[b]);
		write_result(dst, r, bank[0].size);
		return accept();
	}
	case MONTMUL_OP_COPY: {
		uint32_t r[SLOT_WORDS] = { 0 };
		if (dst >= MONTMUL_NUM_SLOTS || a >= MONTMUL_NUM_SLOTS)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		if (arg >= MONTMUL_NUM_BANKS || (arg == 1 && !HAS_PAIRS))
			return refuse(MONTMUL_ERR_BAD_BANK);
		if (!bank[arg].set)
			return refuse(MONTMUL_ERR_NO_MODULUS);
		memcpy(r, slots[a] + arg * MONTMUL_PAIR_OFFSET, bank[arg].size * sizeof(uint32_t));
		memcpy(slots[dst], r, sizeof(r));
		return accept();
	}
	case MONTMUL_OP_MUL_PAIR:
	MONTMUL_PAIR_EXP_OPCODES(EXP_CASE)
		if (!HAS_PAIRS)
			return refuse(MONTMUL_ERR_BAD_OPCODE);
		if (bad)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		if (!bank[0].set || !bank[1].set)
			return refuse(MONTMUL_ERR_NO_MODULUS);
		if (bank[0].size > MONTMUL_LANES || (op == MONTMUL_OP_MUL_PAIR && arg > MONTMUL_MAX_WORDS))
			return refuse(MONTMUL_ERR_BAD_SIZE);
		return pair_command(op, dst, a, b, arg);
	case MONTMUL_OP_MUL:
	MONTMUL_EXP_OPCODES(EXP_CASE) {
		uint32_t acc[SLOT_WORDS];
		unsigned size = bank[0].size;
		if (bad)
			return refuse(MONTMUL_ERR_BAD_SLOT);
		if (!bank[0].set)
			return refuse(MONTMUL_ERR_NO_MODULUS);
		if (op == MONTMUL_OP_MUL) {
			mont_product(acc, slots[a], size, slots[b], bank[0].n, size, bank[0].n0inv);
		} else {
			if (dst == a || dst == b)
				return refuse(MONTMUL_ERR_ALIAS);
			if (arg < 1 || arg > 32 * size)
				return refuse(MONTMUL_ERR_BAD_EXP_BITS);
			memcpy(acc, slots[dst], size * sizeof(uint32_t));
			exp_product(acc, slots[a], slots[b], arg, 0);
		}
		write_result(dst, acc, size);
		return accept();
	}
	default:
		return refuse(MONTMUL_ERR_BAD_OPCODE);
	}
#undef EXP_CASE
}

/* The data window (the driver's only use of LiteX's bus accessors): a store writes the next word. */
void csr_write_simple(unsigned long value, unsigned long address)
{
	if (address != MONTMUL_DATA_BASE)
		abort();
	if (wpos == SLOT_WORDS) {
		error = MONTMUL_ERR_OVERFLOW;
		return;
	}
	slots[wslot][wpos++] = (uint32_t)value;
}

/* A load returns the current word and moves on. */
unsigned long csr_read_simple(unsigned long address)
{
	if (address != MONTMUL_DATA_BASE)
		abort();
	if (rpos == SLOT_WORDS) {
		error = MONTMUL_ERR_OVERFLOW;
		return 0;
	}
	return slots[rslot][rpos++];
}

/* The `ctrl` register's reset (the driver's mm_reset): the registers as after power-up (no modulus in
   force, pointers and status cleared), the operand memories kept, as the peripheral's reset does. */
void montmul_ctrl_write(uint32_t value)
{
	if (value & (1u << CSR_MONTMUL_CTRL_RESET_OFFSET)) {
		memset(bank, 0, sizeof(bank));
		wslot = wpos = rslot = rpos = error = done = equal = 0;
	}
}

uint32_t montmul_status_read(void)
{
	return error << MONTMUL_STATUS_ERROR_SHIFT | (done ? MONTMUL_STATUS_DONE : 0) | (equal ? MONTMUL_STATUS_EQUAL : 0);
}

void timer0_uptime_latch_write(uint32_t value)
{
	(void)value;
	uptime += 1000;     /* a clock that moves, by a plausible amount for `info`'s check */
}

uint64_t timer0_uptime_cycles_read(void)
{
	return uptime;
}
