"""firmware/hash/sha256_hw.c on the host, over a model of the SHA-256 engine's window and CSRs
(sha256_model.c): its BearSSL hash class gives hashlib's digests, with contexts interleaved block by block
(each loads its own state into the one engine), whole blocks taken from the caller's bytes at any
alignment (by the engine's DMA when they are word-aligned in main RAM, through the window otherwise), the engine's state used between a context's calls but never for a copy of it, out() leaving a
context as it was, and state()/set_state() moving a hash from one context to another; its descriptor is
BearSSL's SHA-256's."""
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


@pytest.fixture
def main_ram(lib):
    """main_ram(address, size): the model's main RAM, where its DMA reads (none again after the test);
    returns a function giving the blocks its DMA has fed so far."""
    base, size = (ctypes.c_ulong.in_dll(lib, f"sha256_model_ram_{name}") for name in ("base", "size"))
    fed = ctypes.c_ulong.in_dll(lib, "sha256_model_dma_blocks")

    def set_region(address, length):
        base.value, size.value = address, length
        return lambda: fed.value
    yield set_region
    base.value = size.value = 0


@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_whole_blocks_at_any_alignment(hw, main_ram, offset):
    """Whole blocks word-aligned in main RAM go to the engine in one DMA command; from an unaligned buffer
    as words through the window, via the context's buffer; after a partial block, that block through the
    window too: the digest is hashlib's either way."""
    message = random.Random(3).randbytes(64 * 5 + 7)
    for split, dma_blocks in ((0, 5), (10, 4)):
        backing = ctypes.create_string_buffer(offset + len(message) + 8)
        fed = main_ram(ctypes.addressof(backing), len(backing))
        address = ctypes.addressof(backing) + (-ctypes.addressof(backing) % 4) + offset
        ctypes.memmove(address, message, len(message))
        ctx = Context(hw)
        before = fed()
        ctx.cls.update(ctypes.addressof(ctx.buf), address, split)
        ctx.cls.update(ctypes.addressof(ctx.buf), address + split, len(message) - split)
        assert fed() - before == (dma_blocks if address % 4 == 0 else 0), (offset, split)
        assert ctx.out() == hashlib.sha256(message).digest(), (offset, split)


def test_blocks_past_main_ram_go_through_the_window(hw, main_ram):
    """Aligned blocks not all in main RAM: the window, not the DMA (which would refuse them)."""
    message = random.Random(6).randbytes(64 * 4)
    backing = ctypes.create_string_buffer(len(message) + 4)
    address = ctypes.addressof(backing) + (-ctypes.addressof(backing) % 4)
    ctypes.memmove(address, message, len(message))
    fed = main_ram(address, 64 * 3)
    before = fed()
    ctx = Context(hw)
    ctx.cls.update(ctypes.addressof(ctx.buf), address, len(message))
    assert fed() == before and ctx.out() == hashlib.sha256(message).digest()
    ctx = Context(hw)
    ctx.cls.update(ctypes.addressof(ctx.buf), address, 64 * 3)
    assert fed() == before + 3


def state_words(ctx):
    """The context's chaining state as the words its `val` holds (native order)."""
    state = ctypes.create_string_buffer(32)
    ctx.cls.state(ctypes.addressof(ctx.buf), state)
    return b"".join(state.raw[i:i + 4][::-1] for i in range(0, 32, 4))


def test_the_engine_keeps_a_contexts_state_between_calls(hw):
    """After an update() the engine holds the context's state: the next call compresses on from it, not
    from the context's copy (here overwritten, which only a load would read)."""
    message = random.Random(4).randbytes(300)
    ctx = Context(hw)
    ctx.update(message[:128])
    raw = ctx.buf.raw
    val = raw.index(state_words(ctx))
    ctypes.memset(ctypes.addressof(ctx.buf) + val, 0, 32)
    ctx.update(message[128:])
    assert ctx.out() == hashlib.sha256(message).digest()


def test_a_copied_context_loads_its_own_state(hw):
    """A context copied (memcpy) and both copies carried on: each its own digest, however the calls
    alternate; a copy written back over a context the engine has moved on from loads its own state."""
    rng = random.Random(5)
    head, tails = rng.randbytes(200), [rng.randbytes(150), rng.randbytes(90)]
    original = Context(hw)
    original.update(head)
    copy = Context(hw)
    ctypes.memmove(copy.buf, original.buf, hw.context_size)
    saved = ctypes.create_string_buffer(original.buf.raw, hw.context_size)
    copy.update(tails[1])
    original.update(tails[0])
    assert original.out() == hashlib.sha256(head + tails[0]).digest()
    assert copy.out() == hashlib.sha256(head + tails[1]).digest()
    # the saved bytes back over the original, whose state the engine held after its own update
    original.update(tails[0])
    ctypes.memmove(original.buf, saved, hw.context_size)
    original.update(tails[1])
    assert original.out() == hashlib.sha256(head + tails[1]).digest()
