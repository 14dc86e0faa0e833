"""The device as a TLS 1.2 server (firmware/tls/tls_*.c, jobs/tls.py), met by clients we did not write: Debian's
`openssl s_client` and Python's `ssl`, each verifying the device's chain against a test CA, on both suites
with the bench's RSA-2048 key on hw_seq, and with its RSA-1024 key at a lowered security level; and by
hostile ones (garbage, a ClientHello the server cannot answer, a client that vanishes mid-handshake, a
truncated record then silence), after each of which the console must be back and the next connection
must work.

One simulated SoC serves every test, behind one bridge on a loopback port (a module fixture): a boot and
the key's set-up cost more than a handshake."""

import os
import shlex
import shutil
import socket
import ssl
import subprocess
import threading
import time

import pytest

from jobs import tls
from link.console import SimConsole
from soc import console_protocol as protocol
from soc import keys

pytestmark = pytest.mark.xdist_group("tls")

RSA = "TLS_RSA_WITH_AES_128_GCM_SHA256"
ECDHE = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
#: Seconds a test waits for the device's report of a connection (a simulated ECDHE handshake: ~10 s).
REPORT_WAIT = 180


class Device:
    def __init__(self, console, bridge, server, ca, key):
        self.console, self.bridge, self.server, self.ca, self.key = console, bridge, server, ca, key
        self.address = server.getsockname()[:2]
        self.error = None

    def connect(self):
        return socket.create_connection(self.address, timeout=REPORT_WAIT)

    def report(self, count_before):
        """The bridge's record of the connection after the first `count_before`, once the console is back."""
        deadline = time.monotonic() + REPORT_WAIT
        while len(self.bridge.connections) <= count_before:
            assert self.error is None, f"the bridge stopped: {self.error}"
            assert time.monotonic() < deadline, "the device did not end the connection"
            time.sleep(0.05)
        return self.bridge.connections[count_before]


@pytest.fixture(scope="module")
def device(sim_soc, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("tls")
    console = SimConsole(sim_soc.model, sim_soc.gateware_dir, timeout=1800)
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()
    try:
        console.wait_prompt()
        tls.use_bench_key(console, 2048)
        key = next(k for k in keys.bench_keys() if k["bits"] == 2048)
        tls.prepare(console, key, out_dir)
        bridge = tls.Bridge(console, impl="hw_seq", timeout_ms=tls.SIM_TIMEOUT_MS)
        dev = Device(console, bridge, server, out_dir / "ca.pem", key)

        def serve():
            try:
                bridge.serve(server, stop)
            except Exception as error:          # reported by Device.report
                dev.error = error

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        yield dev
        stop.set()
        thread.join(timeout=30)
    finally:
        server.close()
        console.close()


def check_handshake(line, suite, key_bits=2048, impl="hw_seq"):
    """The device's answer line: the suite asked for, its parts adding up to its cycles, RSA done on
    `impl`, ECDHE exactly when the suite has it."""
    record = protocol.TLS_HANDSHAKE.parse(line.strip())
    assert record is not None, line
    assert (record["suite"], record["impl"], record["bits"]) == (suite, impl, key_bits)
    assert sum(record[part] for part in protocol.TLS_PARTS) == record["cycles"]
    assert record["rsa"] > 0 and record["hash"] > 0 and record["prf"] > 0 and record["record"] > 0
    if suite == ECDHE:
        assert record["curve"] in protocol.TLS_CURVES and record["ecdhe"] > 0
    else:
        assert record["curve"] == "none" and record["ecdhe"] == 0
    return record


def check_served(connection, line):
    """The connection ended cleanly, and the device's console shows the line the client got."""
    assert connection.done["reason"] == "closed" and connection.done["error"] == 0, connection.done
    assert connection.done["handshake"] == 1 and connection.done["answered"] == 1
    assert connection.handshake == protocol.TLS_HANDSHAKE.parse(line.strip())


def python_handshake(device, suite=RSA, **kwargs):
    before = len(device.bridge.connections)
    line, cipher, version = tls.python_client(device.connect(), device.ca, suite=suite, **kwargs)
    connection = device.report(before)
    return line, cipher, version, connection


def use_sha256(device, name):
    """`sha256 <name>` typed between connections (the bridge touches the console only during one)."""
    assert protocol.SHA256_USERS.parse_all(device.console.command(f"sha256 {name}")) == [{"impl": name}]


#: The SHA-256 the server hashes with (transcript, generator, PRF): the RSA suite's connection here takes
#: BearSSL's software, every other connection of the module the engine (the default).
@pytest.mark.parametrize("suite, sha256", [(RSA, "sw"), (ECDHE, "hw")])
def test_python_ssl_verifies_the_device_and_reads_its_answer(device, suite, sha256):
    use_sha256(device, sha256)
    try:
        line, cipher, version, connection = python_handshake(device, suite)
    finally:
        use_sha256(device, "hw")
    assert (cipher, version) == (tls.OPENSSL_CIPHERS[suite], "TLSv1.2")
    record = check_handshake(line, suite)
    check_served(connection, line)
    # the handshake's cycles: a few million, against 100 M a second
    assert 1_000_000 < record["cycles"] < 100_000_000


@pytest.mark.parametrize("suite", [RSA, ECDHE])
def test_openssl_s_client_verifies_the_device_and_reads_its_answer(device, suite):
    openssl = shutil.which("openssl")
    assert openssl, "openssl is installed by tools/setup.sh"
    host, port = device.address
    before = len(device.bridge.connections)
    result = subprocess.run([openssl, "s_client", "-connect", f"{host}:{port}", "-CAfile", str(device.ca),
                             "-verify_return_error", "-verify_hostname", tls.HOSTNAME, "-servername", tls.HOSTNAME,
                             "-tls1_2", "-cipher", tls.OPENSSL_CIPHERS[suite], "-ign_eof"],
                            input=b"hello from s_client\n", capture_output=True, timeout=REPORT_WAIT)
    out = result.stdout.decode(errors="replace")
    assert result.returncode == 0, out[-2000:] + result.stderr.decode(errors="replace")[-2000:]
    assert "Verify return code: 0 (ok)" in out and "Verified peername: localhost" in out
    assert f"Cipher is {tls.OPENSSL_CIPHERS[suite]}" in out
    line = next(text for text in out.splitlines() if text.startswith("handshake "))
    check_handshake(line, suite)
    check_served(device.report(before), line)


def test_the_command_line_is_not_echoed_and_a_bad_mix_is_refused(device):
    """`tls` takes secrets on its line: the console echoes its name, then a mask for every character."""
    console, mix = device.console, os.urandom(15).hex() + "g"
    start = len(console.output)
    output = console.command(f"tls hw_seq 10 {protocol.MIX_OPTION}={mix}")
    assert [protocol.error_code(line) for line in output.splitlines()] == [protocol.Error.BAD_HEX]
    echoed = console.output[start:]
    assert echoed.startswith("tls " + protocol.ECHO_MASK * len(f"hw_seq 10 mix={mix}") + "\n")
    assert mix not in echoed


def test_a_board_s_handshake_line_has_no_cycles_and_the_bridge_reads_it():
    line = f"handshake suite={RSA} curve=none impl=hw_seq bits=2048"
    assert protocol.TLS_HANDSHAKE.parse(line) is None
    record = protocol.TLS_HANDSHAKE_BRIEF.parse(line)
    done = {"reason": "closed", "error": 0, "bytes_in": 523, "bytes_out": 1051}
    summary = tls.Connection({}, record, done, False, 1.0).summary
    assert summary.startswith(f"{RSA} none hw_seq RSA-2048; reason=closed") and "cycles" not in summary
    assert protocol.TLS_CONSTANT_TIME_IMPLS == ("hw_seq", "sw", "hw_cpu")


def test_a_client_not_speaking_tls_is_closed_on(device):
    before = len(device.bridge.connections)
    with device.connect() as sock:
        sock.sendall(b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
        assert sock.recv(4096) == b""           # closed on, nothing sent: not a TLS record
    connection = device.report(before)
    assert connection.done["reason"] == "failed" and connection.done["error"] != 0
    assert connection.done["handshake"] == 0 and connection.handshake is None
    check_handshake(python_handshake(device)[0], RSA)


#: BearSSL's error code for a fatal alert it sent (BR_ERR_SEND_FATAL_ALERT), plus the alert's: handshake_failure.
SENT_HANDSHAKE_FAILURE = 512 + 40


@pytest.mark.parametrize("offer", ["suite", "version"])
def test_a_hello_the_server_cannot_answer_gets_an_alert(device, offer):
    """A ClientHello offering only a suite the server lacks (ChaCha20-Poly1305), or only TLS 1.3 (whose
    suites BearSSL 0.6 does not know either): a handshake_failure alert, one plaintext record."""
    before = len(device.bridge.connections)
    context = ssl.create_default_context(cafile=str(device.ca))
    if offer == "suite":
        context.maximum_version = ssl.TLSVersion.TLSv1_2
        context.set_ciphers("ECDHE-RSA-CHACHA20-POLY1305")
    else:
        context.minimum_version = ssl.TLSVersion.TLSv1_3
    with pytest.raises(ssl.SSLError) as refused:
        with context.wrap_socket(device.connect(), server_hostname=tls.HOSTNAME):
            pass
    assert "HANDSHAKE_FAILURE" in str(refused.value), refused.value       # the client read the alert
    connection = device.report(before)
    assert connection.done["reason"] == "failed" and connection.done["error"] == SENT_HANDSHAKE_FAILURE
    assert connection.done["handshake"] == 0 and connection.done["bytes_out"] == 7
    check_handshake(python_handshake(device)[0], RSA)


def client_hello():
    """The first flight of Python's TLS client, made without a server (a memory BIO)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    client = ssl.create_default_context().wrap_bio(incoming, outgoing, server_hostname=tls.HOSTNAME)
    with pytest.raises(ssl.SSLWantReadError):
        client.do_handshake()
    return outgoing.read()


def test_a_client_vanishing_mid_handshake_ends_the_connection(device):
    hello = client_hello()
    before = len(device.bridge.connections)
    with device.connect() as sock:
        sock.sendall(hello[:60])                 # a part of its ClientHello, then gone
    connection = device.report(before)
    assert connection.client_closed
    assert connection.done["reason"] == "aborted" and connection.done["handshake"] == 0
    assert connection.done["bytes_in"] == 60 and connection.done["bytes_out"] == 0
    check_handshake(python_handshake(device)[0], RSA)


def test_a_truncated_record_then_silence_meets_the_idle_limit(device):
    """A record header announcing 256 bytes, 10 of them, then nothing: the device gives up after its idle
    limit (here 30 device-ms, 3 M cycles) and closes; the client sees the connection end."""
    before = len(device.bridge.connections)
    device.bridge.timeout_ms = 30
    try:
        started = time.monotonic()
        with device.connect() as sock:
            sock.sendall(bytes((22, 3, 1, 1, 0)) + bytes(10))
            assert sock.recv(4096) == b""
        connection = device.report(before)
    finally:
        device.bridge.timeout_ms = tls.SIM_TIMEOUT_MS
    assert connection.start["timeout_ms"] == 30
    assert connection.done["reason"] == "timeout" and not connection.client_closed
    assert connection.done["bytes_in"] == 15 and connection.done["handshake"] == 0
    assert time.monotonic() - started < 60
    check_handshake(python_handshake(device)[0], RSA)


def test_a_1024_bit_key_is_refused_at_the_default_security_level_and_verified_below_it(device):
    """RSA-1024: Python's default context asks for OpenSSL's security level 2 (server keys of 2048 bits
    or more) and refuses the device's certificate; with the level lowered to 1 (tls.security_level), Python's
    `ssl` verifies it on the RSA key exchange and the `openssl s_client` command that `python -m sim tls`
    prints for such a key verifies it on ECDHE_RSA.  Runs last: the module's 2048-bit key and certificate
    are put back afterwards."""
    key = next(k for k in keys.bench_keys() if k["bits"] == 1024)
    out_dir = device.ca.parent
    try:
        tls.use_bench_key(device.console, 1024)
        tls.prepare(device.console, key, out_dir)
        before = len(device.bridge.connections)
        with pytest.raises(ssl.SSLCertVerificationError) as refused:
            tls.python_client(device.connect(), device.ca, suite=RSA)
        assert "too weak" in str(refused.value) or "too small" in str(refused.value), refused.value
        assert device.report(before).done["handshake"] == 0

        line, cipher, version, connection = python_handshake(device, RSA, key_bits=1024)
        assert (cipher, version) == (tls.OPENSSL_CIPHERS[RSA], "TLSv1.2")
        check_handshake(line, RSA, key_bits=1024)
        check_served(connection, line)

        before = len(device.bridge.connections)
        command = shlex.split(tls.commands(device.address, out_dir, key_bits=1024)["openssl"])
        assert "-cipher" in command                     # the printed command lowers the level
        result = subprocess.run(command, input=b"hello from s_client\n", capture_output=True, timeout=REPORT_WAIT)
        out = result.stdout.decode(errors="replace")
        assert result.returncode == 0, out[-2000:] + result.stderr.decode(errors="replace")[-2000:]
        assert "Verify return code: 0 (ok)" in out and "Server public key is 1024 bit" in out
        # OpenSSL's DEFAULT list puts ECDHE first and BearSSL's server follows the client's order: the
        # printed command covers the other suite at 1024 bits
        assert f"Cipher is {tls.OPENSSL_CIPHERS[ECDHE]}" in out
        line = next(text for text in out.splitlines() if text.startswith("handshake "))
        check_handshake(line, ECDHE, key_bits=1024)
        check_served(device.report(before), line)

        # BearSSL's own RSA signs the ECDHE parameters, its result checked with e before it leaves
        device.bridge.impl = "bearssl"
        line, cipher, version, connection = python_handshake(device, ECDHE, key_bits=1024)
        check_handshake(line, ECDHE, key_bits=1024, impl="bearssl")
        check_served(connection, line)
    finally:
        device.bridge.impl = "hw_seq"
        tls.use_bench_key(device.console, 2048)
        tls.prepare(device.console, device.key, out_dir)
