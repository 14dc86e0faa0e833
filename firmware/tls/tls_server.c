/* The TLS server (tls_server.h): BearSSL's engine, our RSA behind its two hooks, metered vtables, and
   the loop that moves one connection's records over the UART. Not timed code: linker.ld places this
   file and the BearSSL modules only it uses after the bench's timed region. */
#include <stdio.h>
#include <string.h>

#include <generated/soc.h>

#include "bignum/bignum.h"
#include "console_protocol.h"
#include "drivers/cycles.h"
#include "hash/sha256_select.h"
#include "peers/peer_common.h"
#include "rand/rng.h"
#include "tls/tls_server.h"
#include "tls/tls_uart.h"

static unsigned char chain_der[TLS_CHAIN_MAX];
static size_t chain_len;

void tls_chain_clear(void)
{
	chain_len = 0;
}

int tls_chain_append(const unsigned char *der, size_t len)
{
	if (len > sizeof(chain_der) - chain_len)
		return -1;
	memcpy(chain_der + chain_len, der, len);
	chain_len += len;
	return 0;
}

size_t tls_chain_bytes(void)
{
	return chain_len;
}

/* The length of the DER SEQUENCE at der (at most `left` bytes), header included; 0 when there is none. */
static size_t der_sequence(const unsigned char *der, size_t left)
{
	size_t header, body = 0, i;

	if (left < 2 || der[0] != 0x30)
		return 0;
	if (der[1] < 0x80) {
		header = 2;
		body = der[1];
	} else {
		size_t digits = der[1] & 0x7f;
		if (digits < 1 || digits > 3 || left < 2 + digits)
			return 0;
		for (i = 0; i < digits; i++)
			body = body << 8 | der[2 + i];
		header = 2 + digits;
	}
	return body <= left - header ? header + body : 0;
}

int tls_chain_certs(void)
{
	size_t at = 0, len;
	int certs = 0;

	while (at < chain_len) {
		if (certs == TLS_CHAIN_CERTS || !(len = der_sequence(chain_der + at, chain_len - at)))
			return -1;
		at += len;
		certs++;
	}
	return certs;
}

int tls_chain_holds_key(const rsa_key *k)
{
	static unsigned char n[PEER_MAX_BYTES];
	size_t nlen = peer_bytes(k->bits), leaf = der_sequence(chain_der, chain_len), i;

	peer_to_bytes(n, nlen, k->n);
	for (i = 0; i + nlen <= leaf; i++)
		if (memcmp(chain_der + i, n, nlen) == 0)
			return 1;
	return 0;
}

static int impl_named(const struct rsa_impl *impl, const char *const *names, unsigned count)
{
	unsigned i;

	for (i = 0; impl && i < count; i++)
		if (strcmp(impl->name, names[i]) == 0)
			return 1;
	return 0;
}

int tls_impl_supported(const struct rsa_impl *impl)
{
	static const char *const names[] = TLS_IMPL_NAMES;

	if (impl && impl->peer && !impl->peer->built)      /* BearSSL's i31 code only with the bench's peer */
		return 0;
	return impl_named(impl, names, sizeof(names) / sizeof(names[0]));
}

int tls_impl_allowed(const struct rsa_impl *impl)
{
#ifdef RSA_BENCH_SIMULATION
	(void)impl;
	return 1;       /* the benchmark compares them all, hw_seq_window's timing leak included */
#else
	static const char *const names[] = TLS_CONSTANT_TIME_IMPL_NAMES;
	return impl_named(impl, names, sizeof(names) / sizeof(names[0]));
#endif
}

int tls_seed(struct tls_connection *c, const unsigned char *mix, size_t mix_len)
{
	/* fresh entropy for every connection, the host's bytes mixed in after it, then the seed drawn */
	int err = rng_reseed();

	if (err == RNG_OK && mix_len)
		err = rng_add_input(mix, mix_len);
	if (err == RNG_OK)
		err = rng_generate(c->seed, TLS_SEED_BYTES);
	c->seed_len = err == RNG_OK ? TLS_SEED_BYTES : 0;
	return err;
}

#if TLS_HAVE_BEARSSL

#include "bearssl.h"
#include "inner.h"

/* ---- metered vtables: each is BearSSL's own (the hash: the selected SHA-256), entered through the meter ---- */

static const br_hash_class metered_sha256;

static void sha256_init(const br_hash_class **ctx)
{
	enum tls_part was = tls_meter_enter(TLS_HASH);
	sha256_sel_vtable.init(ctx);
	*ctx = &metered_sha256;         /* calls through the context come back here */
	tls_meter_leave(was);
}

static void sha256_update(const br_hash_class **ctx, const void *data, size_t len)
{
	enum tls_part was = tls_meter_enter(TLS_HASH);
	sha256_sel_vtable.update(ctx, data, len);
	tls_meter_leave(was);
}

static void sha256_out(const br_hash_class *const *ctx, void *dst)
{
	enum tls_part was = tls_meter_enter(TLS_HASH);
	sha256_sel_vtable.out(ctx, dst);
	tls_meter_leave(was);
}

static uint64_t sha256_state(const br_hash_class *const *ctx, void *dst)
{
	enum tls_part was = tls_meter_enter(TLS_HASH);
	uint64_t count = sha256_sel_vtable.state(ctx, dst);
	tls_meter_leave(was);
	return count;
}

/* BearSSL's multi-hasher calls it on a context nobody initialised: sha256_sel_vtable's sets it all. */
static void sha256_set_state(const br_hash_class **ctx, const void *stb, uint64_t count)
{
	enum tls_part was = tls_meter_enter(TLS_HASH);
	sha256_sel_vtable.set_state(ctx, stb, count);
	tls_meter_leave(was);
}

/* The selected SHA-256 (its descriptor: BearSSL takes it for SHA-256) under another vtable. */
static const br_hash_class metered_sha256 = {
	sizeof(sha256_sel_context),
	BR_HASHDESC_ID(br_sha256_ID) | BR_HASHDESC_OUT(32) | BR_HASHDESC_STATE(32) | BR_HASHDESC_LBLEN(6)
		| BR_HASHDESC_MD_PADDING | BR_HASHDESC_MD_PADDING_BE,
	sha256_init, sha256_update, sha256_out, sha256_state, sha256_set_state
};

/* HMAC(secret, a || label || seed) into out (32 bytes); a may be NULL (none). */
static void prf_hmac(const br_hmac_key_context *kc, const unsigned char *a, const char *label, size_t label_len,
                     size_t seed_num, const br_tls_prf_seed_chunk *seed, unsigned char *out)
{
	br_hmac_context hc;
	size_t i;

	br_hmac_init(&hc, kc, 0);
	if (a)
		br_hmac_update(&hc, a, br_sha256_SIZE);
	br_hmac_update(&hc, label, label_len);
	for (i = 0; i < seed_num; i++)
		br_hmac_update(&hc, seed[i].data, seed[i].len);
	br_hmac_out(&hc, out);
	bn_wipe(&hc, sizeof(hc));
}

/* TLS 1.2's PRF with SHA-256 (RFC 5246, section 5: P_SHA256(secret, label || seed)) over BearSSL's public
   HMAC and the selected SHA-256: br_tls12_sha256_prf would hash in software whatever the selection.
   Its hashes are the PRF's part of the meter (the unmetered class), as BearSSL's were. */
static void prf_sha256(void *dst, size_t len, const void *secret, size_t secret_len, const char *label,
                       size_t seed_num, const br_tls_prf_seed_chunk *seed)
{
	br_hmac_key_context kc;
	unsigned char a[br_sha256_SIZE], block[br_sha256_SIZE], *out = dst;
	size_t label_len = strlen(label), n;

	br_hmac_key_init(&kc, &sha256_sel_vtable, secret, secret_len);
	prf_hmac(&kc, NULL, label, label_len, seed_num, seed, a);               /* A(1) */
	while (len) {
		prf_hmac(&kc, a, label, label_len, seed_num, seed, block);          /* HMAC(A(i) || label || seed) */
		n = len < sizeof(block) ? len : sizeof(block);
		memcpy(out, block, n);
		out += n;
		len -= n;
		if (len)
			prf_hmac(&kc, a, "", 0, 0, NULL, a);                             /* A(i + 1) = HMAC(A(i)) */
	}
	bn_wipe(&kc, sizeof(kc));
	bn_wipe(a, sizeof(a));
	bn_wipe(block, sizeof(block));
}

static void metered_prf(void *dst, size_t len, const void *secret, size_t secret_len, const char *label,
                        size_t seed_num, const br_tls_prf_seed_chunk *seed)
{
	enum tls_part was = tls_meter_enter(TLS_PRF);
	prf_sha256(dst, len, secret, secret_len, label, seed_num, seed);
	tls_meter_leave(was);
}

/* The engine's fault count when the connection started: a signature is refused once it changed (the
   hash it signs, or the generator's, may be wrong). */
static uint32_t faults_at_start;

static int hash_intact(void)
{
	return sha256_sel_faults() == faults_at_start;
}

/* ECDHE: X25519 and P-256, each on BearSSL's m31 code (the fastest here: firmware/Makefile). */
static const br_ec_impl *curve_code(int curve)
{
	return curve == BR_EC_curve25519 ? &br_ec_c25519_m31 : &br_ec_p256_m31;
}

static const unsigned char *ec_generator(int curve, size_t *len)
{
	return curve_code(curve)->generator(curve, len);
}

static const unsigned char *ec_order(int curve, size_t *len)
{
	return curve_code(curve)->order(curve, len);
}

static size_t ec_xoff(int curve, size_t *len)
{
	return curve_code(curve)->xoff(curve, len);
}

static uint32_t ec_mul(unsigned char *g, size_t g_len, const unsigned char *x, size_t x_len, int curve)
{
	enum tls_part was = tls_meter_enter(TLS_ECDHE);
	uint32_t ok = curve_code(curve)->mul(g, g_len, x, x_len, curve);
	tls_meter_leave(was);
	return ok;
}

static size_t ec_mulgen(unsigned char *r, const unsigned char *x, size_t x_len, int curve)
{
	enum tls_part was = tls_meter_enter(TLS_ECDHE);
	size_t len = curve_code(curve)->mulgen(r, x, x_len, curve);
	tls_meter_leave(was);
	return len;
}

static uint32_t ec_muladd(unsigned char *a, const unsigned char *b, size_t len, const unsigned char *x,
                          size_t x_len, const unsigned char *y, size_t y_len, int curve)
{
	(void)a; (void)b; (void)len; (void)x; (void)x_len; (void)y; (void)y_len; (void)curve;
	return 0;       /* ECDSA only; an RSA server never calls it (both m15 codes lack it for X25519) */
}

static const br_ec_impl metered_ec = {
	(uint32_t)1 << BR_EC_curve25519 | (uint32_t)1 << BR_EC_secp256r1,
	ec_generator, ec_order, ec_xoff, ec_mul, ec_mulgen, ec_muladd
};

/* AES-128-GCM records: BearSSL's classes; their init (the key schedule) and every record metered. */
static const br_sslrec_in_gcm_class metered_gcm_in;
static const br_sslrec_out_gcm_class metered_gcm_out;

static int gcm_check_length(const br_sslrec_in_class *const *ctx, size_t record_len)
{
	return br_sslrec_in_gcm_vtable.inner.check_length(ctx, record_len);
}

static unsigned char *gcm_decrypt(const br_sslrec_in_class **ctx, int record_type, unsigned version,
                                  void *payload, size_t *len)
{
	enum tls_part was = tls_meter_enter(TLS_RECORD);
	unsigned char *plain = br_sslrec_in_gcm_vtable.inner.decrypt(ctx, record_type, version, payload, len);
	tls_meter_leave(was);
	return plain;
}

static void gcm_in_init(const br_sslrec_in_gcm_class **ctx, const br_block_ctr_class *bc_impl, const void *key,
                        size_t key_len, br_ghash gh_impl, const void *iv)
{
	enum tls_part was = tls_meter_enter(TLS_RECORD);
	br_sslrec_in_gcm_vtable.init(ctx, bc_impl, key, key_len, gh_impl, iv);
	*ctx = &metered_gcm_in;
	tls_meter_leave(was);
}

static void gcm_max_plaintext(const br_sslrec_out_class *const *ctx, size_t *start, size_t *end)
{
	br_sslrec_out_gcm_vtable.inner.max_plaintext(ctx, start, end);
}

static unsigned char *gcm_encrypt(const br_sslrec_out_class **ctx, int record_type, unsigned version,
                                  void *plaintext, size_t *len)
{
	enum tls_part was = tls_meter_enter(TLS_RECORD);
	unsigned char *record = br_sslrec_out_gcm_vtable.inner.encrypt(ctx, record_type, version, plaintext, len);
	tls_meter_leave(was);
	return record;
}

static void gcm_out_init(const br_sslrec_out_gcm_class **ctx, const br_block_ctr_class *bc_impl, const void *key,
                         size_t key_len, br_ghash gh_impl, const void *iv)
{
	enum tls_part was = tls_meter_enter(TLS_RECORD);
	br_sslrec_out_gcm_vtable.init(ctx, bc_impl, key, key_len, gh_impl, iv);
	*ctx = &metered_gcm_out;
	tls_meter_leave(was);
}

static const br_sslrec_in_gcm_class metered_gcm_in = {
	{ sizeof(br_sslrec_gcm_context), gcm_check_length, gcm_decrypt },
	gcm_in_init
};

static const br_sslrec_out_gcm_class metered_gcm_out = {
	{ sizeof(br_sslrec_gcm_context), gcm_max_plaintext, gcm_encrypt },
	gcm_out_init
};

/* ---- the server's RSA: BearSSL's two hooks ---- */

/* What BearSSL is given as the server's key. With ours, only n_bitlen (all that its handshake code
   reads: the hooks below work on the key store's key); with BearSSL's i31 code, the key in its form,
   made for the connection and wiped after it. */
static br_rsa_private_key server_sk;
/* Our implementation's view of the key (the hooks get only BearSSL's). */
static const rsa_backend *rsa_backend_in_use;
static const rsa_key *rsa_key_in_use;
static const rsa_ctx *rsa_ctx_in_use;
/* The value private_in_place works on, as limbs. */
static uint32_t rsa_value[BN_MAX_WORDS];

/* x (the modulus' length in big-endian bytes) = x^d mod n in place on our implementation: CRT and its
   check with e (rsa.c). The bytes go to limbs and back a word at a time. 1 on success. */
static uint32_t private_in_place(unsigned char *x)
{
	uint32_t *value = rsa_value;
	const rsa_key *k = rsa_key_in_use;
	size_t len = peer_bytes(k->bits), full = len / 4, i;
	unsigned words = BN_WORDS(k->bits);
	uint32_t top = 0;
	int err;

	for (i = 0; i < full; i++)
		value[i] = br_dec32be(x + len - 4 * (i + 1));
	for (i = 0; i < len % 4; i++)
		top = top << 8 | x[i];
	if (len % 4)
		value[full] = top;
	err = rsa_private_crt(rsa_backend_in_use, k, rsa_ctx_in_use, value, value);
	for (i = 0; i < full; i++)
		br_enc32be(x + len - 4 * (i + 1), value[i]);
	for (i = 0; i < len % 4; i++)
		x[len % 4 - 1 - i] = (unsigned char)(value[full] >> (8 * i));
	memset(value, 0, words * sizeof(uint32_t));
	return err == RSA_OK;
}

/* br_rsa_private: the RSA key exchange's decryption (BearSSL checks the padding after it). */
static uint32_t ours_private(unsigned char *x, const br_rsa_private_key *sk)
{
	enum tls_part was = tls_meter_enter(TLS_RSA);
	uint32_t ok = sk == &server_sk && private_in_place(x);
	tls_meter_leave(was);
	return ok;
}

/* br_rsa_pkcs1_sign: the ECDHE parameters' signature (PKCS#1 v1.5 over the hash BearSSL made). */
static uint32_t ours_sign(const unsigned char *hash_oid, const unsigned char *hash, size_t hash_len,
                          const br_rsa_private_key *sk, unsigned char *x)
{
	enum tls_part was = tls_meter_enter(TLS_RSA);
	uint32_t ok = sk == &server_sk && hash_intact() && br_rsa_pkcs1_sig_pad(hash_oid, hash, hash_len, sk->n_bitlen, x)
	              && private_in_place(x);
	tls_meter_leave(was);
	return ok;
}

#if PEER_HAVE_BEARSSL
/* The key in BearSSL's form for its i31 code (a connection on `bearssl`), and its public half for the
   check with e. */
static unsigned char sk_p[PEER_MAX_BYTES / 2], sk_q[PEER_MAX_BYTES / 2], sk_dp[PEER_MAX_BYTES / 2],
                     sk_dq[PEER_MAX_BYTES / 2], sk_iq[PEER_MAX_BYTES / 2];
static unsigned char pk_n[PEER_MAX_BYTES], pk_e[PEER_MAX_BYTES];
static br_rsa_public_key server_pk;

static void key_to_bearssl(const rsa_key *k)
{
	server_sk.p = sk_p;
	server_sk.plen = peer_to_bytes_trimmed(sk_p, k->p, RSA_HALF_WORDS);
	server_sk.q = sk_q;
	server_sk.qlen = peer_to_bytes_trimmed(sk_q, k->q, RSA_HALF_WORDS);
	server_sk.dp = sk_dp;
	server_sk.dplen = peer_to_bytes_trimmed(sk_dp, k->dp, RSA_HALF_WORDS);
	server_sk.dq = sk_dq;
	server_sk.dqlen = peer_to_bytes_trimmed(sk_dq, k->dq, RSA_HALF_WORDS);
	server_sk.iq = sk_iq;
	server_sk.iqlen = peer_to_bytes_trimmed(sk_iq, k->qinv, RSA_HALF_WORDS);
	server_pk.n = pk_n;
	server_pk.nlen = peer_to_bytes_trimmed(pk_n, k->n, BN_WORDS(k->bits));
	server_pk.e = pk_e;
	server_pk.elen = peer_to_bytes_trimmed(pk_e, k->e, BN_WORDS(k->bits));
}

static void bearssl_key_wipe(void)
{
	bn_wipe(sk_p, sizeof(sk_p));
	bn_wipe(sk_q, sizeof(sk_q));
	bn_wipe(sk_dp, sizeof(sk_dp));
	bn_wipe(sk_dq, sizeof(sk_dq));
	bn_wipe(sk_iq, sizeof(sk_iq));
}

/* x = x^d mod n on BearSSL's i31 code (CRT), released only when x^e gives the input back, as rsa.c
   releases ours: a CRT result that a fault made wrong in one half gives a factor of n away. Else x is
   zeroed and 0 returned. The comparison and the masking do not branch on the values. */
static uint32_t bearssl_checked_private(unsigned char *x, const br_rsa_private_key *sk)
{
	static unsigned char in[PEER_MAX_BYTES], back[PEER_MAX_BYTES];
	size_t len = (sk->n_bitlen + 7) / 8, i;
	uint32_t ok, diff = 0;
	unsigned char mask;

	memcpy(in, x, len);
	ok = br_rsa_i31_private(x, sk);
	memcpy(back, x, len);
	ok &= br_rsa_i31_public(back, len, &server_pk);
	for (i = 0; i < len; i++)
		diff |= (uint32_t)(back[i] ^ in[i]);
	ok &= (diff - 1) >> 31;         /* 1 when diff is 0 (it is below 256) */
	mask = (unsigned char)(0u - ok);
	for (i = 0; i < len; i++)
		x[i] &= mask;
	return ok;
}

static uint32_t bearssl_private(unsigned char *x, const br_rsa_private_key *sk)
{
	enum tls_part was = tls_meter_enter(TLS_RSA);
	uint32_t ok = bearssl_checked_private(x, sk);
	tls_meter_leave(was);
	return ok;
}

/* br_rsa_i31_pkcs1_sign's two steps, the private operation checked. */
static uint32_t bearssl_sign(const unsigned char *hash_oid, const unsigned char *hash, size_t hash_len,
                             const br_rsa_private_key *sk, unsigned char *x)
{
	enum tls_part was = tls_meter_enter(TLS_RSA);
	uint32_t ok = hash_intact() && br_rsa_pkcs1_sig_pad(hash_oid, hash, hash_len, sk->n_bitlen, x)
	              && bearssl_checked_private(x, sk);
	tls_meter_leave(was);
	return ok;
}
#else
/* Not offered (tls_impl_supported): BearSSL's RSA is in the firmware only with the bench's peer. */
#define bearssl_private NULL
#define bearssl_sign NULL
static void key_to_bearssl(const rsa_key *k)
{
	(void)k;
}

static void bearssl_key_wipe(void)
{
}
#endif

/* ---- the connection ---- */

/* One buffer for both directions: the server only ever talks after the client has (BearSSL's mono
   mode). Sized for incoming records of up to 4 KiB of plaintext, not TLS's 16 KiB: a client's
   handshake records are far smaller (a ClientHello with a post-quantum key share is under 2 KB), and
   so is the one-line request; a larger record ends the connection (BearSSL's BR_ERR_TOO_LARGE). The
   board's main RAM is the limit (docs/tls.md). */
#define TLS_RECORD_PLAINTEXT_MAX 4096
static unsigned char io_buffer[TLS_RECORD_PLAINTEXT_MAX + BR_SSL_BUFSIZE_INPUT - 16384];
static br_ssl_server_context server;
static br_x509_certificate chain[TLS_CHAIN_CERTS];
static char request[TLS_REQUEST_MAX];

static int split_chain(void)
{
	size_t at = 0, len;
	int certs = 0;

	while (at < chain_len && certs < TLS_CHAIN_CERTS && (len = der_sequence(chain_der + at, chain_len - at))) {
		chain[certs].data = chain_der + at;
		chain[certs].data_len = len;
		at += len;
		certs++;
	}
	return certs;
}

static void server_init(struct tls_connection *c)
{
	static const uint16_t suites[] = {
		TLS_SUITE_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
		TLS_SUITE_RSA_WITH_AES_128_GCM_SHA256,
	};
	br_ssl_engine_context *eng = &server.eng;
	int ours = c->impl->backend != NULL;

	br_ssl_server_zero(&server);
	br_ssl_engine_set_versions(eng, BR_TLS12, BR_TLS12);
	br_ssl_engine_set_suites(eng, suites, sizeof(suites) / sizeof(suites[0]));
	br_ssl_engine_add_flags(eng, BR_OPT_NO_RENEGOTIATION);
	br_ssl_engine_set_ec(eng, &metered_ec);
	br_ssl_engine_set_hash(eng, br_sha256_ID, &metered_sha256);
	br_ssl_engine_set_prf_sha256(eng, metered_prf);
	faults_at_start = sha256_sel_faults();
	br_ssl_engine_set_aes_ctr(eng, &br_aes_ct_ctr_vtable);
	br_ssl_engine_set_ghash(eng, br_ghash_ctmul);
	br_ssl_engine_set_gcm(eng, &metered_gcm_in, &metered_gcm_out);
	server_sk = (br_rsa_private_key){ .n_bitlen = c->key->bits };
	if (!ours)
		key_to_bearssl(c->key);
	rsa_backend_in_use = c->impl->backend;
	rsa_key_in_use = c->key;
	rsa_ctx_in_use = c->ctx;
	br_ssl_server_set_single_rsa(&server, chain, (size_t)split_chain(), &server_sk,
	                             BR_KEYTYPE_KEYX | BR_KEYTYPE_SIGN, ours ? ours_private : bearssl_private,
	                             ours ? ours_sign : bearssl_sign);
	br_ssl_engine_set_buffer(eng, io_buffer, sizeof(io_buffer), 0);
	br_ssl_engine_inject_entropy(eng, c->seed, c->seed_len);
	bn_wipe(c->seed, sizeof(c->seed));
}

/* The bytes of the stack below tls_serve's frame that the connection's calls may have used (BearSSL's
   i31 and HMAC-DRBG temporaries, the PRF's blocks, key schedules): measured with `info`'s stack_used
   after connections on each implementation, with room to spare, within soc/config.py's STACK_SIZE. */
#define TLS_STACK_WIPE 6144

/* Zeroes TLS_STACK_WIPE bytes just below the caller's frame. */
static void __attribute__((noinline)) stack_wipe(void)
{
	uint32_t below[TLS_STACK_WIPE / sizeof(uint32_t)];

	bn_wipe(below, sizeof(below));
	__asm__ volatile("" : : "r"(below) : "memory");
}

/* Everything of the connection that held a secret, after it ended, however it ended. */
static void connection_wipe(void)
{
	bn_wipe(&server, sizeof(server));
	bn_wipe(io_buffer, sizeof(io_buffer));
	bn_wipe(request, sizeof(request));
	bn_wipe(rsa_value, sizeof(rsa_value));
	bearssl_key_wipe();
	bn_wipe(&server_sk, sizeof(server_sk));
	stack_wipe();
}

/* Sends the answer line through the engine (it fits one record). */
static void answer(const struct tls_connection *c)
{
	br_ssl_engine_context *eng = &server.eng;
	char line[TLS_LINE_MAX];
	unsigned char *buf;
	size_t len, room;

	tls_handshake_line(line, sizeof(line), c);
	len = strlen(line);
	buf = br_ssl_engine_sendapp_buf(eng, &room);
	if (len > room)
		len = room;
	memcpy(buf, line, len);
	br_ssl_engine_sendapp_ack(eng, len);
	br_ssl_engine_flush(eng, 0);
}

void tls_serve(struct tls_connection *c)
{
	br_ssl_engine_context *eng = &server.eng;
	uint64_t idle = (uint64_t)c->timeout_ms * (CONFIG_CLOCK_FREQUENCY / 1000);
	size_t request_len = 0;
	int got_request = 0, aborted = 0;

	c->reason = NULL;
	c->error = 0;
	c->handshake = c->answered = 0;
	c->suite = 0;
	c->curve = 0;
	c->bytes_in = c->bytes_out = 0;
	memset(&c->at_handshake, 0, sizeof(c->at_handshake));
	/* the configuration and the generator's seeding, as a server does once, are not counted; the
	   connection's reset and everything after it is */
	server_init(c);
	tls_meter_start();
	br_ssl_server_reset(&server);
	for (;;) {
		unsigned state = br_ssl_engine_current_state(eng);
		unsigned char *buf;
		size_t len;

		if (state == BR_SSL_CLOSED)
			break;
		if (!c->handshake && (state & BR_SSL_SENDAPP)) {
			tls_meter_read(&c->at_handshake);
			c->handshake = 1;
			c->suite = eng->session.cipher_suite;
			c->curve = c->suite == TLS_SUITE_RSA_WITH_AES_128_GCM_SHA256 ? 0 : br_ssl_engine_get_ecdhe_curve(eng);
		}
		if (state & BR_SSL_SENDREC) {
			enum tls_part was;
			buf = br_ssl_engine_sendrec_buf(eng, &len);
			was = tls_meter_enter(TLS_IO_WAIT);
			tls_uart_write(buf, len);
			tls_meter_leave(was);
			c->bytes_out += len;
			br_ssl_engine_sendrec_ack(eng, len);
			continue;
		}
		if (state & BR_SSL_RECVAPP) {
			size_t i;
			buf = br_ssl_engine_recvapp_buf(eng, &len);
			for (i = 0; i < len && !got_request; i++) {
				if (request_len < sizeof(request) - 1)
					request[request_len++] = (char)buf[i];
				got_request = buf[i] == '\n' || request_len == sizeof(request) - 1;
			}
			br_ssl_engine_recvapp_ack(eng, len);     /* anything after the request is dropped */
			continue;
		}
		if (got_request && !c->answered && (state & BR_SSL_SENDAPP)) {
			answer(c);
			c->answered = 1;
			br_ssl_engine_close(eng);
			continue;
		}
		if (state & BR_SSL_RECVREC) {
			enum tls_part was;
			int n;
			/* BearSSL asks for what completes the record header or body it is reading: taken whole,
			   a record reaches its handshake code once, not a FIFO's worth at a time */
			buf = br_ssl_engine_recvrec_buf(eng, &len);
			was = tls_meter_enter(TLS_IO_WAIT);
			n = tls_uart_read(buf, len, idle);
			tls_meter_leave(was);
			if (n == TLS_UART_TIMEOUT || n == TLS_UART_TOKEN) {
				aborted = n == TLS_UART_TOKEN;
				c->reason = aborted ? "aborted" : "timeout";
				break;
			}
			br_ssl_engine_recvrec_ack(eng, (size_t)n);
			continue;
		}
		c->reason = "failed";           /* the engine wants nothing we can give: a state it should not reach */
		break;
	}
	c->bytes_in = tls_uart_received() - (aborted ? TLS_UART_TOKEN_BYTES : 0);     /* the client's bytes */
	c->error = br_ssl_engine_last_error(eng);
	c->hash_fault = !hash_intact();
	if (!c->reason)
		c->reason = c->error == BR_ERR_OK ? "closed" : "failed";
	connection_wipe();
}

#else

void tls_serve(struct tls_connection *c)
{
	bn_wipe(c->seed, sizeof(c->seed));
	c->reason = "failed";
	c->error = -1;
	c->handshake = c->answered = 0;
	c->hash_fault = 0;
}

#endif

static const char *suite_name(unsigned suite)
{
	static const struct { unsigned code; const char *name; } names[] = TLS_SUITE_NAMES;
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == suite)
			return names[i].name;
	return "unknown";
}

static const char *curve_name(int curve)
{
	static const struct { int code; const char *name; } names[] = TLS_CURVE_NAMES;
	unsigned i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].code == curve)
			return names[i].name;
	return "none";
}

void tls_handshake_line(char *buf, size_t len, const struct tls_connection *c)
{
#ifdef RSA_BENCH_SIMULATION
	const uint64_t *part = c->at_handshake.cycles;

	snprintf(buf, len, TLS_HANDSHAKE_LINE, suite_name(c->suite), curve_name(c->curve), c->impl->name,
	         c->key->bits, (unsigned long long)tls_meter_busy(&c->at_handshake),
	         (unsigned long long)part[TLS_RSA], (unsigned long long)part[TLS_ECDHE],
	         (unsigned long long)part[TLS_HASH], (unsigned long long)part[TLS_PRF],
	         (unsigned long long)part[TLS_RECORD], (unsigned long long)part[TLS_OTHER],
	         (unsigned long long)part[TLS_IO_WAIT]);
#else
	/* a board tells neither the client nor the wire how long its RSA took */
	snprintf(buf, len, TLS_HANDSHAKE_BRIEF_LINE, suite_name(c->suite), curve_name(c->curve), c->impl->name,
	         c->key->bits);
#endif
}
