"""RSA with padding in the simulated SoC (`sign`, `verify`, `oaep_encrypt`, `oaep_decrypt`): signatures
and ciphertexts made on the device are checked by `cryptography` and by Debian's openssl, and those
made there are checked on the device, with PSS salt lengths and OAEP labels both ways; a failed OAEP
decryption takes the cycles of a successful one, whatever failed; refused input gives one error line
each and the console carries on with its key."""

import hashlib
import shutil
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from soc import config, firmware, peer_libs
from soc import keys as soc_keys
from soc.console_protocol import (CIPHERTEXT, COMPARISON, DECRYPTION_FAILED, KEY_SET, MESSAGE, SHA256_USERS, SIGNATURE,
                                  VALID, Error, error_code, error_lines, hex_argument)

#: One worker, one boot of the SoC for the module.
pytestmark = pytest.mark.xdist_group("signatures")

MESSAGE_BYTES = bytes(range(64))
#: The longest PSS salt a key has room for: em_len - hLen - 2 (94 bytes at 1024 bits, 30 at 512).
LONGEST_SALT = {512: 30, 1024: 94}
#: The firmware's default salt length: the hash's, or the longest there is room for when shorter.
DEFAULT_SALT = {bits: min(32, longest) for bits, longest in LONGEST_SALT.items()}


def _pss(salt_length=padding.PSS.AUTO):
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=salt_length)


def _oaep(label=None):
    return padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=label or None)


OAEP = _oaep()


def _key(bits):
    """A reproducible key: its numbers and the `cryptography` private key."""
    numbers = soc_keys.generate_key(bits, seed="test-signatures")
    private = rsa.RSAPrivateNumbers(numbers["p"], numbers["q"], numbers["d"], numbers["dp"], numbers["dq"],
                                    numbers["qinv"], rsa.RSAPublicNumbers(numbers["e"], numbers["n"])).private_key()
    return numbers, private


KEYS = {bits: _key(bits) for bits in (512, 1024)}


def _error(out):
    """The Error of the one line of `out`, which must be an error line."""
    errors = error_lines(out)
    assert len(errors) == 1 and len(out.strip().splitlines()) == 1, out
    return error_code(errors[0])


#: The key each console of the module was last given, (bits, private), by id(console): no command of
#: these tests but `key` changes it, and a private key's set-up is a few seconds of simulation at 1024
#: bits (its CRT constants in software), so a test whose key is already set does not set it again.
_KEY_SET = {}


def _set_key(console, bits, private=True):
    if _KEY_SET.get(id(console)) == (bits, private):
        return
    _KEY_SET.pop(id(console), None)
    k, _ = KEYS[bits]
    args = [k["n"], k["e"]] + ([k["d"], k["p"], k["q"]] if private else [])
    out = console.command("key " + " ".join(f"{v:x}" for v in args))
    assert KEY_SET.parse_all(out) == [{"bits": bits, "private": "yes" if private else "no"}]
    _KEY_SET[id(console)] = (bits, private)


def _use_sha256(console, name):
    """`sha256 <name>`: the SHA-256 the padding takes from now on (the engine, hw, by default)."""
    assert SHA256_USERS.parse_all(console.command(f"sha256 {name}")) == [{"impl": name}]


def _salt(salt):
    return "" if salt is None else f" salt={salt}"


def _sign(console, scheme, message, impl="", salt=None):
    out = console.command(f"sign {scheme} {hex_argument(message)} {impl}".rstrip() + _salt(salt))
    [line] = SIGNATURE.parse_all(out)
    assert line["cycles"] > 0
    return line["signature"]


def _verify(console, scheme, message, signature, salt=None):
    [line] = VALID.parse_all(console.command(f"verify {scheme} {hex_argument(message)} {signature.hex()}"
                                             + _salt(salt)))
    assert line["cycles"] > 0
    return line["valid"]


def _decrypt(console, ciphertext, label=None):
    """`oaep_decrypt`'s answer: (the message or None when it failed, the cycles)."""
    out = console.command(f"oaep_decrypt {ciphertext.hex()}" + ("" if label is None else f" label={hex_argument(label)}"))
    for line in (MESSAGE, DECRYPTION_FAILED):
        [*found] = line.parse_all(out)
        if found:
            assert len(found) == 1 and len(out.strip().splitlines()) == 1, out
            return found[0].get("message"), found[0]["cycles"]
    raise AssertionError(f"oaep_decrypt answered {out!r}")


def _mgf1(seed, length):
    return b"".join(hashlib.sha256(seed + i.to_bytes(4, "big")).digest() for i in range((length + 31) // 32))[:length]


def _oaep_block(k, message, label=b"", defect=None):
    """EME-OAEP encoding (RFC 8017, 7.1.1 step 2: SHA-256, MGF1-SHA-256) of `message` into k bytes, with
    one `defect`: "y" (the first byte not zero), "separator" (0x02 where the 0x01 goes), "no_separator"
    (a zero there: the first non-zero byte is the message's)."""
    db = bytearray(hashlib.sha256(label).digest() + bytes(k - len(message) - 66) + b"\x01" + message)
    if defect in ("separator", "no_separator"):
        db[k - len(message) - 34] = {"separator": 2, "no_separator": 0}[defect]
    seed = bytes(range(1, 33))
    masked_db = bytes(a ^ b for a, b in zip(db, _mgf1(seed, len(db))))
    masked_seed = bytes(a ^ b for a, b in zip(seed, _mgf1(masked_db, 32)))
    return bytes([defect == "y"]) + masked_seed + masked_db


@pytest.fixture(scope="module")
def session(sim_soc):
    """A booted console, and the output of the commands typed before any key was set."""
    from link.console import SimConsole
    con = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=600)
    try:
        con.wait_prompt()
        before_key = {name: con.command(line) for name, line in (
            ("sign", "sign pkcs1 00"), ("verify", "verify pss 00 00"), ("oaep_encrypt", "oaep_encrypt 00"),
            ("oaep_decrypt", "oaep_decrypt 00"))}
        yield con, before_key
    finally:
        _KEY_SET.pop(id(con), None)
        con.close()


@pytest.fixture
def console(session):
    return session[0]


@pytest.mark.parametrize("bits", [512, 1024])
def test_signatures_made_by_cryptography_verify_on_the_device(console, bits):
    # first in the module: the public key is enough, and is set at once (a private key's set-up takes
    # seconds of simulation at 1024 bits, and the tests after this one keep the private key they set)
    _set_key(console, bits, private=False)
    private = KEYS[bits][1]
    signature = private.sign(MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    assert _verify(console, "pkcs1", MESSAGE_BYTES, signature) == "yes"
    assert _verify(console, "pkcs1", MESSAGE_BYTES, signature[:-1] + bytes([signature[-1] ^ 0x80])) == "no"
    assert _verify(console, "pkcs1", MESSAGE_BYTES[:-1] + b"\xff", signature) == "no"
    # the other padding's signature is no signature
    assert _verify(console, "pss", MESSAGE_BYTES, signature, "auto") == "no"
    # PSS: by default the salt must be as long as the hash (or the longest there is room for, 30 bytes
    # at 512 bits); salt=<n> asks for another length, salt=auto takes any
    for salt in (LONGEST_SALT[bits], 32, 0) if bits > 512 else (LONGEST_SALT[bits], 16):
        signature = private.sign(MESSAGE_BYTES, _pss(salt), hashes.SHA256())
        strict = "yes" if salt == DEFAULT_SALT[bits] else "no"
        assert [_verify(console, "pss", MESSAGE_BYTES, signature, option) for option in (None, salt, "auto")] == \
            [strict, "yes", "yes"], salt
    # the last one: not with another length, a flipped bit or another message
    assert _verify(console, "pss", MESSAGE_BYTES, signature, salt + 1) == "no"
    assert _verify(console, "pss", MESSAGE_BYTES, signature[:-1] + bytes([signature[-1] ^ 0x80]), salt) == "no"
    assert _verify(console, "pss", MESSAGE_BYTES[:-1] + b"\xff", signature, "auto") == "no"
    # the empty message, typed as `-`
    signature = private.sign(b"", _pss(DEFAULT_SALT[bits]), hashes.SHA256())
    assert _verify(console, "pss", b"", signature) == "yes"


@pytest.mark.parametrize("bits", [512, 1024])
def test_signatures_made_on_the_device_verify_in_cryptography(console, bits):
    _set_key(console, bits)
    public = KEYS[bits][1].public_key()
    pkcs1 = _sign(console, "pkcs1", MESSAGE_BYTES)
    assert len(pkcs1) == bits // 8
    public.verify(pkcs1, MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    pss = _sign(console, "pss", MESSAGE_BYTES)
    public.verify(pss, MESSAGE_BYTES, _pss(DEFAULT_SALT[bits]), hashes.SHA256())
    # PKCS#1 v1.5 is deterministic: `cryptography` makes the same signature, and so does software (at
    # 512 bits only: its simulation is slow)
    assert pkcs1 == KEYS[bits][1].sign(MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    impl = "sw" if bits == 512 else "hw_cpu"
    assert _sign(console, "pkcs1", MESSAGE_BYTES, impl) == pkcs1
    # PSS is not: a second signature of the same message has another salt, and verifies too
    again = _sign(console, "pss", MESSAGE_BYTES, impl)
    assert again != pss
    public.verify(again, MESSAGE_BYTES, _pss(DEFAULT_SALT[bits]), hashes.SHA256())
    # the salt's length as asked; without a salt, PSS is deterministic too
    unsalted = _sign(console, "pss", MESSAGE_BYTES, salt=0)
    public.verify(unsalted, MESSAGE_BYTES, _pss(0), hashes.SHA256())
    # the same bytes with BearSSL's software SHA-256 as with the engine's (the default)
    _use_sha256(console, "sw")
    try:
        assert _sign(console, "pkcs1", MESSAGE_BYTES) == pkcs1
        assert _sign(console, "pss", MESSAGE_BYTES, salt=0) == unsalted
        assert _verify(console, "pkcs1", MESSAGE_BYTES, pkcs1) == "yes"
        public.verify(_sign(console, "pss", MESSAGE_BYTES), MESSAGE_BYTES, _pss(DEFAULT_SALT[bits]), hashes.SHA256())
    finally:
        _use_sha256(console, "hw")
    if bits > 512:
        assert _sign(console, "pss", MESSAGE_BYTES, impl, salt=0) == unsalted
        longest = LONGEST_SALT[bits]
        public.verify(_sign(console, "pss", MESSAGE_BYTES, salt=longest), MESSAGE_BYTES, _pss(longest), hashes.SHA256())
        # the empty message, typed as `-`
        public.verify(_sign(console, "pkcs1", b""), b"", padding.PKCS1v15(), hashes.SHA256())
        public.verify(_sign(console, "pss", b""), b"", _pss(DEFAULT_SALT[bits]), hashes.SHA256())


def test_signatures_made_on_the_device_verify_with_openssl(console, tmp_path):
    _set_key(console, 1024)
    pem = tmp_path / "public.pem"
    pem.write_bytes(KEYS[1024][1].public_key().public_bytes(serialization.Encoding.PEM,
                                                             serialization.PublicFormat.SubjectPublicKeyInfo))
    (tmp_path / "message").write_bytes(MESSAGE_BYTES)
    for scheme, options in (("pkcs1", []), ("pss", ["-sigopt", "rsa_padding_mode:pss",
                                                     "-sigopt", "rsa_pss_saltlen:32"])):
        signature = _sign(console, scheme, MESSAGE_BYTES)
        for name, data in (("good", signature), ("flipped", bytes([signature[0] ^ 0x01]) + signature[1:])):
            (tmp_path / name).write_bytes(data)
            result = subprocess.run(["openssl", "dgst", "-sha256", "-verify", str(pem), *options,
                                     "-signature", str(tmp_path / name), str(tmp_path / "message")],
                                    capture_output=True, text=True)
            assert (result.returncode == 0) == (name == "good"), (scheme, name, result.stdout, result.stderr)
            if name == "good":
                assert "Verified OK" in result.stdout


def test_oaep_both_ways(console):
    _set_key(console, 1024)
    private = KEYS[1024][1]
    # 62 bytes: the most OAEP with SHA-256 carries at 1024 bits; the empty message typed as `-`
    for message, label in ((b"\x00", None), (MESSAGE_BYTES[:62], None), (b"", b"a label"), (b"\x01", b"\x00")):
        ciphertext = private.public_key().encrypt(message, _oaep(label))
        decrypted, cycles = _decrypt(console, ciphertext, label)
        assert decrypted == message and cycles > 0
        command = (f"oaep_encrypt {hex_argument(message)}" + (" sw" if label is None else f" label={label.hex()}"))
        [line] = CIPHERTEXT.parse_all(console.command(command))
        assert len(line["ciphertext"]) == 128
        assert private.decrypt(line["ciphertext"], _oaep(label)) == message
        assert _decrypt(console, line["ciphertext"], label)[0] == message
    # BearSSL's software SHA-256 decrypts (and encrypts) as the engine does
    _use_sha256(console, "sw")
    try:
        assert _decrypt(console, ciphertext, label)[0] == message
        [line] = CIPHERTEXT.parse_all(console.command(f"oaep_encrypt {message.hex()} label={label.hex()}"))
        assert private.decrypt(line["ciphertext"], _oaep(label)) == message
    finally:
        _use_sha256(console, "hw")
    [again] = CIPHERTEXT.parse_all(console.command(f"oaep_encrypt {message.hex()} label=00"))
    assert again["ciphertext"] != line["ciphertext"]           # a fresh seed each time
    assert private.decrypt(again["ciphertext"], _oaep(b"\x00")) == message


def test_every_oaep_failure_gives_the_same_line_in_the_same_cycles_and_the_key_stays(console):
    _set_key(console, 1024)
    public = KEYS[1024][1].public_key()
    n, e = KEYS[1024][0]["n"], KEYS[1024][0]["e"]

    def raw(block):
        return pow(int.from_bytes(block, "big"), e, n).to_bytes(128, "big")

    good = public.encrypt(MESSAGE_BYTES[:16], OAEP)
    message, cycles = _decrypt(console, good)
    assert message == MESSAGE_BYTES[:16]
    failures = {
        "pkcs1_v1.5": public.encrypt(MESSAGE_BYTES[:16], padding.PKCS1v15()),
        "garbage": bytes(range(128)),
        "all_ones": b"\xff" * 128,                  # not below n
        "n-1": (n - 1).to_bytes(128, "big"),
        "flipped_bit": good[:-1] + bytes([good[-1] ^ 1]),
        "other_label": public.encrypt(MESSAGE_BYTES[:16], _oaep(b"a label")),
        **{defect: raw(_oaep_block(128, MESSAGE_BYTES[16:32], defect=defect))
           for defect in ("y", "separator", "no_separator")},
    }
    # the reference encoder is right: without its defect, its block decrypts
    assert _decrypt(console, raw(_oaep_block(128, MESSAGE_BYTES[16:32]))) == (MESSAGE_BYTES[16:32], cycles)
    answers = {name: _decrypt(console, c) for name, c in failures.items()}
    assert answers == {name: (None, cycles) for name in failures}
    # with a label: a ciphertext of another label, or of none, fails in the cycles of one that decrypts
    labelled = public.encrypt(b"", _oaep(b"a label"))
    message, cycles = _decrypt(console, labelled, b"a label")
    assert message == b""
    assert [_decrypt(console, c, label) for c, label in ((labelled, b"a labe!"), (good, b"a label"))] == \
        [(None, cycles)] * 2
    # on the CPU-driven implementation too
    decrypts, fails = (console.command(f"oaep_decrypt {c.hex()} hw_cpu") for c in (good, failures["separator"]))
    [decrypted], [failed] = MESSAGE.parse_all(decrypts), DECRYPTION_FAILED.parse_all(fails)
    assert decrypted["cycles"] == failed["cycles"] > cycles


def test_refused_input_gives_one_error_line_and_the_console_carries_on(session):
    console, before_key = session
    assert {name: _error(out) for name, out in before_key.items()} == {
        "sign": Error.NO_KEY, "verify": Error.NO_KEY, "oaep_encrypt": Error.NO_KEY, "oaep_decrypt": Error.NO_KEY}
    _set_key(console, 512, private=False)
    assert _error(console.command("sign pkcs1 00")) == Error.NO_KEY               # no private part
    assert _error(console.command(f"oaep_decrypt {'00' * 64}")) == Error.NO_KEY
    _set_key(console, 1024)
    signature = KEYS[1024][1].sign(MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    refused = {
        "sign pkcs1 0g": Error.BAD_HEX,
        "sign pkcs1 abc": Error.BAD_HEX,                                  # odd number of digits
        "sign pkcs1 0x00": Error.BAD_HEX,
        "sign rsa 00": Error.UNKNOWN_PADDING,
        "sign pss 00 mbedtls": Error.UNKNOWN_IMPL,                          # a peer: not ours
        "sign pss 00 fast": Error.UNKNOWN_IMPL,
        "sign pss": Error.USAGE,
        "sign pss 00 hw_seq extra": Error.USAGE,
        "verify pkcs1 00": Error.USAGE,
        f"verify pkcs1 {MESSAGE_BYTES.hex()} {signature[1:].hex()}": Error.BAD_LENGTH,
        f"verify pkcs1 {MESSAGE_BYTES.hex()} {(signature + b'0').hex()}": Error.BAD_LENGTH,
        f"verify pkcs1 {MESSAGE_BYTES.hex()} {signature.hex()}z": Error.BAD_HEX,
        "oaep_encrypt " + "00" * 63: Error.MESSAGE_TOO_LONG,
        "oaep_encrypt zz": Error.BAD_HEX,
        "oaep_decrypt " + "00" * 127: Error.BAD_LENGTH,
        "oaep_decrypt " + "00" * 129: Error.BAD_LENGTH,
        "oaep_decrypt nothex": Error.BAD_HEX,
        "oaep_decrypt": Error.USAGE,
        # salt lengths: a byte count the key has room for (94 bytes at 1024 bits); auto when verifying
        "sign pss 00 salt=95": Error.BAD_SALT_LENGTH,
        "sign pss 00 hw_seq salt=-1": Error.BAD_SALT_LENGTH,
        "sign pss 00 salt=auto": Error.BAD_SALT_LENGTH,
        "sign pss 00 salt=": Error.BAD_SALT_LENGTH,
        f"verify pss 00 {signature.hex()} salt=95": Error.BAD_SALT_LENGTH,
        f"verify pss 00 {signature.hex()} salt=1x": Error.BAD_SALT_LENGTH,
        "sign pkcs1 00 salt=20": Error.USAGE,                               # PSS only
        "sign pss 00 salt=20 salt=20": Error.USAGE,
        "sign pss 00 label=00": Error.USAGE,
        "oaep_encrypt 00 label=0": Error.BAD_HEX,
        "oaep_encrypt 00 salt=3": Error.USAGE,
        "oaep_encrypt 00 sw hw_seq": Error.USAGE,
        f"oaep_decrypt {'00' * 128} label=zz": Error.BAD_HEX,
        f"oaep_decrypt {'00' * 128} label=00 label=00": Error.USAGE,
        "oaep_decrypt -": Error.BAD_LENGTH,
        "sha256 fast": Error.UNKNOWN_IMPL,
        "sha256 hw sw": Error.USAGE,
    }
    for line, expected in refused.items():
        assert _error(console.command(line)) == expected, line
    assert SHA256_USERS.parse_all(console.command("sha256")) == [{"impl": "hw"}]          # the default, kept
    assert _verify(console, "pkcs1", MESSAGE_BYTES, signature) == "yes"      # the key is still there
    KEYS[1024][1].public_key().verify(_sign(console, "pkcs1", MESSAGE_BYTES), MESSAGE_BYTES, padding.PKCS1v15(),
                                      hashes.SHA256())


def test_without_bearssl_the_commands_say_so_and_the_rest_works(sim_soc, tmp_path):
    """The firmware as built when BearSSL's fetch failed, run on the same model from a directory of
    its own (the model reads its memories' .init files from where it runs)."""
    from sim import build as sim_build
    from link.console import SimConsole
    shutil.copytree(sim_soc.build_dir / "software", tmp_path / "software", ignore=shutil.ignore_patterns("firmware"))
    image = firmware.build(tmp_path, extra_headers=firmware.soc_headers(),
                           peers={name: None for name in peer_libs.PEERS})
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for init in sim_soc.gateware_dir.glob("*.init"):
        shutil.copy(init, run_dir)
    firmware.write_init(image, sim_build.main_ram_init(run_dir), config.MAIN_RAM_SIZE)
    con = SimConsole(sim_soc.model, run_dir, timeout=600)
    try:
        con.wait_prompt()
        _set_key(con, 512)
        for line in ("sign pkcs1 00", f"verify pss 00 {'00' * 64}", "oaep_encrypt 00", f"oaep_decrypt {'00' * 64}"):
            assert _error(con.command(line)) == Error.NO_PADDING_LIBRARY, line
        n, e = KEYS[512][0]["n"], KEYS[512][0]["e"]
        [result] = COMPARISON.parse_all(con.command("encrypt 2"))
        assert result["sw"] == result["hw"] == pow(2, e, n)
    finally:
        _KEY_SET.pop(id(con), None)
        con.close()
