/* RSA with padding over our raw RSA, with BearSSL's MGF1, HMAC-DRBG and encodings over the selected
   SHA-256 (rsa_padding.h). Not timed code itself: linker.ld places this file and BearSSL's modules for it
   after the timed region, so they move none of the bench's addresses. */
#include <string.h>

#include "bignum/ct.h"
#include "hash/sha256_select.h"
#include "peers/peer_common.h"
#include "pad/rsa_padding.h"
#include "rand/rng.h"

#if PEER_HAVE_BEARSSL

#include "bearssl_hash.h"
#include "bearssl_rand.h"
#include "bearssl_rsa.h"
#include "inner.h"

/* Salts and seeds come from the device's generator (rand/rng.h) through BearSSL's generator interface;
   a failed request is remembered, since that interface has no way to say so. */
static int random_failed;

static void random_generate(const br_prng_class **ctx, void *out, size_t len)
{
	(void)ctx;
	if (rng_generate(out, len) != RNG_OK)
		random_failed = 1;
}

static const br_prng_class random_class = { sizeof(const br_prng_class *), NULL, random_generate, NULL };
static const br_prng_class *random_vtable = &random_class;

static uint32_t pad_value[BN_MAX_WORDS];     /* the integer an RSA operation works on */
static unsigned char pad_work[PAD_MAX_BYTES];

static void sha256(unsigned char *out, const unsigned char *msg, size_t msg_len)
{
	sha256_sel_context h;
	sha256_sel_vtable.init(&h.vtable);
	sha256_sel_vtable.update(&h.vtable, msg, msg_len);
	sha256_sel_vtable.out(&h.vtable, out);
}

int pad_random_init(void)
{
	return rng_reseed() == RNG_OK ? PAD_OK : PAD_ERR_RANDOM;
}

/* The generator, its failure flag cleared. */
static const br_prng_class **random_source(void)
{
	random_failed = 0;
	return &random_vtable;
}

/* len big-endian bytes to and from `words` limbs (at least len/4 rounded up), a word at a time: the
   byte-wise loops of peer_common.h take ~5,000 cycles each way at 2048 bits, 2 % of a signature. */
static void limbs_from_bytes(uint32_t *r, unsigned words, const unsigned char *x, size_t len)
{
	size_t full = len / 4, i;
	uint32_t top = 0;

	for (i = 0; i < full; i++)
		r[i] = br_dec32be(x + len - 4 * (i + 1));
	if (len % 4) {
		for (i = 0; i < len % 4; i++)
			top = top << 8 | x[i];
		r[full++] = top;
	}
	for (i = full; i < words; i++)
		r[i] = 0;
}

static void limbs_to_bytes(unsigned char *x, size_t len, const uint32_t *a)
{
	size_t full = len / 4, i;

	for (i = 0; i < full; i++)
		br_enc32be(x + len - 4 * (i + 1), a[i]);
	for (i = 0; i < len % 4; i++)
		x[len % 4 - 1 - i] = (unsigned char)(a[full] >> (8 * i));
}

/* The two operations in BearSSL's shape (br_rsa_private / br_rsa_public: x in place, k big-endian
   bytes; 1 on success), on our backend. The private one uses CRT and its fault check. */
static uint32_t ours_private(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, unsigned char *x)
{
	size_t len = pad_key_bytes(k);
	unsigned nw = BN_WORDS(k->bits);
	int err;

	limbs_from_bytes(pad_value, nw, x, len);
	err = rsa_private_crt(b, k, c, pad_value, pad_value);
	limbs_to_bytes(x, len, pad_value);
	memset(pad_value, 0, nw * sizeof(uint32_t));
	return err == RSA_OK;
}

/* ours_private for a ciphertext, any k bytes: one not below the modulus is replaced by zero and
   decrypted all the same (rsa_private_crt would refuse it at once), so that refusing it takes the
   cycles a decryption takes. 1 when it was below the modulus and the result passed the CRT check. */
static uint32_t ours_decrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, unsigned char *x)
{
	size_t len = pad_key_bytes(k);
	unsigned nw = BN_WORDS(k->bits), i;
	uint32_t below, mask;
	int err;

	limbs_from_bytes(pad_value, nw, x, len);
	below = LT0(bn_cmp(pad_value, k->n, nw));
	mask = ct_mask_from_bit(below);
	for (i = 0; i < nw; i++)
		pad_value[i] &= mask;
	err = rsa_private_crt(b, k, c, pad_value, pad_value);
	limbs_to_bytes(x, len, pad_value);
	memset(pad_value, 0, nw * sizeof(uint32_t));
	return below & EQ0(err);
}

static uint32_t ours_public(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c, unsigned char *x)
{
	size_t len = pad_key_bytes(k);
	int err;

	limbs_from_bytes(pad_value, BN_WORDS(k->bits), x, len);
	err = rsa_public(b, k, c, pad_value, pad_value);
	limbs_to_bytes(x, len, pad_value);
	return err == RSA_OK;
}

/* ---- EMSA-PSS (RFC 8017, 9.1) with SHA-256 and MGF1-SHA-256: BearSSL 0.6 has none ---- */

/* H = SHA-256(0x00 * 8 || mHash || salt) */
static void pss_hash(unsigned char *out, const unsigned char *msg_hash, const unsigned char *salt, size_t salt_len)
{
	static const unsigned char zeros[8];
	sha256_sel_context h;
	sha256_sel_vtable.init(&h.vtable);
	sha256_sel_vtable.update(&h.vtable, zeros, sizeof(zeros));
	sha256_sel_vtable.update(&h.vtable, msg_hash, PAD_SHA256_BYTES);
	sha256_sel_vtable.update(&h.vtable, salt, salt_len);
	sha256_sel_vtable.out(&h.vtable, out);
}

/* The encoded message has emBits = bits - 1 bits, so em_len is k, or k - 1 (then x[0] is zero). */
static size_t pss_em_len(const rsa_key *k)
{
	return (k->bits - 1 + 7) / 8;
}

int pad_pss_max_salt(const rsa_key *k)
{
	size_t em_len = pss_em_len(k);

	return em_len < PAD_SHA256_BYTES + 2 ? PAD_ERR_KEY_SIZE : (int)(em_len - PAD_SHA256_BYTES - 2);
}

/* PAD_SALT_HASH as a length: the hash's, or the most the modulus leaves room for when that is less
   (512 bits: 30 bytes), as `cryptography`'s PSS.MAX_LENGTH would give. */
static int pss_salt_len(const rsa_key *k, int salt_len)
{
	int max = pad_pss_max_salt(k);

	if (max < 0)
		return max;
	if (salt_len == PAD_SALT_HASH)
		return max < PAD_SHA256_BYTES ? max : PAD_SHA256_BYTES;
	return salt_len >= 0 && salt_len <= max ? salt_len : PAD_ERR_SALT_LENGTH;
}

/* x (k bytes) := the PSS encoding of msg_hash with the salt given (salt_len bytes, a length
   pss_salt_len accepted). */
static void pss_encode(const rsa_key *k, const unsigned char *msg_hash, const unsigned char *salt, size_t salt_len,
                       unsigned char *x)
{
	size_t len = pad_key_bytes(k), em_len = pss_em_len(k), db_len = em_len - PAD_SHA256_BYTES - 1;
	unsigned char *em = x + (len - em_len), *h = em + db_len;

	memset(x, 0, len);
	em[db_len - salt_len - 1] = 0x01;
	memcpy(em + db_len - salt_len, salt, salt_len);
	pss_hash(h, msg_hash, salt, salt_len);
	br_mgf1_xor(em, db_len, &sha256_sel_vtable, h, PAD_SHA256_BYTES);
	em[0] &= 0xFF >> (8 * em_len - (k->bits - 1));
	em[em_len - 1] = 0xBC;
}

/* 1 when x (the public operation's result, k bytes) is a valid PSS encoding of msg_hash with a salt
   of salt_arg bytes (PAD_SALT_ANY: of any length, the one the padding shows), 0 when not; or a
   PAD_ERR_* for a salt length the key cannot have. Public data only: plain branches. */
static int pss_check(const rsa_key *k, const unsigned char *msg_hash, int salt_arg, unsigned char *x)
{
	size_t len = pad_key_bytes(k), em_len = pss_em_len(k), db_len, i;
	unsigned char *em = x + (len - em_len), *h, expected[PAD_SHA256_BYTES];
	unsigned char top_mask = 0xFF >> (8 * em_len - (k->bits - 1));
	int salt_len = salt_arg == PAD_SALT_ANY ? 0 : pss_salt_len(k, salt_arg);

	if (pad_pss_max_salt(k) < 0)          /* no PSS encoding fits this modulus: nothing is valid */
		return 0;
	if (salt_len < 0)
		return salt_len;
	if ((len > em_len && x[0] != 0) || em[em_len - 1] != 0xBC || (em[0] & ~top_mask))
		return 0;
	db_len = em_len - PAD_SHA256_BYTES - 1;
	h = em + db_len;
	br_mgf1_xor(em, db_len, &sha256_sel_vtable, h, PAD_SHA256_BYTES);
	em[0] &= top_mask;
	for (i = 0; i < db_len && em[i] == 0; i++)
		;
	if (i == db_len || em[i] != 0x01)
		return 0;
	/* RFC 8017, 9.1.2 step 10: with a known salt length, the 0x01 sits right before the salt */
	if (salt_arg != PAD_SALT_ANY && i != db_len - (size_t)salt_len - 1)
		return 0;
	pss_hash(expected, msg_hash, em + i + 1, db_len - i - 1);
	return memcmp(expected, h, PAD_SHA256_BYTES) == 0;
}

/* ---- EME-OAEP decoding (RFC 8017, 7.1.2 step 3) with SHA-256 and MGF1-SHA-256 ---- */

/* As BearSSL's br_rsa_oaep_unpad, in constant time, except for its end: it moves the message to the
   buffer's start when (and only when) the padding is valid, cycles that tell success from failure
   and grow with the message. Here the whole block is copied to out either way (zeros when the
   padding is not valid), the message its last *msg_len bytes. 1 when valid. em is overwritten. */
static uint32_t oaep_decode(const unsigned char *label, size_t label_len, unsigned char *em, size_t k,
                            unsigned char *out, size_t *msg_len)
{
	unsigned char *seed = em + 1, *db = em + 1 + PAD_SHA256_BYTES, label_hash[PAD_SHA256_BYTES];
	size_t db_len = k - PAD_SHA256_BYTES - 1, u;
	uint32_t r, s, zlen, mask;

	br_mgf1_xor(seed, PAD_SHA256_BYTES, &sha256_sel_vtable, db, db_len);
	br_mgf1_xor(db, db_len, &sha256_sel_vtable, seed, PAD_SHA256_BYTES);
	/* lHash' ^ lHash: zeros when the labels agree, compared with the padding's zeros below */
	sha256(label_hash, label, label_len);
	for (u = 0; u < PAD_SHA256_BYTES; u++)
		db[u] ^= label_hash[u];
	/* BearSSL's scan: r is 1 up to the first non-zero byte of the data block (0 throughout when
	   Y != 0), s becomes 1 when that byte is 0x01, zlen counts the zeros before it; valid when s and
	   at least the hash's length of zeros (the labels' hashes agreed). */
	r = EQ(em[0], 0);
	s = 0;
	zlen = 0;
	for (u = 0; u < db_len; u++) {
		uint32_t w = db[u], nz = r & NEQ(w, 0);

		s |= nz & EQ(w, 0x01);
		r &= NOT(nz);
		zlen += r;
	}
	s &= GE(zlen, PAD_SHA256_BYTES);
	mask = ct_mask_from_bit(s);
	for (u = 0; u < k; u++)
		out[u] = em[u] & (unsigned char)mask;
	*msg_len = MUX(s, (uint32_t)db_len - zlen - 1, 0);
	return s;
}

/* ---- the operations ---- */

/* x (k bytes) := the encoded message of msg: its SHA-256, then PKCS#1 v1.5's or PSS's encoding (with the
   salt given). With the engine, whatever it hashes is hashed twice and compared (docs/security.md,
   "Faults"): the message's digest, and for PSS the whole encoding (H and the MGF1 mask) from the second
   digest; PKCS#1 v1.5 hashes nothing after the digest. A hash the engine got wrong once gives two results
   that differ: PAD_ERR_HASH, and no signature of a wrong hash leaves. */
static int sig_encode(enum pad_scheme scheme, const rsa_key *k, const unsigned char *msg, size_t msg_len,
                      const unsigned char *salt, size_t salt_len, unsigned char *x)
{
	unsigned char msg_hash[PAD_SHA256_BYTES], again[PAD_SHA256_BYTES];
	int twice = sha256_selected() == SHA256_IMPL_HW, err = PAD_OK;

	sha256(msg_hash, msg, msg_len);
	if (twice) {
		sha256(again, msg, msg_len);
		if (memcmp(msg_hash, again, PAD_SHA256_BYTES) != 0)
			return PAD_ERR_HASH;
	}
	if (scheme == PAD_PSS) {
		pss_encode(k, msg_hash, salt, salt_len, x);
		if (twice) {
			pss_encode(k, again, salt, salt_len, pad_work);
			if (memcmp(x, pad_work, pad_key_bytes(k)) != 0)
				err = PAD_ERR_HASH;
			memset(pad_work, 0, pad_key_bytes(k));
		}
	} else if (!br_rsa_pkcs1_sig_pad(BR_HASH_OID_SHA256, msg_hash, PAD_SHA256_BYTES, k->bits, x)) {
		err = PAD_ERR_KEY_SIZE;
	}
	return err;
}

int pad_sign(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
             const unsigned char *msg, size_t msg_len, int salt_arg, unsigned char *sig)
{
	unsigned char salt[PAD_MAX_BYTES];
	const br_prng_class **rng;
	uint32_t faults = sha256_sel_faults();
	int salt_len = 0, err;

	if (scheme == PAD_PSS) {
		if ((salt_len = pss_salt_len(k, salt_arg)) < 0)
			return salt_len;
		rng = random_source();
		(*rng)->generate(rng, salt, (size_t)salt_len);
		if (random_failed)
			return PAD_ERR_RANDOM;
	}
	err = sig_encode(scheme, k, msg, msg_len, salt, (size_t)salt_len, sig);
	if (err == PAD_OK && sha256_sel_faults() != faults)      /* a fault the engine reported, the salt's DRBG's too */
		err = PAD_ERR_HASH;
	if (err != PAD_OK) {
		memset(sig, 0, pad_key_bytes(k));
		return err;
	}
	return ours_private(b, k, c, sig) ? PAD_OK : PAD_ERR_RSA;
}

int pad_verify(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
               const unsigned char *msg, size_t msg_len, int salt_len, const unsigned char *sig)
{
	unsigned char msg_hash[PAD_SHA256_BYTES], signed_hash[PAD_SHA256_BYTES];
	size_t len = pad_key_bytes(k);
	uint32_t faults = sha256_sel_faults();
	int valid;

	sha256(msg_hash, msg, msg_len);
	memcpy(pad_work, sig, len);
	if (!ours_public(b, k, c, pad_work))      /* not below the modulus */
		valid = 0;
	else if (scheme == PAD_PSS)
		valid = pss_check(k, msg_hash, salt_len, pad_work);
	else
		valid = br_rsa_pkcs1_sig_unpad(pad_work, len, BR_HASH_OID_SHA256, PAD_SHA256_BYTES, signed_hash)
		        && memcmp(signed_hash, msg_hash, PAD_SHA256_BYTES) == 0;
	/* a verdict over a hash the engine got wrong is no verdict */
	return sha256_sel_faults() != faults ? PAD_ERR_HASH : valid;
}

int pad_oaep_encrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *msg, size_t msg_len, unsigned char *out)
{
	size_t len = pad_key_bytes(k);
	uint32_t faults = sha256_sel_faults();
	br_rsa_public_key pk;

	if (len < 2 * PAD_SHA256_BYTES + 2)
		return PAD_ERR_KEY_SIZE;
	if (msg_len > len - 2 * PAD_SHA256_BYTES - 2)
		return PAD_ERR_TOO_LONG;
	/* br_rsa_oaep_pad reads only the modulus' length from the key */
	peer_to_bytes(pad_work, len, k->n);
	pk = (br_rsa_public_key){ pad_work, len, NULL, 0 };
	if (br_rsa_oaep_pad(random_source(), &sha256_sel_vtable, label, label_len, &pk, out, len, msg, msg_len) != len)
		return PAD_ERR_TOO_LONG;
	if (random_failed || sha256_sel_faults() != faults) {
		memset(out, 0, len);
		return random_failed ? PAD_ERR_RANDOM : PAD_ERR_HASH;
	}
	return ours_public(b, k, c, out) ? PAD_OK : PAD_ERR_RSA;
}

int pad_oaep_decrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *in, unsigned char *out, size_t *msg_len)
{
	size_t len = pad_key_bytes(k);
	uint32_t faults = sha256_sel_faults(), ok;

	if (len < 2 * PAD_SHA256_BYTES + 2)
		return PAD_ERR_KEY_SIZE;
	memcpy(pad_work, in, len);
	/* every step runs whatever the steps before it found, so that every failure takes the cycles
	   a success takes */
	ok = ours_decrypt(b, k, c, pad_work);
	ok &= oaep_decode(label, label_len, pad_work, len, out, msg_len);
	memset(pad_work, 0, sizeof(pad_work));
	/* an engine fault is the hardware's, not the ciphertext's: its own error, no message */
	if (sha256_sel_faults() != faults) {
		memset(out, 0, len);
		*msg_len = 0;
		return PAD_ERR_HASH;
	}
	return (int)(~ct_mask_from_bit(ok) & (uint32_t)PAD_ERR_DECRYPT);     /* no branch either */
}

#else

int pad_random_init(void)
{
	return PAD_ERR_UNAVAILABLE;
}

int pad_pss_max_salt(const rsa_key *k)
{
	(void)k;
	return PAD_ERR_UNAVAILABLE;
}

int pad_sign(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
             const unsigned char *msg, size_t msg_len, int salt_len, unsigned char *sig)
{
	(void)scheme; (void)b; (void)k; (void)c; (void)msg; (void)msg_len; (void)salt_len; (void)sig;
	return PAD_ERR_UNAVAILABLE;
}

int pad_verify(enum pad_scheme scheme, const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
               const unsigned char *msg, size_t msg_len, int salt_len, const unsigned char *sig)
{
	(void)scheme; (void)b; (void)k; (void)c; (void)msg; (void)msg_len; (void)salt_len; (void)sig;
	return PAD_ERR_UNAVAILABLE;
}

int pad_oaep_encrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *msg, size_t msg_len, unsigned char *out)
{
	(void)b; (void)k; (void)c; (void)label; (void)label_len; (void)msg; (void)msg_len; (void)out;
	return PAD_ERR_UNAVAILABLE;
}

int pad_oaep_decrypt(const rsa_backend *b, const rsa_key *k, const rsa_ctx *c,
                     const unsigned char *label, size_t label_len,
                     const unsigned char *in, unsigned char *out, size_t *msg_len)
{
	(void)b; (void)k; (void)c; (void)label; (void)label_len; (void)in; (void)out; (void)msg_len;
	return PAD_ERR_UNAVAILABLE;
}

#endif
