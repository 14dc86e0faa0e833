"""firmware/pad/rsa_padding.c on the host, over the software backend and BearSSL's modules: PKCS#1 v1.5 and
PSS signatures and OAEP against `cryptography`, at sizes the simulated SoC's tests do not reach (odd bit
lengths, where PSS's encoded message is a byte shorter than the modulus, and 2048 bits)."""
import ctypes

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from bnlib import FIRMWARE, RNG_SOURCES, SHA256_HW_SOURCES, BigNumLib, compile_with_bearssl, key_numbers

PAD_OK, PAD_ERR_KEY_SIZE, PAD_ERR_TOO_LONG, PAD_ERR_DECRYPT, PAD_ERR_SALT_LENGTH, PAD_ERR_HASH = 0, -2, -3, -5, -6, -8
PAD_PKCS1, PAD_PSS = 0, 1
PAD_SALT_HASH, PAD_SALT_ANY = -1, -2
SHA256_IMPL_SW, SHA256_IMPL_HW = 0, 1         # firmware/hash/sha256_select.h
#: BearSSL's modules rsa_padding.c uses (firmware/Makefile, PAD_BEARSSL_SOURCES), and ccopy.
BEARSSL_SOURCES = ["hash/sha2small.c", "hash/mgf1.c", "mac/hmac.c", "rand/hmac_drbg.c", "codec/dec32be.c",
                   "codec/enc32be.c", "codec/ccopy.c", "rsa/rsa_pkcs1_sig_pad.c", "rsa/rsa_pkcs1_sig_unpad.c",
                   "rsa/rsa_oaep_pad.c"]
#: The selection of the SHA-256 the padding takes (firmware/hash/sha256_select.c), over the engine's host model.
SHA256_SELECT_SOURCES = [FIRMWARE / "hash" / "sha256_select.c", *SHA256_HW_SOURCES]
SIZES = (512, 521, 1025, 1031, 2048)
MESSAGE = b"a message to sign, of no particular length"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


@pytest.fixture(scope="module")
def lib():
    path = compile_with_bearssl("padding", BEARSSL_SOURCES, [FIRMWARE / "pad" / "rsa_padding.c", *RNG_SOURCES,
                                                             *SHA256_SELECT_SOURCES])
    yield BigNumLib(path)
    path.unlink(missing_ok=True)


class Key:
    """A key in the C structures (the software backend) and in `cryptography`."""

    def __init__(self, bn, bits, dp_flip=0):
        n, e, d, p, q, dp, dq, qinv = key_numbers(bits, seed="padding")
        self.bytes = (bits + 7) // 8
        # dp_flip: a wrong dp in the C key, so that every CRT result fails its check with e
        self.c_key = bn.rsa_key(n, e, d, p, q, dp ^ dp_flip, dq, qinv)
        rc, self.c_ctx = bn.rsa_ctx(self.c_key)
        assert rc == 0
        self.private = rsa.RSAPrivateNumbers(p, q, d, dp, dq, qinv, rsa.RSAPublicNumbers(e, n)).private_key()
        self.public = self.private.public_key()
        self.lib = bn.lib
        self.key_args = (ctypes.c_void_p(bn.sw_backend), ctypes.byref(self.c_key), ctypes.byref(self.c_ctx))

    def sign_rc(self, scheme, message, salt=PAD_SALT_HASH):
        out = ctypes.create_string_buffer(self.bytes)
        rc = self.lib.pad_sign(scheme, *self.key_args, message, ctypes.c_size_t(len(message)), salt, out)
        return rc, out.raw

    def sign(self, scheme, message, salt=PAD_SALT_HASH):
        rc, signature = self.sign_rc(scheme, message, salt)
        assert rc == PAD_OK
        return signature

    def verify(self, scheme, message, signature, salt=PAD_SALT_HASH):
        assert len(signature) == self.bytes
        return self.lib.pad_verify(scheme, *self.key_args, message, ctypes.c_size_t(len(message)), salt, signature)

    def max_salt(self):
        return self.lib.pad_pss_max_salt(ctypes.byref(self.c_key))

    def oaep_encrypt(self, message, label=b""):
        out = ctypes.create_string_buffer(self.bytes)
        rc = self.lib.pad_oaep_encrypt(*self.key_args, label, ctypes.c_size_t(len(label)), message,
                                       ctypes.c_size_t(len(message)), out)
        return rc, out.raw

    def oaep_decrypt(self, ciphertext, label=b""):
        """(rc, the message); the whole output block is zeros when the decryption fails."""
        out = ctypes.create_string_buffer(b"\x5a" * self.bytes, self.bytes)
        length = ctypes.c_size_t(0)
        rc = self.lib.pad_oaep_decrypt(*self.key_args, label, ctypes.c_size_t(len(label)), ciphertext, out,
                                       ctypes.byref(length))
        if rc == PAD_ERR_DECRYPT:
            assert out.raw == bytes(self.bytes) and length.value == 0
        return rc, out.raw[self.bytes - length.value:]


@pytest.fixture(scope="module")
def keys(lib):
    return {bits: Key(lib, bits) for bits in SIZES}


def _pss(salt_length):
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=salt_length)


@pytest.mark.parametrize("bits", SIZES)
def test_signatures_both_ways(keys, bits):
    key = keys[bits]
    pkcs1 = key.sign(PAD_PKCS1, MESSAGE)
    assert pkcs1 == key.private.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    longest = key.bytes - (bits % 8 == 1) - 34           # em_len - hLen - 2
    assert key.max_salt() == longest
    default = min(32, longest)                            # the hash's length, or what there is room for
    for _ in range(3):          # a salt each time; the salt's first byte decides the top bits' fate
        pss = key.sign(PAD_PSS, MESSAGE)
        key.public.verify(pss, MESSAGE, _pss(default), hashes.SHA256())
    for salt in (0, 1, longest):
        key.public.verify(key.sign(PAD_PSS, MESSAGE, salt), MESSAGE, _pss(salt), hashes.SHA256())
    assert key.sign_rc(PAD_PSS, MESSAGE, longest + 1)[0] == PAD_ERR_SALT_LENGTH
    assert key.verify(PAD_PSS, MESSAGE, pss, longest + 1) == PAD_ERR_SALT_LENGTH
    salts = [longest, 0, 20] + ([32] if longest >= 32 else [])
    theirs = [(PAD_PKCS1, PAD_SALT_HASH, pkcs1)] + [(PAD_PSS, salt, key.private.sign(MESSAGE, _pss(salt), hashes.SHA256()))
                                                     for salt in salts]
    for scheme, salt, signature in theirs:
        assert key.verify(scheme, MESSAGE, signature, salt) == 1
        assert key.verify(scheme, MESSAGE + b".", signature, salt) == 0
        assert key.verify(1 - scheme, MESSAGE, signature, PAD_SALT_ANY) == 0
        if scheme == PAD_PSS:
            # the default takes only the default's length; salt=auto any; another length none
            assert key.verify(scheme, MESSAGE, signature) == (salt == default)
            assert key.verify(scheme, MESSAGE, signature, PAD_SALT_ANY) == 1
            assert key.verify(scheme, MESSAGE, signature, salt - 1 if salt else 1) == 0
        for bit in (0, 7, 8 * key.bytes - 1):
            flipped = bytearray(signature)
            flipped[bit // 8] ^= 1 << (bit % 8)
            assert key.verify(scheme, MESSAGE, bytes(flipped), salt) == 0
    assert key.verify(PAD_PKCS1, MESSAGE, b"\xff" * key.bytes) == 0          # not below the modulus
    # the empty message
    key.public.verify(key.sign(PAD_PSS, b""), b"", _pss(default), hashes.SHA256())
    assert key.verify(PAD_PKCS1, b"", key.private.sign(b"", padding.PKCS1v15(), hashes.SHA256())) == 1


def _oaep(label):
    return padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=label or None)


@pytest.mark.parametrize("bits", [b for b in SIZES if b >= 1024])
def test_oaep_both_ways(keys, bits):
    key = keys[bits]
    longest = key.bytes - 66
    for message in (b"", b"\x01", MESSAGE, bytes(i % 251 for i in range(longest))):
        for label in (b"", b"\x00", b"a label"):
            rc, ciphertext = key.oaep_encrypt(message, label)
            assert rc == PAD_OK
            assert key.private.decrypt(ciphertext, _oaep(label)) == message
            assert key.oaep_decrypt(key.public.encrypt(message, _oaep(label)), label) == (PAD_OK, message)
    assert key.oaep_encrypt(bytes(longest + 1))[0] == PAD_ERR_TOO_LONG
    good = key.public.encrypt(MESSAGE, OAEP)
    labelled = key.public.encrypt(MESSAGE, _oaep(b"a label"))
    for bad, label in ((good[:-1] + bytes([good[-1] ^ 1]), b""), (key.public.encrypt(MESSAGE, padding.PKCS1v15()), b""),
                       (b"\xff" * key.bytes, b""), (bytes(key.bytes), b""),
                       (good, b"\x00"), (labelled, b""), (labelled, b"a labe"), (labelled, b"a label\x00")):
        assert key.oaep_decrypt(bad, label)[0] == PAD_ERR_DECRYPT


def test_oaep_decryption_fails_when_the_crt_check_does(lib, keys):
    good = keys[1025].public.encrypt(MESSAGE, OAEP)
    assert Key(lib, 1025, dp_flip=2).oaep_decrypt(good)[0] == PAD_ERR_DECRYPT


def test_too_small_keys_are_refused(lib, keys):
    # 512 bits: both signatures fit (above), OAEP with SHA-256 does not (66 bytes at least); 528 bits
    # carries the empty message only
    assert keys[512].oaep_encrypt(b"")[0] == PAD_ERR_KEY_SIZE
    assert keys[512].oaep_decrypt(bytes(64))[0] == PAD_ERR_KEY_SIZE
    key = Key(lib, 528)
    assert key.oaep_encrypt(b"x")[0] == PAD_ERR_TOO_LONG
    rc, ciphertext = key.oaep_encrypt(b"")
    assert rc == PAD_OK and key.private.decrypt(ciphertext, OAEP) == b""
    assert key.oaep_decrypt(ciphertext) == (PAD_OK, b"")
    # 256 bits: no room for any of them
    key = Key(lib, 256)
    assert key.sign_rc(PAD_PKCS1, MESSAGE)[0] == PAD_ERR_KEY_SIZE
    assert key.sign_rc(PAD_PSS, MESSAGE)[0] == PAD_ERR_KEY_SIZE
    assert key.max_salt() == PAD_ERR_KEY_SIZE
    assert key.verify(PAD_PSS, MESSAGE, bytes(32), PAD_SALT_ANY) == 0
    assert key.oaep_encrypt(b"")[0] == PAD_ERR_KEY_SIZE


@pytest.mark.parametrize("bits", [1031, 2048])
def test_software_and_engine_hashes_give_the_same_results(lib, keys, bits):
    """sha256_select: the deterministic results (PKCS#1 v1.5, PSS without a salt, OAEP decryption) are the same
    bytes whichever SHA-256 the padding takes (the engine: the CSR model, its signing encoding made twice)."""
    key = keys[bits]
    ciphertext = key.public.encrypt(MESSAGE, OAEP)
    made = {}
    try:
        for impl in (SHA256_IMPL_SW, SHA256_IMPL_HW):
            lib.lib.sha256_select(impl)
            assert lib.lib.sha256_selected() == impl
            made[impl] = (key.sign(PAD_PKCS1, MESSAGE), key.sign(PAD_PSS, MESSAGE, 0), key.oaep_decrypt(ciphertext))
            key.public.verify(key.sign(PAD_PSS, MESSAGE), MESSAGE, _pss(32), hashes.SHA256())
            assert key.verify(PAD_PKCS1, MESSAGE, made[impl][0]) == 1
    finally:
        lib.lib.sha256_select(SHA256_IMPL_HW)
    assert made[SHA256_IMPL_SW] == made[SHA256_IMPL_HW]
    assert made[SHA256_IMPL_HW][0] == key.private.sign(MESSAGE, padding.PKCS1v15(), hashes.SHA256())
    assert made[SHA256_IMPL_HW][2] == (PAD_OK, MESSAGE)
    assert lib.lib.sha256_sel_faults() == 0


#: The engine's model with two faults a test can arm: after the n-th BLOCK from now, a bit of a state word
#: flips (once), as a fault in the engine's state register would; and the status reads busy for good.
FAULTY_MODEL = """
#define sha256_command_write model_command_write
#define sha256_status_read model_status_read
#include "%s"
#undef sha256_command_write
#undef sha256_status_read

static int flip_at, stuck;

void fault_arm(int block, int busy)
{
    flip_at = block;
    stuck = busy;
}

void sha256_command_write(uint32_t value)
{
    model_command_write(value);
    if ((value >> CSR_SHA256_COMMAND_CODE_OFFSET & 15) == SHA256_COMMAND_BLOCK && flip_at > 0 && --flip_at == 0)
        sha256_model_window[SHA256_WINDOW_STATE + 3] ^= 0x10;
}

uint32_t sha256_status_read(void)
{
    return stuck ? 1u << CSR_SHA256_STATUS_BUSY_OFFSET : model_status_read();
}
"""


@pytest.fixture(scope="module")
def faulty(tmp_path_factory):
    model = tmp_path_factory.mktemp("faulty") / "faulty_sha256_model.c"
    model.write_text(FAULTY_MODEL % SHA256_HW_SOURCES[1])
    path = compile_with_bearssl("padding-faulty", BEARSSL_SOURCES, [FIRMWARE / "pad" / "rsa_padding.c", *RNG_SOURCES,
                                                                    FIRMWARE / "hash" / "sha256_select.c",
                                                                    SHA256_HW_SOURCES[0], model])
    bn = BigNumLib(path)
    yield bn, Key(bn, 1024)
    path.unlink(missing_ok=True)


def test_a_faulted_engine_releases_no_signature(faulty):
    """A state word of the engine flipped once, after any block of either of the two computations a
    signature on the engine makes of its digest (2 blocks each for a 64-byte message) or of its PSS
    encoding (4 blocks each at 1024 bits), stops it before the private operation; so does an engine stuck
    busy, which verify and OAEP report too. The same calls without a fault succeed."""
    bn, key = faulty
    arm = bn.lib.fault_arm
    message = bytes(range(64))
    expected = key.private.sign(message, padding.PKCS1v15(), hashes.SHA256())
    assert key.sign(PAD_PKCS1, message) == expected
    for block in (1, 2, 3, 4):                        # the first digest's blocks, then the second's
        arm(block, 0)
        assert key.sign_rc(PAD_PKCS1, message) == (PAD_ERR_HASH, bytes(key.bytes)), block
    unsalted = key.sign(PAD_PSS, message, 0)
    # 1024 bits: H (one block) then MGF1 over 94 bytes (3 blocks) after the digests' 4 blocks, twice
    for block in (5, 7, 9, 12):                       # the first encoding's H and MGF1, the second's
        arm(block, 0)
        assert key.sign_rc(PAD_PSS, message, 0) == (PAD_ERR_HASH, bytes(key.bytes)), block
    arm(0, 0)
    assert key.sign(PAD_PSS, message, 0) == unsalted
    ciphertext = key.public.encrypt(message[:32], OAEP)
    arm(0, 1)
    try:
        assert key.sign_rc(PAD_PKCS1, message)[0] == PAD_ERR_HASH
        assert key.verify(PAD_PKCS1, message, expected) == PAD_ERR_HASH
        assert key.oaep_decrypt(ciphertext)[0] == PAD_ERR_HASH
    finally:
        arm(0, 0)
    assert key.verify(PAD_PKCS1, message, expected) == 1
    assert key.oaep_decrypt(ciphertext) == (PAD_OK, message[:32])
