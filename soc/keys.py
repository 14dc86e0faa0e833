"""Build-time key material for the firmware: benchmark keys and the PKCS#1 v2.1 test vectors.

Benchmark keys: primes from a seeded generator, so every build (and every user) gets the same keys
and the same cycle counts; the key is then assembled and checked by the `cryptography` package
(`RSAPrivateNumbers.private_key()` runs OpenSSL's consistency checks), which also supplies the CRT
values. Vectors: keys and ciphertexts from `cryptography_vectors` (oaep-vect.txt); the expected raw
results come from Python's `pow()` and are checked to be valid OAEP encodings of the vector's message.
"""

import functools
import inspect
import random

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from common import cache
from common.paths import BUILD_DIR
from soc import config

#: Generated keys, shared by every build and the tests (generating a 4096-bit key takes seconds).
KEYS_CACHE = BUILD_DIR / "keys"

_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % d for d in range(2, int(p ** 0.5) + 1))]


def is_probable_prime(x, rng, rounds=32):
    """Miller-Rabin with `rounds` random bases (after trial division by small primes)."""
    for sp in _SMALL_PRIMES:
        if x % sp == 0:
            return x == sp
    s, d = 0, x - 1
    while d % 2 == 0:
        s, d = s + 1, d // 2
    for _ in range(rounds):
        y = pow(rng.randrange(2, x - 1), d, x)
        if y in (1, x - 1):
            continue
        for _ in range(s - 1):
            y = y * y % x
            if y == x - 1:
                break
        else:
            return False
    return True


def random_prime(rng, bits, top_bits=1, e=None):
    """A probable prime of exactly `bits` bits with its `top_bits` highest bits set (and, given a
    public exponent `e`, with gcd(p - 1, e) == 1 for a prime e)."""
    top = ((1 << top_bits) - 1) << (bits - top_bits)
    while True:
        x = rng.getrandbits(bits) | top | 1
        if (e is None or x % e != 1) and is_probable_prime(x, rng):
            return x


def generate_key(bits, seed=config.KEY_SEED, e=config.PUBLIC_EXPONENT):
    """A reproducible RSA key of exactly `bits` bits, as a dict of integers."""
    rng = random.Random(f"{seed}-{bits}")
    while True:
        # top two bits set: p*q has exactly `bits` bits
        p, q = random_prime(rng, bits // 2, 2, e), random_prime(rng, bits - bits // 2, 2, e)
        if p != q and (p * q).bit_length() == bits:
            break
    if p < q:
        p, q = q, p                                      # the PKCS#1 convention: p > q
    d = pow(e, -1, (p - 1) * (q - 1))
    numbers = rsa.RSAPrivateNumbers(p, q, d, rsa.rsa_crt_dmp1(d, p), rsa.rsa_crt_dmq1(d, q),
                                    rsa.rsa_crt_iqmp(p, q), rsa.RSAPublicNumbers(e, p * q))
    numbers = numbers.private_key().private_numbers()      # cryptography validates the key
    return {"bits": bits, "n": numbers.public_numbers.n, "e": e, "d": numbers.d, "p": numbers.p,
            "q": numbers.q, "dp": numbers.dmp1, "dq": numbers.dmq1, "qinv": numbers.iqmp}


def bench_keys(sizes=config.KEY_SIZES, cache_dir=KEYS_CACHE):
    """The benchmark keys of `sizes`, from the cache when the same generator made them before."""
    generator = "".join(inspect.getsource(f) for f in (is_probable_prime, random_prime, generate_key))
    keys = []
    for bits in sizes:
        stored = cache.cached_json(cache_dir, f"key-{bits}", (config.KEY_SEED, config.PUBLIC_EXPONENT, generator),
                                   lambda: {k: hex(v) for k, v in generate_key(bits).items()})
        keys.append({k: int(v, 16) for k, v in stored.items()})
    return keys


@functools.cache
def oaep_vectors():
    """[(key dict, [(ciphertext, message), ...])] from the PKCS#1 v2.1 OAEP vectors."""
    import cryptography_vectors
    path = "asymmetric/RSA/pkcs-1v2-1d2-vec/oaep-vect.txt"
    with cryptography_vectors.open_vector_file(path, "r") as f:
        text = f.read()
    # "Exponent" is e in the public-key block and d in the private-key block.
    names = {"Modulus": "n", "Public exponent": "e", "Exponent": "exponent", "Prime 1": "p",
             "Prime 2": "q", "Prime exponent 1": "dp", "Prime exponent 2": "dq", "Coefficient": "qinv",
             "Message": "message", "Encryption": "ciphertext"}
    keys, field, digits = [], None, []

    def flush():
        if field is None or not digits or not keys:
            return
        value = "".join(digits)
        key, examples = keys[-1]
        if field in ("message", "ciphertext"):
            if field == "message":
                examples.append({"message": bytes.fromhex(value)})
            else:
                examples[-1]["ciphertext"] = int(value, 16)
        elif field == "exponent":
            key["d" if "e" in key else "e"] = int(value, 16)
        elif field not in key:
            key[field] = int(value, 16)

    for line in text.splitlines():
        if line.startswith("# Example") and "RSA key pair" in line:
            flush()
            field, digits = None, []
            keys.append(({}, []))
        elif line.startswith("# ") and line.rstrip().endswith(":"):
            flush()
            field, digits = names.get(line[2:].rstrip()[:-1].strip()), []
        elif field and line.strip() and not line.startswith(("#", "=")):
            digits.append(line.replace(" ", "").strip())
        else:
            flush()
            field, digits = None, []
    flush()

    vectors = []
    for key, examples in keys:
        key["bits"] = key["n"].bit_length()
        assert key["n"] == key["p"] * key["q"]
        private = rsa.RSAPrivateNumbers(key["p"], key["q"], key["d"], key["dp"], key["dq"], key["qinv"],
                                        rsa.RSAPublicNumbers(key["e"], key["n"])).private_key()
        cases = []
        for ex in examples:
            c = ex["ciphertext"]
            # The vector is what it claims: OAEP-SHA1 decryption recovers its message.
            plain = private.decrypt(c.to_bytes((key["bits"] + 7) // 8, "big"),
                                    padding.OAEP(padding.MGF1(hashes.SHA1()), hashes.SHA1(), None))
            assert plain == ex["message"]
            cases.append((c, pow(c, key["d"], key["n"])))
        vectors.append((key, cases))
    return vectors


def _limbs(x, words):
    assert x < 1 << (32 * words)
    return "{" + ", ".join(f"0x{(x >> (32 * i)) & 0xffffffff:08x}u" for i in range(words)) + "}"


def _key_initializer(key):
    nw = -(-key["bits"] // 32)
    pw = -(-key["p"].bit_length() // 32)
    qw = -(-key["q"].bit_length() // 32)
    return ("{ .bits = %d, .n = %s, .e = %s, .d = %s,\n      .p = %s, .q = %s, .dp = %s, .dq = %s,"
            " .qinv = %s, .has_crt = 1 }" % (
                key["bits"], _limbs(key["n"], nw), _limbs(key["e"], 1), _limbs(key["d"], nw),
                _limbs(key["p"], pw), _limbs(key["q"], qw), _limbs(key["dp"], pw), _limbs(key["dq"], qw),
                _limbs(key["qinv"], pw)))


def keys_header(max_bits, cache_dir=KEYS_CACHE, vectors_per_key=1):
    """`keys.h`: the benchmark keys up to `max_bits` and the PKCS#1 vectors, as C initialisers
    (`vectors_per_key` = 0: none, and none of their keys)."""
    keys = [k for k in bench_keys(cache_dir=cache_dir) if k["bits"] <= max_bits]
    lines = ["/* Generated by soc/keys.py: do not edit. */", "#ifndef KEYS_H", "#define KEYS_H", "",
             '#include "rsa/rsa.h"', "",
             f"#define BENCH_KEY_COUNT {len(keys)}",
             "static const unsigned bench_default_sizes[] = {%s};" % ", ".join(
                 str(b) for b in config.BENCH_SIZES if b <= max_bits),
             "static const rsa_key bench_keys[BENCH_KEY_COUNT] = {"]
    lines += ["    " + _key_initializer(k) + "," for k in keys]
    lines += ["};", ""]
    vec_keys, cases = [], []
    for index, (key, examples) in enumerate(oaep_vectors()):
        if key["bits"] > max_bits or vectors_per_key == 0:
            continue
        vec_keys.append(key)
        nw = -(-key["bits"] // 32)
        for c, m in examples[:vectors_per_key]:
            cases.append("    { %d, %s, %s }," % (len(vec_keys) - 1, _limbs(c, nw), _limbs(m, nw)))
    lines += [f"#define VECTOR_KEY_COUNT {len(vec_keys)}",
              "/* PKCS#1 v2.1 OAEP vector keys (cryptography_vectors, oaep-vect.txt). */",
              "static const rsa_key vector_keys[VECTOR_KEY_COUNT] = {"]
    lines += ["    " + _key_initializer(k) + "," for k in vec_keys]
    lines += ["};", "", "/* Raw RSA: ciphertext^d mod n == em (the OAEP-encoded message). */",
              "struct rsa_vector { unsigned key; uint32_t c[BN_MAX_WORDS]; uint32_t em[BN_MAX_WORDS]; };",
              f"#define VECTOR_COUNT {len(cases)}",
              "static const struct rsa_vector vectors[VECTOR_COUNT] = {"] + cases + ["};", "", "#endif", ""]
    return "\n".join(lines)
