"""firmware/keygen/keygen.c on the host, over the software backend and BearSSL's HMAC-DRBG: every key checked in
Python (and by `cryptography`), determinism by seed, refusals, and the file's static arithmetic helpers
through tests/firmware/keygen_harness.c, which includes keygen.c whole and exports wrappers."""
import ctypes
import hashlib
import hmac
import math
import random
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa

from bnlib import BN_MAX_BITS, FIRMWARE, SHA256_HW_SOURCES, RsaKey, compile_with_bearssl, limbs, value
from soc import keys

HARNESS = Path(__file__).resolve().parent / "keygen_harness.c"
#: BearSSL's modules keygen.c uses: HMAC-DRBG over SHA-256 (and the codecs SHA-256 needs).
BEARSSL_SOURCES = ["hash/sha2small.c", "mac/hmac.c", "rand/hmac_drbg.c", "codec/dec32be.c", "codec/enc32be.c"]

E = 65537
KEYGEN_OK, KEYGEN_ERR_SIZE, KEYGEN_ERR_SEARCH = 0, -2, -5
KEYGEN_MIN_BITS = 512
KEYGEN_SPAN, KEYGEN_STARTS = 2048, 64
SMALL_PRIMES = [p for p in range(3, 2048, 2) if all(p % f for f in range(3, math.isqrt(p) + 1, 2))]

u32p = ctypes.POINTER(ctypes.c_uint32)
u = ctypes.c_uint


class Stats(ctypes.Structure):
    _fields_ = [("candidates", u), ("mr_rounds", u), ("restarts", u)]


@pytest.fixture(scope="module")
def lib():
    path = compile_with_bearssl("keygen", BEARSSL_SOURCES, [HARNESS, FIRMWARE / "hash" / "sha256_select.c",
                                                            *SHA256_HW_SOURCES])
    handle = ctypes.CDLL(str(path))
    sig = {
        "keygen": (ctypes.c_int, [ctypes.c_void_p, u, ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(RsaKey),
                                  ctypes.POINTER(Stats)]),
        "keygen_mr_rounds": (u, [u]),
        "kh_reduce_e": (ctypes.c_uint32, [ctypes.c_int32]),
        "kh_mod_e_small": (ctypes.c_uint32, [ctypes.c_uint64]),
        "kh_mod_e": (ctypes.c_uint32, [u32p, u]),
        "kh_inv_mod_e": (ctypes.c_uint32, [ctypes.c_uint32]),
        "kh_inv_e_mod": (None, [u32p, u32p, u]),
        "kh_double_mod": (None, [u32p, u32p, u]),
        "kh_far_apart": (ctypes.c_int, [u32p, u32p, u, u]),
        "kh_div_64_32": (ctypes.c_uint32, [ctypes.c_uint64, ctypes.c_uint32]),
        "kh_times_2_32_mod": (None, [u32p, u32p, u32p, u]),
        "kh_mod_small": (ctypes.c_uint32, [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]),
        "kh_small_primes": (u, [ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint16), u32p,
                                ctypes.POINTER(ctypes.c_uint16), u]),
        "kh_work": (ctypes.c_void_p, []),
        "kh_work_size": (ctypes.c_size_t, []),
        "keygen_wipe": (None, []),
        "keygen_step_load": (ctypes.c_int, [u32p, u]),
        "keygen_step_run": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_int]),
    }
    for name, (res, args) in sig.items():
        fn = getattr(handle, name)
        fn.restype, fn.argtypes = res, args
    yield handle
    path.unlink(missing_ok=True)


def backend(lib, name):
    return ctypes.addressof(ctypes.c_void_p.in_dll(lib, name))


def keygen(lib, bits, seed, backend_name="rsa_sw"):
    key, stats = RsaKey(), Stats()
    rc = lib.keygen(backend(lib, backend_name), bits, seed, len(seed), ctypes.byref(key), ctypes.byref(stats))
    return rc, key, stats


def numbers(key):
    """{field: int} of an rsa_key."""
    return {f: value(getattr(key, f)) for f in ("n", "e", "d", "p", "q", "dp", "dq", "qinv")}


def is_probable_prime(n, rounds=24):
    """Miller-Rabin with random bases (soc.keys', independent of the firmware's)."""
    return n > 1 and keys.is_probable_prime(n, random.Random(1), rounds)


def check_key(lib, bits, key, stats):
    """Every property keygen.h promises, checked in Python."""
    k = numbers(key)
    n, e, d, p, q = k["n"], k["e"], k["d"], k["p"], k["q"]
    half = bits // 2
    assert key.bits == bits and key.has_crt == 1
    assert e == E
    assert n == p * q and n.bit_length() == bits
    assert p.bit_length() == q.bit_length() == half
    assert p >> (half - 2) == 3 and q >> (half - 2) == 3             # the top two bits set
    assert p % 4 == 3 and q % 4 == 3
    assert p > q
    assert is_probable_prime(p) and is_probable_prime(q)
    assert math.gcd(e, p - 1) == 1 and math.gcd(e, q - 1) == 1
    assert p - q > 1 << (half - 100)
    lam = math.lcm(p - 1, q - 1)
    assert d == pow(e, -1, lam) and d < lam and d > 1 << half
    assert k["dp"] == d % (p - 1) and k["dq"] == d % (q - 1)
    assert k["qinv"] == pow(q, -1, p)
    # nothing above the key's limbs
    assert value(key.n) < 1 << bits and value(key.d) < 1 << bits
    rsa.RSAPrivateNumbers(p, q, d, k["dp"], k["dq"], k["qinv"], rsa.RSAPublicNumbers(e, n)).private_key()
    assert stats.candidates >= stats.mr_rounds > 0
    assert stats.mr_rounds >= 2 * lib.keygen_mr_rounds(half)


# ---- keys ----

@pytest.mark.parametrize("bits,seeds", [(512, 12), (576, 2), (640, 1), (1024, 3), (2048, 1)])
def test_keys_are_right(lib, bits, seeds):
    for s in range(seeds):
        seed = f"keygen-test-{bits}-{s}".encode()
        rc, key, stats = keygen(lib, bits, seed)
        assert rc == KEYGEN_OK, (bits, seed)
        check_key(lib, bits, key, stats)


@pytest.mark.parametrize("bits,seeds", [(512, 4), (1024, 2), (2048, 1)])
def test_keys_over_pair_backend(lib, bits, seeds):
    """The pair pre-test (times_2_32_mod's constants, two candidates at a time): the harness's backend
    checks every constant, and the key is the same as on the software backend (same seed, same key)."""
    calls = ctypes.c_uint.in_dll(lib, "kh_pair_calls")
    mismatches = ctypes.c_uint.in_dll(lib, "kh_pair_k_mismatches")
    for s in range(seeds):
        seed = f"keygen-pair-{bits}-{s}".encode()
        before = calls.value
        rc, key, stats = keygen(lib, bits, seed, "kh_pair_backend")
        assert rc == KEYGEN_OK
        assert calls.value > before
        assert mismatches.value == 0
        check_key(lib, bits, key, stats)
        rc, sw_key, _ = keygen(lib, bits, seed)
        assert rc == KEYGEN_OK and numbers(sw_key) == numbers(key)


def library_data(lib):
    """The bytes of the library's writable data (.data and .bss: its rw mappings and the anonymous ones
    that continue them), read in this process."""
    lines = [line.split() for line in Path("/proc/self/maps").read_text().splitlines()]
    pieces, follows = [], None
    for fields in lines:
        start, end = (int(x, 16) for x in fields[0].split("-"))
        path = fields[5] if len(fields) > 5 else None
        if fields[1].startswith("rw") and (path == lib._name or (path is None and start == follows)):
            pieces.append(ctypes.string_at(start, end - start))
            follows = end
        else:
            follows = None
    assert pieces, "no writable mapping of the library"
    return b"".join(pieces)


def traces(data, numbers_by_name):
    """The names of the numbers one of whose aligned 8-byte pieces (as little-endian limbs) is in `data`."""
    found = []
    for name, x in numbers_by_name.items():
        raw = x.to_bytes((x.bit_length() + 63) // 64 * 8, "little")
        if any(raw[i:i + 8] in data for i in range(0, len(raw), 8) if raw[i:i + 8].count(0) < 4):
            found.append(name)
    return found


def test_keygen_wipe_leaves_no_trace(lib):
    """After keygen_wipe nothing of the key's secrets or of the search is left in the library's data: its
    work space is all zeros, and no piece of p, q, d, dp, dq, qinv, p - 1, q - 1 or lambda is anywhere. The
    same scan finds them before the wipe."""
    rc, key, _ = keygen(lib, 1024, b"keygen-wipe-test-seed-of-32-byte")
    assert rc == KEYGEN_OK
    k = numbers(key)
    p, q = k["p"], k["q"]
    secrets = {**{name: k[name] for name in ("d", "p", "q", "dp", "dq", "qinv")}, "(p-1)/2": p >> 1,
               "(q-1)/2": q >> 1, "lambda": math.lcm(p - 1, q - 1)}
    work = ctypes.string_at(lib.kh_work(), lib.kh_work_size())
    assert work != bytes(len(work))
    assert {"p", "q", "lambda"} <= set(traces(library_data(lib), secrets))
    lib.keygen_wipe()
    assert ctypes.string_at(lib.kh_work(), lib.kh_work_size()) == bytes(lib.kh_work_size())
    assert traces(library_data(lib), secrets) == []


KEYGEN_ERR_CANDIDATE, KEYGEN_STEP_PRETEST, KEYGEN_STEP_ROUND = -6, 0, 1


def step(lib, candidate, which, bits=None, backend_name="rsa_sw"):
    """keygen_step_load then keygen_step_run on `candidate` (`bits` its size: a whole number of limbs)."""
    words = (bits or candidate.bit_length()) // 32
    rc = lib.keygen_step_load(limbs(candidate, words), words)
    return rc if rc else lib.keygen_step_run(backend(lib, backend_name), which)


def test_keygen_steps_on_given_candidates(lib):
    """The console's keygen_step: the pre-test and a Miller-Rabin round pass a prime the search could make
    and fail a composite, on both backends; a number the search could not make is refused."""
    rng = random.Random(18)
    prime = next(c for c in (rng.getrandbits(512) | 3 << 510 | 3 for _ in range(5000)) if is_probable_prime(c))
    composite = next(c for c in range(prime + 4, prime + 4000, 4) if not is_probable_prime(c))
    for backend_name in ("rsa_sw", "kh_pair_backend"):
        for which in (KEYGEN_STEP_PRETEST, KEYGEN_STEP_ROUND):
            assert step(lib, prime, which, backend_name=backend_name) == 1
            assert step(lib, composite, which, backend_name=backend_name) == 0
    # 1 mod 4; the top bit clear; a prime's size for no key (224 bits, 2048 bits with 4096-bit keys the most)
    for bad, bits in [(prime - 2, None), (prime >> 1 | 3, 512), (prime >> 288 | 3, None),
                      (3 << 2078 | 3, None)]:
        assert step(lib, bad, KEYGEN_STEP_PRETEST, bits) == KEYGEN_ERR_CANDIDATE, hex(bad)
    lib.keygen_wipe()
    assert lib.keygen_step_run(backend(lib, "rsa_sw"), KEYGEN_STEP_ROUND) == KEYGEN_ERR_CANDIDATE


def test_largest_key(lib):
    rc, key, stats = keygen(lib, BN_MAX_BITS, b"keygen-test-largest")
    assert rc == KEYGEN_OK
    check_key(lib, BN_MAX_BITS, key, stats)


# ---- the search, followed in Python ----

class Drbg:
    """HMAC-DRBG over SHA-256 (NIST SP 800-90A, as BearSSL's br_hmac_drbg), seeded with the seed alone."""

    def __init__(self, seed):
        self.k, self.v = bytes(32), b"\x01" * 32
        self.update(seed)

    def _mac(self, data):
        return hmac.new(self.k, data, hashlib.sha256).digest()

    def update(self, data):
        self.k = self._mac(self.v + b"\x00" + data)
        self.v = self._mac(self.v)
        if data:
            self.k = self._mac(self.v + b"\x01" + data)
            self.v = self._mac(self.v)

    def generate(self, length):
        out = b""
        while len(out) < length:
            self.v = self._mac(self.v)
            out += self.v
        self.update(b"")
        return out[:length]


def survivors(start, bits):
    """The i < KEYGEN_SPAN for which start + 4i has no odd factor below 2048 and e does not divide
    start + 4i - 1, in order (by the definition, not by keygen.c's residue arithmetic)."""
    assert start + 4 * (KEYGEN_SPAN - 1) < 1 << bits      # no start near 2^bits in these seeds
    struck = set()
    for p in SMALL_PRIMES:
        struck.update(range((-start) * pow(4, -1, p) % p, KEYGEN_SPAN, p))
    struck.add((1 - start) * pow(4, -1, E) % E)
    return [i for i in range(KEYGEN_SPAN) if i not in struck]


def next_start(drbg, bits):
    return int.from_bytes(drbg.generate(bits // 8), "big") | 3 << (bits - 2) | 3


def test_search_visits_every_survivor(lib):
    """A backend that calls every number composite: the search pre-tests exactly the survivors of the
    sieve in its 64 starts (each start drawn from the generator), then gives up with KEYGEN_ERR_SEARCH."""
    for bits, seed in [(512, b"walk-a"), (512, b"walk-b"), (1024, b"walk-c"), (2048, b"walk-d")]:
        rc, key, stats = keygen(lib, bits, seed, "kh_reject_backend")
        assert rc == KEYGEN_ERR_SEARCH
        assert bytes(key) == bytes(ctypes.sizeof(key))
        drbg = Drbg(seed)
        expected = sum(len(survivors(next_start(drbg, bits // 2), bits // 2)) for _ in range(KEYGEN_STARTS))
        assert (stats.candidates, stats.mr_rounds) == (KEYGEN_STARTS * KEYGEN_SPAN, expected)


def first_survivor(drbg, half, other=None):
    """The first survivor of the next start (far enough from `other`), as find_prime takes it with a
    backend that calls every number prime, after which it draws Miller-Rabin bases: blocks of the
    rounds and two spares, used from the block's end, until enough of them were in [2, c - 2]."""
    rounds = fips_rounds(half)                                   # keygen_mr_rounds (test_mr_rounds)
    size = half // 8
    while True:
        start = next_start(drbg, half)
        for i in survivors(start, half):
            c = start + 4 * i
            if other is None or abs(c - other) > 1 << (half - 100):
                used = 0
                while used < rounds:
                    block = drbg.generate((rounds + 2) * size)
                    for j in reversed(range(rounds + 2)):
                        base = int.from_bytes(block[j * size:(j + 1) * size], "big")
                        used += used < rounds and 1 < base < c and (c - base).bit_length() > 1
                return c


def test_search_takes_first_survivor(lib):
    """A backend that calls every number prime: p and q are the first survivors of their starts, q the
    first far enough from p, with the generator's output between them spent on Miller-Rabin bases."""
    for bits, seed in [(512, b"first-a"), (512, b"first-b"), (1024, b"first-c"), (2048, b"first-d")]:
        rc, key, stats = keygen(lib, bits, seed, "kh_accept_backend")
        assert rc == KEYGEN_OK and stats.restarts == 0
        drbg = Drbg(seed)
        p = first_survivor(drbg, bits // 2)
        q = first_survivor(drbg, bits // 2, other=p)
        assert (value(key.p), value(key.q)) == (max(p, q), min(p, q))


# ---- determinism ----

def test_same_seed_same_key(lib):
    seed = bytes(range(32))
    first, second = keygen(lib, 512, seed), keygen(lib, 512, seed)
    assert first[0] == second[0] == KEYGEN_OK
    assert numbers(first[1]) == numbers(second[1])
    assert (first[2].candidates, first[2].mr_rounds) == (second[2].candidates, second[2].mr_rounds)
    other = keygen(lib, 512, bytes(range(1, 33)))
    assert other[0] == KEYGEN_OK and numbers(other[1])["n"] != numbers(first[1])["n"]


def test_every_seed_byte_matters(lib):
    seed = bytes(range(100, 164))                 # KEYGEN_SEED_MAX bytes
    rc, key, _ = keygen(lib, 512, seed)
    assert rc == KEYGEN_OK
    moduli = {numbers(key)["n"]}
    for i in range(len(seed)):
        changed = bytearray(seed)
        changed[i] ^= 0x01 << (i % 8)
        rc, key, _ = keygen(lib, 512, bytes(changed))
        assert rc == KEYGEN_OK
        moduli.add(numbers(key)["n"])
    assert len(moduli) == len(seed) + 1
    rc, key, _ = keygen(lib, 512, seed[:-1])      # a shorter seed is another seed
    assert rc == KEYGEN_OK and numbers(key)["n"] not in moduli


# ---- refusals ----

@pytest.mark.parametrize("bits", [0, 64, 448, KEYGEN_MIN_BITS - 64, KEYGEN_MIN_BITS + 1, KEYGEN_MIN_BITS + 32,
                                  1000, 2048 + 32, BN_MAX_BITS + 64, BN_MAX_BITS * 2, 2**31])
def test_bad_sizes_are_refused(lib, bits):
    key, stats = RsaKey(), Stats()
    ctypes.memset(ctypes.byref(key), 0xA5, ctypes.sizeof(key))
    ctypes.memset(ctypes.byref(stats), 0xA5, ctypes.sizeof(stats))
    rc = lib.keygen(backend(lib, "rsa_sw"), bits, b"seed", 4, ctypes.byref(key), ctypes.byref(stats))
    assert rc == KEYGEN_ERR_SIZE
    assert bytes(key) == bytes(ctypes.sizeof(key))
    assert (stats.candidates, stats.mr_rounds, stats.restarts) == (0, 0, 0)


def _c1_error_log2(k, t):
    """log2 of FIPS 186-5 Appendix C.1's bound on the probability that t Miller-Rabin rounds declare a
    random k-bit composite prime (Damgard, Landrock and Pomerance), at its best M. The formula's 2^-k
    and 2^(k-2) cancel, so plain floats hold every term."""
    best = math.inf
    for big_m in range(3, int(2 * math.sqrt(k - 1) - 1) + 1):
        double_sum = sum(2.0 ** (m - (m - 1) * t) * sum(2.0 ** -(j + (k - 1) / j) for j in range(2, m + 1))
                         for m in range(3, big_m + 1))
        bound = 2.00743 * math.log(2) * k * (2.0 ** (-2 - big_m * t) + 8 * (math.pi ** 2 - 6) / 3 / 4 * double_sum)
        best = min(best, bound)
    return math.log2(best)


def _rounds_for(k, error_log2):
    t = 1
    while _c1_error_log2(k, t) > error_log2:
        t += 1
    return t


def fips_rounds(half):
    """keygen_mr_rounds as keygen.h defines it: Table B.1 from 1024 bits on; below, C.1's bound at 2^-100
    for the prime sizes keygen makes (multiples of 32 bits)."""
    if half >= 1536:
        return 4
    if half >= 1024:
        return 5
    return FIPS_BELOW_1024[max(b for b in FIPS_BELOW_1024 if b <= half)]


#: The prime sizes keygen makes below 1024 bits (multiples of 32) and the rounds C.1 asks at 2^-100.
FIPS_BELOW_1024 = {k: _rounds_for(k, -100) for k in range(256, 1024, 32)}


def test_c1_bound_gives_table_b1():
    """The computation reproduces FIPS 186-5 Table B.1: 1024-bit primes 4 rounds at 2^-100 and 5 at 2^-112,
    1536-bit 3 and 4 (2^-128), 2048-bit 2 and 4 (2^-144)."""
    assert [_rounds_for(1024, -100), _rounds_for(1024, -112)] == [4, 5]
    assert [_rounds_for(1536, -100), _rounds_for(1536, -128)] == [3, 4]
    assert [_rounds_for(2048, -100), _rounds_for(2048, -144)] == [2, 4]


def test_mr_rounds(lib):
    """Table B.1 from 1024 bits on; below, C.1's bound at 2^-100 for every prime size keygen makes."""
    assert [lib.keygen_mr_rounds(b) for b in (1024, 1088, 1535)] == [5] * 3
    assert [lib.keygen_mr_rounds(b) for b in (1536, 2048)] == [4, 4]
    assert {k: lib.keygen_mr_rounds(k) for k in FIPS_BELOW_1024} == FIPS_BELOW_1024
    assert lib.keygen_mr_rounds(512) == 7 and lib.keygen_mr_rounds(256) == 16


# ---- the static helpers ----

def test_sieve_table(lib):
    count = 320
    primes, inv4, pow32 = ((ctypes.c_uint16 * count)() for _ in range(3))
    recip = (ctypes.c_uint32 * count)()
    got = lib.kh_small_primes(primes, inv4, recip, pow32, count)
    assert got == len(SMALL_PRIMES) == 308
    for i, p in enumerate(SMALL_PRIMES):
        assert primes[i] == p
        assert inv4[i] == pow(4, -1, p)
        assert recip[i] == (1 << 32) // p
        assert pow32[i] == (1 << 32) % p


def test_mod_small(lib):
    rng = random.Random(7)
    edges = [0, 1, 2, 0xFFFFFFFF, 0xFFFFFFFE, 0x80000000, 0x7FFFFFFF]
    for p in SMALL_PRIMES:
        recip = (1 << 32) // p
        xs = edges + [p - 1, p, p + 1, 2 * p - 1, 2 * p, (1 << 32) - (1 << 32) % p, (1 << 32) - (1 << 32) % p - 1]
        xs += [rng.getrandbits(32) for _ in range(40)]
        for x in xs:
            x &= 0xFFFFFFFF
            assert lib.kh_mod_small(x, p, recip) == x % p, (x, p)


def test_reduce_e_and_mod_e_small(lib):
    rng = random.Random(8)
    for r in list(range(-(1 << 16) + 1, -(1 << 16) + 40)) + list(range(-40, 40)) + \
            list(range(E - 40, E + 40)) + list(range((1 << 17) - 40, 1 << 17)) + \
            [rng.randrange(-(1 << 16) + 1, 1 << 17) for _ in range(2000)]:
        assert lib.kh_reduce_e(r) == r % E, r
    for x in [0, 1, E - 1, E, E + 1, 1 << 16, 1 << 32, (1 << 32) - 1, (1 << 34) - 1, (E - 1) ** 2,
              (E - 1) * (E - 2)] + [rng.getrandbits(34) for _ in range(2000)]:
        assert lib.kh_mod_e_small(x) == x % E, x


def test_mod_e(lib):
    rng = random.Random(9)
    cases = [(0, 1), (1, 1), (E - 1, 1), (E, 1), (1 << 16, 1), (0xFFFFFFFF, 1), ((1 << 64) - 1, 2),
             ((1 << 4096) - 1, 128), (E ** 20, 32), ((1 << 2048) - 1, 64), (E * ((1 << 1000) + 1), 64)]
    for words in (1, 2, 3, 16, 32, 64, 128):
        cases += [(rng.getrandbits(32 * words), words) for _ in range(30)]
        cases += [(E * rng.getrandbits(32 * words - 17), words) for _ in range(5)]
        # every half-word 0xffff: the alternating sum at its largest
        cases.append((int("0000ffff" * words, 16), words))
        cases.append((int("ffff0000" * words, 16), words))
    for x, words in cases:
        assert lib.kh_mod_e(limbs(x, words), words) == x % E, (hex(x), words)


def test_inv_mod_e(lib):
    rng = random.Random(10)
    for x in [1, 2, 3, 4, E - 1, E - 2, 1 << 16, (1 << 16) - 1, 49153, 16384] + \
            [rng.randrange(1, E) for _ in range(3000)]:
        r = lib.kh_inv_mod_e(x)
        assert r < E and r * x % E == 1, x


def test_inv_e_mod(lib):
    rng = random.Random(13)
    for words in (1, 2, 16, 32, 64, 128):
        ms = [rng.getrandbits(32 * words) for _ in range(25)]
        ms += [(1 << 32 * words) - 1, (1 << (32 * words - 1)), 2, E + 1, 2 * E - 1, E * 7 + 1]
        for m in ms:
            m %= 1 << 32 * words
            if m < 2 or m % E == 0:
                continue
            r = (ctypes.c_uint32 * words)()
            lib.kh_inv_e_mod(r, limbs(m, words), words)
            assert value(r) < m and E * value(r) % m == 1, (words, hex(m))


def test_double_mod(lib):
    rng = random.Random(15)
    for words in (1, 2, 16, 32, 64):
        top = 1 << 32 * words
        ns = [top - 1, (top >> 1) | 1, rng.getrandbits(32 * words) | 1 | top >> 1]
        ns += [rng.getrandbits(32 * words - rng.randrange(0, 20)) | 1 for _ in range(10)]
        for n in ns:
            for r in [0, 1, n - 1, n // 2, n // 2 + 1, (n - 1) // 2] + [rng.randrange(n) for _ in range(10)]:
                buf = limbs(r, words)
                lib.kh_double_mod(buf, limbs(n, words), words)
                assert value(buf) == 2 * r % n, (words, hex(n), hex(r))


def test_div_64_32(lib):
    rng = random.Random(16)
    cap = 0xFFFFFFFF
    cases = []
    ds = [0x80000000, 0x80000001, 0xFFFFFFFF, 0xFFFFFFFE] + [rng.getrandbits(31) | 1 << 31 for _ in range(60)]
    for d in ds:
        cases += [(0, d), (d - 1, d), (d, d), ((d - 1) << 32 | cap, d), (d << 32, d), (d << 32 | cap, d),
                  ((1 << 64) - 1, d), ((d + 1) << 32, d), (rng.getrandbits(32) % d << 32 | rng.getrandbits(32), d)]
        cases += [(rng.getrandbits(64), d) for _ in range(20)]
        cases += [(rng.randrange(d << 32), d) for _ in range(20)]
    for n, d in cases:
        n &= (1 << 64) - 1
        assert lib.kh_div_64_32(n, d) == min(n // d, cap), (hex(n), hex(d))


def test_times_2_32_mod(lib):
    rng = random.Random(17)
    for words in (2, 3, 16, 32, 64):
        top = 1 << 32 * words
        cs = [top - 1, top >> 1 | 1, (top >> 1) + (1 << 32) + 1, top - (1 << 32) + 1]
        cs += [rng.getrandbits(32 * words) | top >> 1 | 1 for _ in range(20)]
        for c in cs:
            hi = c >> 32 * (words - 1)
            as_ = [0, 1, c - 1, c - 2, c // 2, (c - 1) >> 32 << 32, hi << 32 * (words - 1),
                   (hi << 32 * (words - 1)) - 1, top - c]      # top - c: R mod c, keygen's own input
            as_ += [rng.randrange(c) for _ in range(15)]
            as_ += [c - 1 - rng.getrandbits(40) for _ in range(5)]   # the top limbs equal to c's
            for a in as_:
                if not 0 <= a < c:
                    continue
                k = (ctypes.c_uint32 * words)()
                lib.kh_times_2_32_mod(k, limbs(a, words), limbs(c, words), words)
                assert value(k) == (a << 32) % c, (words, hex(c), hex(a))


def test_far_apart(lib):
    """|a - b| > 2^(bits - 100), either way round, exactly at the bound."""
    rng = random.Random(18)
    for bits in (256, 288, 512, 1024, 2048):
        words, bound = bits // 32, 1 << (bits - 100)
        for _ in range(5):
            a = rng.getrandbits(bits - 2) | 3 << (bits - 2)
            for gap in (0, 1, bound - 1, bound, bound + 1, 2 * bound, rng.getrandbits(bits - 100),
                        rng.getrandbits(bits - 99)):
                b = a - gap
                expect = int(gap > bound)
                assert lib.kh_far_apart(limbs(a, words), limbs(b, words), words, bits) == expect, (bits, gap)
                assert lib.kh_far_apart(limbs(b, words), limbs(a, words), words, bits) == expect, (bits, gap)
