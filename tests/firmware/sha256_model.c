/* Host stand-in for the SHA-256 engine (soc/sha256.py), for its driver and hash class
   (firmware/hash/sha256_hw.c) on the host: the window is an array (generated/mem.h points the driver's
   SHA256_WINDOW_BASE at it), its message words in memory byte order as the bus window takes them; the
   command CSR does FIPS 180-4's compression function at once (never busy), with the refusals of the
   contract (gateware/sha256/interface.py) for an unknown command. The DMA copies each block from its
   address into the message words and compresses it, at once too, with the wrapper's refusals (a
   misaligned address, no block, blocks not all in main RAM). Main RAM is what the test says it is
   (sha256_model_ram_base and _size, which generated/mem.h names MAIN_RAM_BASE and MAIN_RAM_SIZE); the
   32-bit bus address the driver writes is taken at its place there. The status fields' positions, the
   command codes, a block's cycles and the window's offsets come from the contract as -D flags
   (bnlib.sha256_defines). */
#include <stdint.h>
#include <string.h>
#include <generated/csr.h>

static const uint32_t initial_hash[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};
static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* The window: 16 message words from SHA256_WINDOW_MESSAGE, 8 state words from SHA256_WINDOW_STATE. */
volatile uint32_t sha256_model_window[SHA256_WINDOW_STATE + 8];
static uint32_t status;
/* Main RAM as the DMA sees it (none until a test says), and the blocks the DMA has fed so far. */
unsigned long sha256_model_ram_base, sha256_model_ram_size, sha256_model_dma_blocks;
static uint32_t dma_address;

static uint32_t ror(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

/* The message word i as the engine takes it: the window's bytes in FIPS (big-endian) order. */
static uint32_t message(unsigned i)
{
	const volatile unsigned char *p = (const volatile unsigned char *)&sha256_model_window[SHA256_WINDOW_MESSAGE + i];

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void compress(void)
{
	volatile uint32_t *state = sha256_model_window + SHA256_WINDOW_STATE;
	uint32_t w[64], v[8], t1, t2;
	unsigned t, i;

	for (t = 0; t < 64; t++)
		w[t] = t < 16 ? message(t)
		     : (ror(w[t - 2], 17) ^ ror(w[t - 2], 19) ^ w[t - 2] >> 10) + w[t - 7]
		       + (ror(w[t - 15], 7) ^ ror(w[t - 15], 18) ^ w[t - 15] >> 3) + w[t - 16];
	for (i = 0; i < 8; i++)
		v[i] = state[i];
	for (t = 0; t < 64; t++) {
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6]))
		     + round_constants[t] + w[t];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		for (i = 7; i > 0; i--)
			v[i] = v[i - 1];
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		state[i] = state[i] + v[i];
}

void sha256_command_write(uint32_t value)
{
	uint32_t code = value >> CSR_SHA256_COMMAND_CODE_OFFSET & 15;
	unsigned i;

	if (code == SHA256_COMMAND_INIT) {
		for (i = 0; i < 8; i++)
			sha256_model_window[SHA256_WINDOW_STATE + i] = initial_hash[i];
	} else if (code == SHA256_COMMAND_BLOCK) {
		compress();
	} else {
		status |= 1u << CSR_SHA256_STATUS_BAD_COMMAND_OFFSET;
		return;
	}
	status = 0;
}

uint32_t sha256_status_read(void)
{
	return status;
}

void sha256_dma_address_write(uint32_t value)
{
	dma_address = value;
}

void sha256_dma_blocks_write(uint32_t blocks)
{
	uint32_t offset = dma_address - (uint32_t)sha256_model_ram_base;
	const unsigned char *in = (const unsigned char *)(sha256_model_ram_base + offset);

	if (dma_address % 4 != 0 || blocks == 0 || offset >= sha256_model_ram_size
	    || blocks > (sha256_model_ram_size - offset) / 64) {
		status |= 1u << CSR_SHA256_STATUS_DMA_REFUSED_OFFSET;
		return;
	}
	for (; blocks; blocks--, in += 64) {
		memcpy((void *)(sha256_model_window + SHA256_WINDOW_MESSAGE), in, 64);
		compress();
		sha256_model_dma_blocks++;
	}
	status = 0;
}
