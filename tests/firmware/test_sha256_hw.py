"""firmware/hash/sha256_hw.c on the host, over a model of the SHA-256 engine's CSRs (sha256_model.c): its
BearSSL hash class gives hashlib's digests, with contexts interleaved block by block (each loads its own
state into the one engine), out() leaving a context as it was, and state()/set_state() moving a hash from
one context to another; its descriptor is BearSSL's SHA-256's."""
import ctypes
import hashlib
import random

import pytest

from bnlib import SHA256_HW_SOURCES, compile_with_bearssl

BEARSSL_SOURCES = ["hash/sha2small.c", "codec/dec32be.c", "codec/enc32be.c"]
CTX = ctypes.c_void_p


class HashClass(ctypes.Structure):
    """bearssl_hash.h's br_hash_class."""
    _fields_ = [("context_size", ctypes.c_size_t), ("desc", ctypes.c_uint32),
                ("init", ctypes.CFUNCTYPE(None, CTX)),
                ("update", ctypes.CFUNCTYPE(None, CTX, ctypes.c_void_p, ctypes.c_size_t)),
                ("out", ctypes.CFUNCTYPE(None, CTX, ctypes.c_void_p)),
                ("state", ctypes.CFUNCTYPE(ctypes.c_uint64, CTX, ctypes.c_void_p)),
                ("set_state", ctypes.CFUNCTYPE(None, CTX, ctypes.c_void_p, ctypes.c_uint64))]


@pytest.fixture(scope="module")
def lib():
    path = compile_with_bearssl("sha256_hw", BEARSSL_SOURCES, SHA256_HW_SOURCES)
    yield ctypes.CDLL(str(path))
    path.unlink(missing_ok=True)


@pytest.fixture(scope="module")
def hw(lib):
    return HashClass.in_dll(lib, "sha256_hw_vtable")


class Context:
    def __init__(self, cls):
        self.cls = cls
        self.buf = ctypes.create_string_buffer(cls.context_size)
        cls.init(ctypes.addressof(self.buf))

    def update(self, data):
        self.cls.update(ctypes.addressof(self.buf), data, len(data))

    def out(self):
        digest = ctypes.create_string_buffer(32)
        self.cls.out(ctypes.addressof(self.buf), digest)
        return digest.raw


def test_descriptor_is_bearssl_sha256s(lib, hw):
    sw = HashClass.in_dll(lib, "br_sha256_vtable")
    assert hw.desc == sw.desc


@pytest.mark.parametrize("length", [0, 3, 55, 56, 63, 64, 65, 119, 120, 1000])
def test_digest_is_hashlibs(hw, length):
    message = random.Random(length).randbytes(length)
    ctx = Context(hw)
    ctx.update(message)
    assert ctx.out() == hashlib.sha256(message).digest()


def test_contexts_interleave_and_out_leaves_them_as_they_were(hw):
    rng = random.Random(1)
    messages = [rng.randbytes(300), rng.randbytes(517), rng.randbytes(64)]
    contexts = [Context(hw) for _ in messages]
    for start in range(0, 600, 37):          # a slice of each in turn: blocks of all three alternate
        for ctx, message in zip(contexts, messages):
            ctx.update(message[start:start + 37])
            assert ctx.out() == hashlib.sha256(message[:start + 37]).digest()
    assert [ctx.out() for ctx in contexts] == [hashlib.sha256(m).digest() for m in messages]


def test_state_moves_a_hash_to_another_context(hw):
    message = random.Random(2).randbytes(500)
    first = Context(hw)
    first.update(message[:256])
    state = ctypes.create_string_buffer(32)
    assert hw.state(ctypes.addressof(first.buf), state) == 256
    second = Context(hw)
    hw.set_state(ctypes.addressof(second.buf), state, 256)
    second.update(message[256:])
    assert second.out() == hashlib.sha256(message).digest()
