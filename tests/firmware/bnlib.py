"""ctypes view of the firmware's bignum/RSA C API (host build) with Python-int wrappers.

The library is built by the `bn` fixture in conftest.py; the helpers live here, under a name of
their own, so that test modules can import them whatever other conftest.py files the suite grows.
"""
import ctypes
import subprocess
from pathlib import Path

import pytest

from soc.keys import generate_key, is_probable_prime, random_prime  # noqa: F401 (re-exported to the tests)

ROOT = Path(__file__).resolve().parents[2]
FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build" / "test-firmware"
SOURCES = ["bignum/bignum.c", "bignum/gcd.c", "bignum/divexact.c", "rsa/rsa.c", "rsa/rsa_sw.c"]
#: Compiled into the test library only: the C layout of the structures below.
LAYOUT_SOURCE = Path(__file__).resolve().parent / "layout.c"

#: The operand limit the test library is built with (-DBN_MAX_BITS).
BN_MAX_BITS = 4096
BN_MAX_WORDS = BN_MAX_BITS // 32
HALF = BN_MAX_WORDS // 2

u32p = ctypes.POINTER(ctypes.c_uint32)
Limbs = ctypes.c_uint32 * BN_MAX_WORDS
HalfLimbs = ctypes.c_uint32 * HALF


# ctypes mirrors of bignum.h / rsa.h; `layout_mismatches` compares them with the C compiler's.

class MontCtx(ctypes.Structure):
    _fields_ = [("n", Limbs), ("rr", Limbs), ("one", Limbs),
                ("n0inv", ctypes.c_uint32), ("words", ctypes.c_uint), ("id", ctypes.c_uint32)]


class RsaKey(ctypes.Structure):
    _fields_ = [("bits", ctypes.c_uint),
                ("n", Limbs), ("e", Limbs), ("d", Limbs),
                ("p", HalfLimbs), ("q", HalfLimbs), ("dp", HalfLimbs), ("dq", HalfLimbs),
                ("qinv", HalfLimbs),
                ("has_crt", ctypes.c_int)]


class RsaCtx(ctypes.Structure):
    _fields_ = [("n", MontCtx), ("p", MontCtx), ("q", MontCtx), ("p_wide", MontCtx), ("q_wide", MontCtx),
                ("qinv_m", HalfLimbs), ("q_m", Limbs), ("p_k", HalfLimbs), ("q_k", HalfLimbs)]


MIRRORS = (MontCtx, RsaKey, RsaCtx)
C_NAMES = {MontCtx: "mont_ctx", RsaKey: "rsa_key", RsaCtx: "rsa_ctx"}

RSA_OK, RSA_ERR_RANGE, RSA_ERR_KEY, RSA_ERR_FAULT = 0, -1, -2, -3


class _LayoutEntry(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_size_t), ("size", ctypes.c_size_t)]


def c_layout(lib):
    """{"type": (0, sizeof), "type.field": (offsetof, sizeof)} from the library's `test_layout`."""
    entries = ctypes.cast(lib.test_layout, ctypes.POINTER(_LayoutEntry))
    layout, i = {}, 0
    while entries[i].name is not None:
        layout[entries[i].name.decode()] = (entries[i].offset, entries[i].size)
        i += 1
    return layout


def mirror_layout(mirrors=MIRRORS, names=C_NAMES):
    """The same table for the ctypes mirrors."""
    layout = {}
    for struct in mirrors:
        name = names[struct]
        layout[name] = (0, ctypes.sizeof(struct))
        for field, _ in struct._fields_:
            descriptor = getattr(struct, field)
            layout[f"{name}.{field}"] = (descriptor.offset, descriptor.size)
    return layout


def layout_mismatches(c, mirror):
    """Entries whose (offset, size) differ, or that only one side has: {name: (C, ctypes)}."""
    return {name: (c.get(name), mirror.get(name)) for name in c.keys() | mirror.keys()
            if c.get(name) != mirror.get(name)}


def words_for(bits):
    return max(1, (bits + 31) // 32)


def limbs(x, words):
    """A ctypes uint32 array of `words` limbs holding x (little-endian limbs)."""
    assert 0 <= x < 1 << (32 * words), "value does not fit"
    return (ctypes.c_uint32 * words)(*[(x >> (32 * i)) & 0xFFFFFFFF for i in range(words)])


def value(arr, words=None):
    words = len(arr) if words is None else words
    return sum(int(arr[i]) << (32 * i) for i in range(words))


def set_limbs(field, x):
    assert 0 <= x < 1 << (32 * len(field))
    for i in range(len(field)):
        field[i] = (x >> (32 * i)) & 0xFFFFFFFF


def mont_reference(a, b, n, words):
    """a*b*R^-1 mod n, R = 2^(32*words): the textbook definition."""
    return a * b * pow(1 << (32 * words), -1, n) % n


class BigNumLib:
    """Python-int wrappers around the C API (one call each, no logic of their own)."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(str(path))
        u = ctypes.c_uint
        sig = {
            "bn_from_hex": (ctypes.c_int, [u32p, u, ctypes.c_char_p, ctypes.c_size_t]),
            "bn_to_hex": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t, u32p, u]),
            "bn_bits": (u, [u32p, u]),
            "bn_cmp": (ctypes.c_int, [u32p, u32p, u]),
            "bn_less_same": (ctypes.c_int, [u32p, u32p, u32p, u, ctypes.POINTER(ctypes.c_uint32)]),
            "bn_add": (ctypes.c_uint32, [u32p, u32p, u32p, u]),
            "bn_sub": (ctypes.c_uint32, [u32p, u32p, u32p, u]),
            "bn_mul": (None, [u32p, u32p, u32p, u]),
            "bn_mod": (ctypes.c_int, [u32p, u, u32p, u, u32p, u]),
            "mont_init": (ctypes.c_int, [ctypes.POINTER(MontCtx), u32p, u]),
            "rsa_ctx_init": (ctypes.c_int, [ctypes.POINTER(RsaCtx), ctypes.POINTER(RsaKey)]),
            "bn_mul_limb_add": (None, [u32p, u32p, u, ctypes.c_uint32, ctypes.c_uint32]),
            "bn_divexact_odd": (None, [u32p, u32p, u, ctypes.c_uint32]),
            "bn_gcd_odd": (None, [u32p, u32p, u, u]),
            "bn_modinv_odd": (ctypes.c_int, [u32p, u32p, u32p, u, u]),
        }
        for name in ["mont_mul"]:
            sig[name] = (None, [ctypes.POINTER(MontCtx), u32p, u32p, u32p])
        for name in ["mont_add", "mont_sub"]:
            sig[name] = (None, [ctypes.POINTER(MontCtx), u32p, u32p, u32p])
        for name in ["mont_sqr", "mont_to", "mont_from"]:
            sig[name] = (None, [ctypes.POINTER(MontCtx), u32p, u32p])
        sig["mont_to_wide"] = (None, [ctypes.POINTER(MontCtx), u32p, u32p, u])
        for name in ["mont_exp_window", "mont_exp_ladder", "mont_exp_fixed"]:
            sig[name] = (None, [ctypes.POINTER(MontCtx), u32p, u32p, u32p, u])
        for name in ["rsa_public", "rsa_private", "rsa_private_crt"]:
            sig[name] = (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(RsaKey), ctypes.POINTER(RsaCtx), u32p, u32p])
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args

    # -- plain numbers --
    def from_hex(self, text, words):
        r = (ctypes.c_uint32 * max(words, 1))()
        raw = text.encode() if isinstance(text, str) else text
        rc = self.lib.bn_from_hex(r, words, raw, len(raw))
        return rc, value(r, words)

    def to_hex(self, x, words, outlen=None):
        outlen = 8 * words + 2 if outlen is None else outlen
        out = ctypes.create_string_buffer(outlen + 1)
        rc = self.lib.bn_to_hex(out, outlen, limbs(x, words), words)
        return rc, out.value.decode()

    def bits(self, x, words):
        return self.lib.bn_bits(limbs(x, words), words)

    def cmp(self, a, b, words):
        return self.lib.bn_cmp(limbs(a, words), limbs(b, words), words)

    def less_same(self, x, n, m, words):
        """(1 if x < n else 0, the mask bn_less_same sets: all ones if n == m, else 0)."""
        same = ctypes.c_uint32(0x5a5a5a5a)
        less = self.lib.bn_less_same(limbs(x, words), limbs(n, words), limbs(m, words), words, ctypes.byref(same))
        return less, same.value

    def add(self, a, b, words):
        r = (ctypes.c_uint32 * words)()
        c = self.lib.bn_add(r, limbs(a, words), limbs(b, words), words)
        return c, value(r)

    def sub(self, a, b, words):
        r = (ctypes.c_uint32 * words)()
        c = self.lib.bn_sub(r, limbs(a, words), limbs(b, words), words)
        return c, value(r)

    def mul(self, a, b, words):
        r = (ctypes.c_uint32 * (2 * words))()
        self.lib.bn_mul(r, limbs(a, words), limbs(b, words), words)
        return value(r)

    def mod(self, a, awords, n, nwords, rwords=None):
        rwords = nwords if rwords is None else rwords
        r = (ctypes.c_uint32 * max(rwords, 1))()
        rc = self.lib.bn_mod(r, rwords, limbs(a, awords), awords, limbs(n, nwords), nwords)
        return rc, value(r, rwords)

    # -- Montgomery --
    def mont(self, n, words=None):
        """A mont_ctx for n (asserts mont_init succeeds)."""
        words = words_for(n.bit_length()) if words is None else words
        ctx = MontCtx()
        rc = self.lib.mont_init(ctypes.byref(ctx), limbs(n, words), words)
        assert rc == 0
        return ctx

    def mont_init_rc(self, n, words):
        ctx = MontCtx()
        arr = limbs(n, words) if words else (ctypes.c_uint32 * 1)(n)
        return self.lib.mont_init(ctypes.byref(ctx), arr, words)

    def mont_binary(self, name, ctx, a, b):
        w = ctx.words
        r = (ctypes.c_uint32 * w)()
        getattr(self.lib, name)(ctypes.byref(ctx), r, limbs(a, w), limbs(b, w))
        return value(r)

    def mont_unary(self, name, ctx, a):
        w = ctx.words
        r = (ctypes.c_uint32 * w)()
        getattr(self.lib, name)(ctypes.byref(ctx), r, limbs(a, w))
        return value(r)

    def mont_to_wide(self, ctx, a, awords):
        r = (ctypes.c_uint32 * ctx.words)()
        self.lib.mont_to_wide(ctypes.byref(ctx), r, limbs(a, awords), awords)
        return value(r)

    def exp(self, name, ctx, base, e, ebits):
        w = ctx.words
        r = (ctypes.c_uint32 * w)()
        ew = max(1, words_for(ebits))
        getattr(self.lib, name)(ctypes.byref(ctx), r, limbs(base, w), limbs(e, ew), ebits)
        return value(r)

    # -- RSA --
    @staticmethod
    def rsa_key(n, e, d, p=None, q=None, dp=None, dq=None, qinv=None):
        k = RsaKey()
        k.bits = n.bit_length()
        set_limbs(k.n, n)
        set_limbs(k.e, e)
        set_limbs(k.d, d)
        if p is not None:
            for field, x in (("p", p), ("q", q), ("dp", dp), ("dq", dq), ("qinv", qinv)):
                set_limbs(getattr(k, field), x)
            k.has_crt = 1
        return k

    def rsa_ctx(self, key):
        ctx = RsaCtx()
        rc = self.lib.rsa_ctx_init(ctypes.byref(ctx), ctypes.byref(key))
        return rc, ctx

    def rsa(self, name, key, ctx, x):
        w = words_for(key.bits)
        out = (ctypes.c_uint32 * w)(*([0xDEADBEEF] * w))
        rc = getattr(self.lib, name)(self.sw_backend, ctypes.byref(key), ctypes.byref(ctx), out, limbs(x, w))
        return rc, value(out)

    @property
    def sw_backend(self):
        """The address of rsa.h's software backend `rsa_sw` (the first argument of the RSA operations)."""
        return ctypes.addressof(ctypes.c_void_p.in_dll(self.lib, "rsa_sw"))


def compile_host(out, extra=()):
    cmd = ["gcc", "-shared", "-fPIC", "-O2", "-std=c11", "-Wall", "-Wextra", "-Werror",
           f"-DBN_MAX_BITS={BN_MAX_BITS}", f"-I{FIRMWARE}", *extra, "-o", str(out),
           *(str(FIRMWARE / s) for s in SOURCES), str(LAYOUT_SOURCE)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)


#: The device's generator and its entropy source's driver, over a host model of the source's CSRs.
RNG_SOURCES = [FIRMWARE / "rand" / "rng.c", FIRMWARE / "rand" / "entropy.c", Path(__file__).resolve().parent / "entropy_model.c"]


#: The SHA-256 engine's driver and hash class, over a host model of the engine's CSRs.
SHA256_HW_SOURCES = [FIRMWARE / "hash" / "sha256_hw.c", Path(__file__).resolve().parent / "sha256_model.c"]


def entropy_defines():
    """What LiteX's csr.h and soc.h give the firmware of the entropy source, from the contract (soc/entropy.py,
    gateware/entropy/interface.py): -D flags for the host stand-ins, with their include directory."""
    from amaranth.lib import data

    from gateware.entropy.interface import SEED_RAW_WORDS, Status
    from soc.entropy import STATUS_FIELDS
    layout = data.Layout.cast(Status)
    return [f"-I{Path(__file__).resolve().parent / 'host_litex'}", f"-DENTROPY_SEED_WORDS={SEED_RAW_WORDS}",
            "-DCSR_ENTROPY_CTRL_RESTART_OFFSET=0",
            *(f"-DCSR_ENTROPY_STATUS_{name.upper()}_OFFSET={layout[name].offset}" for name in STATUS_FIELDS)]


def sha256_defines():
    """What LiteX's csr.h and soc.h give the firmware of the SHA-256 engine, from the contract (soc/sha256.py,
    gateware/sha256/interface.py): -D flags for the host stand-in (sha256_model.c)."""
    from soc.sha256 import STATUS_OFFSETS, soc_constants
    return ["-DCSR_SHA256_COMMAND_CODE_OFFSET=0",
            *(f"-DCSR_SHA256_STATUS_{name.upper()}_OFFSET={offset}" for name, offset in STATUS_OFFSETS.items()),
            *(f"-D{name}={value}" for name, value in soc_constants().items())]


def compile_with_bearssl(name, bearssl_sources, sources):
    """build/test-firmware/<name>-<pid>/lib<name>.so: the firmware's C `sources` (with compile_host's
    files) over BearSSL's modules `bearssl_sources` (paths below its src/), built as BearSSL's makefile
    would not: with -fPIC, for ctypes. BearSSL comes from build/peers (soc.peer_libs); the build-time
    header says BearSSL is there and mbedTLS is not."""
    import os

    from soc import peer_libs
    bearssl = peer_libs.cached(peer_libs.PEERS["bearssl"])
    if bearssl is None:
        pytest.fail("BearSSL is not in build/peers: run tools/setup.sh (soc.peer_libs fetches it)")
    work = BUILD / f"{name}-{os.getpid()}"
    (work / "gen").mkdir(parents=True, exist_ok=True)
    (work / "gen" / "peer_build.h").write_text("#define PEER_HAVE_MBEDTLS 0\n#define PEER_HAVE_BEARSSL 1\n")
    includes = [f"-I{bearssl / 'inc'}", f"-I{bearssl / 'src'}"]
    objects = []
    for source in bearssl_sources:            # BearSSL's own code with its own warnings
        obj = work / (source.replace("/", "_") + ".o")
        subprocess.run(["gcc", "-c", "-fPIC", "-O2", "-w", *includes, str(bearssl / "src" / source), "-o", str(obj)],
                       check=True, capture_output=True, text=True)
        objects.append(str(obj))
    path = work / f"lib{name}.so"
    compile_host(path, extra=[f"-I{work / 'gen'}", *includes, *entropy_defines(), *sha256_defines(), *map(str, sources),
                              *objects])
    return path


# ---- keys ----

def key_numbers(bits, seed=None):
    """(n, e, d, p, q, dp, dq, qinv) of a reproducible key from the firmware's own key generator
    (soc/keys.py: seeded primes, the key checked and completed by `cryptography`)."""
    k = generate_key(bits, seed=f"tests-{bits}-{seed}")
    return k["n"], k["e"], k["d"], k["p"], k["q"], k["dp"], k["dq"], k["qinv"]
