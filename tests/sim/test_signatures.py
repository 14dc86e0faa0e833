"""RSA with padding in the simulated SoC (`sign`, `verify`, `oaep_encrypt`, `oaep_decrypt`): signatures
and ciphertexts made on the device are checked by `cryptography` and by Debian's openssl, and those
made there are checked on the device; refused input gives one error line each and the console carries
on with its key."""

import shutil
import subprocess

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from soc import config, firmware, peer_libs
from soc import keys as soc_keys
from soc.console_protocol import (CIPHERTEXT, COMPARISON, KEY_SET, MESSAGE, SIGNATURE, VALID, Error, error_code,
                                  error_lines)

#: One worker, one boot of the SoC for the module.
pytestmark = pytest.mark.xdist_group("signatures")

MESSAGE_BYTES = bytes(range(64))


def _pss(salt_length=padding.PSS.AUTO):
    return padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=salt_length)


OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


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


def _sign(console, scheme, message, impl=""):
    out = console.command(f"sign {scheme} {message.hex()} {impl}".rstrip())
    [line] = SIGNATURE.parse_all(out)
    assert line["cycles"] > 0
    return line["signature"]


def _verify(console, scheme, message, signature):
    [line] = VALID.parse_all(console.command(f"verify {scheme} {message.hex()} {signature.hex()}"))
    assert line["cycles"] > 0
    return line["valid"]


@pytest.fixture(scope="module")
def session(sim_soc):
    """A booted console, and the output of the commands typed before any key was set."""
    from sim.console import SimConsole
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
def test_signatures_made_on_the_device_verify_in_cryptography(console, bits):
    _set_key(console, bits)
    public = KEYS[bits][1].public_key()
    pkcs1 = _sign(console, "pkcs1", MESSAGE_BYTES)
    assert len(pkcs1) == bits // 8
    public.verify(pkcs1, MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    pss = _sign(console, "pss", MESSAGE_BYTES)
    public.verify(pss, MESSAGE_BYTES, _pss(), hashes.SHA256())
    # PKCS#1 v1.5 is deterministic: `cryptography` makes the same signature, and so does software (at
    # 512 bits only: its simulation is slow)
    assert pkcs1 == KEYS[bits][1].sign(MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    impl = "sw" if bits == 512 else "hw_cpu"
    assert _sign(console, "pkcs1", MESSAGE_BYTES, impl) == pkcs1
    # PSS is not: a second signature of the same message has another salt, and verifies too
    again = _sign(console, "pss", MESSAGE_BYTES, impl)
    assert again != pss
    public.verify(again, MESSAGE_BYTES, _pss(), hashes.SHA256())


def test_signatures_made_on_the_device_verify_with_openssl(console, tmp_path):
    _set_key(console, 1024)
    pem = tmp_path / "public.pem"
    pem.write_bytes(KEYS[1024][1].public_key().public_bytes(serialization.Encoding.PEM,
                                                             serialization.PublicFormat.SubjectPublicKeyInfo))
    (tmp_path / "message").write_bytes(MESSAGE_BYTES)
    for scheme, options in (("pkcs1", []), ("pss", ["-sigopt", "rsa_padding_mode:pss",
                                                     "-sigopt", "rsa_pss_saltlen:auto"])):
        signature = _sign(console, scheme, MESSAGE_BYTES)
        for name, data in (("good", signature), ("flipped", bytes([signature[0] ^ 0x01]) + signature[1:])):
            (tmp_path / name).write_bytes(data)
            result = subprocess.run(["openssl", "dgst", "-sha256", "-verify", str(pem), *options,
                                     "-signature", str(tmp_path / name), str(tmp_path / "message")],
                                    capture_output=True, text=True)
            assert (result.returncode == 0) == (name == "good"), (scheme, name, result.stdout, result.stderr)
            if name == "good":
                assert "Verified OK" in result.stdout


@pytest.mark.parametrize("bits", [512, 1024])
def test_signatures_made_by_cryptography_verify_on_the_device(console, bits):
    _set_key(console, bits, private=False)         # the public key is enough
    private = KEYS[bits][1]
    for scheme, pad in (("pkcs1", padding.PKCS1v15()), ("pss", _pss(padding.PSS.MAX_LENGTH)),
                        ("pss", _pss(padding.PSS.DIGEST_LENGTH if bits > 512 else 16))):
        signature = private.sign(MESSAGE_BYTES, pad, hashes.SHA256())
        assert _verify(console, scheme, MESSAGE_BYTES, signature) == "yes"
        flipped = signature[:-1] + bytes([signature[-1] ^ 0x80])
        assert _verify(console, scheme, MESSAGE_BYTES, flipped) == "no"
        assert _verify(console, scheme, MESSAGE_BYTES[:-1] + b"\xff", signature) == "no"
    # the other padding's signature is no signature
    signature = private.sign(MESSAGE_BYTES, padding.PKCS1v15(), hashes.SHA256())
    assert _verify(console, "pss", MESSAGE_BYTES, signature) == "no"


def test_oaep_both_ways(console):
    _set_key(console, 1024)
    private = KEYS[1024][1]
    for message in (b"\x00", MESSAGE_BYTES[:62]):     # 62 bytes: the most OAEP with SHA-256 carries at 1024 bits
        ciphertext = private.public_key().encrypt(message, OAEP)
        [decrypted] = MESSAGE.parse_all(console.command(f"oaep_decrypt {ciphertext.hex()}"))
        assert decrypted["message"] == message and decrypted["cycles"] > 0
        [line] = CIPHERTEXT.parse_all(console.command(f"oaep_encrypt {message.hex()} sw"))
        assert len(line["ciphertext"]) == 128
        assert private.decrypt(line["ciphertext"], OAEP) == message
    [again] = CIPHERTEXT.parse_all(console.command(f"oaep_encrypt {message.hex()}"))
    assert again["ciphertext"] != line["ciphertext"]           # a fresh seed each time
    assert private.decrypt(again["ciphertext"], OAEP) == message


def test_every_oaep_failure_gives_the_same_line_and_the_key_stays(console):
    _set_key(console, 1024)
    private = KEYS[1024][1]
    n = KEYS[1024][0]["n"]
    good = private.public_key().encrypt(MESSAGE_BYTES[:16], OAEP)
    # a PKCS#1 v1.5 encryption of the same message, garbage, all ones (not below n), a flipped bit
    failures = [private.public_key().encrypt(MESSAGE_BYTES[:16], padding.PKCS1v15()), bytes(range(128)),
                b"\xff" * 128, (n - 1).to_bytes(128, "big"), good[:-1] + bytes([good[-1] ^ 1])]
    lines = [console.command(f"oaep_decrypt {c.hex()}") for c in failures]
    assert all(_error(out) == Error.DECRYPTION_FAILED for out in lines), lines
    assert len(set(lines)) == 1
    assert [line["message"] for line in MESSAGE.parse_all(console.command(f"oaep_decrypt {good.hex()}"))] == \
        [MESSAGE_BYTES[:16]]


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
    }
    for line, expected in refused.items():
        assert _error(console.command(line)) == expected, line
    assert _verify(console, "pkcs1", MESSAGE_BYTES, signature) == "yes"      # the key is still there
    KEYS[1024][1].public_key().verify(_sign(console, "pkcs1", MESSAGE_BYTES), MESSAGE_BYTES, padding.PKCS1v15(),
                                      hashes.SHA256())


def test_without_bearssl_the_commands_say_so_and_the_rest_works(sim_soc, tmp_path):
    """The firmware as built when BearSSL's fetch failed, run on the same model from a directory of
    its own (the model reads its memories' .init files from where it runs)."""
    from sim import build as sim_build
    from sim.console import SimConsole
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
