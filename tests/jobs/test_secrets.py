"""The secret scan (jobs/secrets.py, `python -m sim secrets`): on the host, that it finds a secret in each
form memory can hold it and nowhere it is excluded; in the fault model, that no command class leaves key
material behind outside the key store, and that the peripheral's memories are zero after each."""

import random

import pytest

from jobs import secrets

#: One worker, with the other users of the fault model.
pytestmark = pytest.mark.xdist_group("faults")


def test_a_secret_is_found_in_every_form_and_not_where_excluded():
    rng = random.Random(7)
    key = secrets.fresh_key(512, rng)
    memory = bytearray(rng.randbytes(64 * 1024))
    planted = {}
    for i, (form, data) in enumerate(secrets.forms(key["q"]).items()):
        offset = 1000 + 4096 * i
        memory[offset:offset + 40] = data[8:48]          # a stretch, not the whole number
        planted[offset] = form
    found = secrets.scan(bytes(memory), secrets.key_secrets(key))
    assert sorted((offset, form) for offset, secret, form in found if secret == "q") == sorted(planted.items())
    assert all(secret == "q" for _, secret, _ in found)
    first = min(planted)
    assert first not in [offset for offset, _, _ in
                         secrets.scan(bytes(memory), secrets.key_secrets(key), [(first - 8, first + 64)])]


def test_the_engine_words_checked_are_its_message_and_state():
    """The scan reads every message and state register of the SHA-256 engine (and nothing else of it),
    allows zero in both and the initial hash value in the state only; a renamed register stops it."""
    from gateware.sha256.interface import INITIAL_HASH
    scope = "TOP.sim.sha256_engine"
    sites = [(i, scope, f"message{i}", 32, 1) for i in range(16)] + \
            [(16 + i, scope, f"state{i}", 32, 1) for i in range(8)] + \
            [(24, scope, "window0", 32, 1), (25, "TOP.sim.montmul", "state0", 32, 1)]
    words = secrets.engine_words(sites, scope)
    assert len(words) == 24 and {index for _, index, _ in words} == set(range(24))
    assert dict((name, allowed) for name, _, allowed in words)["state3"] == {0, INITIAL_HASH[3]}
    assert dict((name, allowed) for name, _, allowed in words)["message3"] == {0}
    with pytest.raises(Exception, match="renamed"):
        secrets.engine_words(sites[1:], scope)


def test_the_crt_halves_are_those_of_the_key():
    key = secrets.fresh_key(512, random.Random(3))
    c = 0x1234567
    halves = secrets.crt_halves(key, c)
    m = pow(c, key["d"], key["n"])
    assert (m % key["p"], m % key["q"]) == (halves["m1"], halves["m2"])


# ---- in the fault model ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def scanner():
    from sim import build as sim_build
    build = sim_build.build(faults=True, log=lambda msg: None)
    scanner = secrets.Scanner(build, secrets.fresh_key(1024, random.Random("test-secrets")), timeout=1800)
    yield scanner
    scanner.close()


def test_the_scan_sees_the_key_where_it_belongs(scanner):
    """The dump is the RAM the firmware uses: the key just set is found, in limbs, inside the key store
    (which the scan leaves out), and the key store's symbols are where the firmware has them."""
    from sim import fault_model
    data, width = scanner.session.hook.dump(fault_model.SOC_SCOPE, "main_ram")
    assert width == 4 and len(data) % 4 == 0
    inside = {secret for offset, secret, form in secrets.scan(data, secrets.key_secrets(scanner.key))
              if form == "limbs" and any(start <= offset < end for start, end in scanner.excluded["main_ram"])}
    assert inside >= {"d", "p", "q"}


def test_no_command_leaves_key_material_behind(scanner):
    """Each command class on the key (a TLS connection among them), then key generation: nothing of the
    key, of the CRT halves, of the connection's master secret or of the new key outside the key store,
    every word of the peripheral zero, the SHA-256 engine as its wipe leaves it."""
    rng = random.Random("test-secrets-commands")
    for command in secrets.COMMANDS:
        line, handled = secrets.command_and_secrets(command, scanner.key, rng)
        findings = scanner.after(command, line, handled)
        assert findings == [], "\n".join(map(str, findings[:10]))
