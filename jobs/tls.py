"""The device as a TLS 1.2 server (firmware/tls/tls_*.c, docs/tls.md): its key and certificate chain, and a
bridge from a TCP port on this machine to the raw TLS stream the firmware's `tls` command puts on its
UART, one connection after another.

    python -m sim tls [--listen 127.0.0.1:4433] [--impl hw_seq] [--size 2048] [--port DEVICE]

One connection on the console:

    host: tls <impl> <timeout-ms> mix=<hex>\\n            (typed; echoed `tls ***...`: its arguments masked)
    device: tls start impl=... bits=... timeout_ms=...\\n   (from here the UART carries TLS records)
    client <-> device: the TLS records, untouched both ways
    device: handshake ...\\n tls done reason=...\\n         (text where the next record header would be; the
                                                           handshake line without cycles on a board)
    host: TLS_RESUME_TOKEN                                 (the device drops every byte before it)
    device: rsa>                                           (the console is back)

The bridge tells the device's records from the text that ends them by the records' own headers (a
content type of 20 to 23, then a 16-bit length); it stops passing the client's bytes once that text
starts. A client that goes away mid-connection gets the token at once (the device ends the connection
and answers as above); one that stalls meets the device's idle limit (`timeout_ms`).

The certificates: a test CA made once (build/tls/ca.pem, its key ca.key), and the server's certificate for
the device's public key (build/tls/server.pem), made with the `cryptography` package, for the names
`localhost` and 127.0.0.1.
"""

import datetime
import ipaddress
import os
import selectors
import socket
import ssl
import time
from dataclasses import dataclass
from pathlib import Path

from common.errors import ProjectError
from common.paths import BUILD_DIR, display_path
from jobs import options, registry
from link.console import CommandRefused, ConsoleError, UnexpectedAnswer
from soc import config
from soc import console_protocol as protocol

OUT_DIR = BUILD_DIR / "tls"
HOSTNAME = "localhost"
#: The server's suites by their OpenSSL names (what `openssl s_client -cipher` and Python's
#: `SSLContext.set_ciphers` take).
OPENSSL_CIPHERS = {
    "TLS_RSA_WITH_AES_128_GCM_SHA256": "AES128-GCM-SHA256",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256": "ECDHE-RSA-AES128-GCM-SHA256",
}
#: The curves by OpenSSL's names (`SSLContext.set_ecdh_curve`, `openssl s_client -curves`).
OPENSSL_CURVES = {"x25519": "X25519", "secp256r1": "prime256v1"}
#: What clients send as their request: one line.
REQUEST = b"GET /handshake\n"
#: The device's idle limit in the simulation, in device milliseconds: 100 M cycles, about a minute of
#: wall-clock time at the simulation's speed, time enough for a person typing into `openssl s_client`.
SIM_TIMEOUT_MS = 1000
#: Record content types (RFC 5246, 6.2.1): change_cipher_spec, alert, handshake, application_data.
RECORD_TYPES = (20, 21, 22, 23)
CHAIN_PIECE = 1536      # DER bytes per `cert add`: 3,072 hex digits, within the console's line


def security_level(key_bits):
    """The OpenSSL security level a client needs to accept the device's RSA key of `key_bits` bits.
    Python's default contexts (and so `ssl` here) work at level 2, which asks for 112-bit security: RSA
    keys of 2048 bits or more.  Level 1 (80-bit security) takes 1024 bits: this project's 1024-bit keys
    are for comparing cycles, not for protecting anything, so its clients lower the level for them and
    say so (`python_client`, `commands`)."""
    return 2 if key_bits >= 2048 else 1 if key_bits >= 1024 else 0


def cipher_string(key_bits, ciphers="DEFAULT"):
    """`ciphers` for OpenSSL (`-cipher`, `SSLContext.set_ciphers`), with the security level lowered where
    a `key_bits` key needs it."""
    level = security_level(key_bits)
    return ciphers if level >= 2 else f"{ciphers}:@SECLEVEL={level}"


# ---- certificates ----

def _name(common_name):
    from cryptography import x509
    from cryptography.x509.oid import NameOID
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def test_ca(out_dir=OUT_DIR):
    """(key, certificate) of the test CA, made once (ECDSA P-256) and kept in out_dir: ca.key, ca.pem."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    out_dir = Path(out_dir)
    key_path, cert_path = out_dir / "ca.key", out_dir / "ca.pem"
    if key_path.exists() and cert_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
        if cert.not_valid_after_utc > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30):
            return key, cert
    out_dir.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    name = _name("rsa-bench test CA (not for anything but this device)")
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key, cert


def server_certificate(n, e, out_dir=OUT_DIR, name="server.pem"):
    """The server's certificate for the RSA public key (n, e), issued by the test CA for `localhost` and
    127.0.0.1, written to out_dir/`name`; returned as a cryptography certificate."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import ExtendedKeyUsageOID
    ca_key, ca_cert = test_ca(out_dir)
    public = rsa.RSAPublicNumbers(e, n).public_key()
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(_name(HOSTNAME)).issuer_name(ca_cert.subject).public_key(public)
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=365))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOSTNAME),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=True,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    Path(out_dir, name).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert


# ---- the console's TLS commands ----

def _checked(console, command, line):
    """Runs `command`; the one `line` (a protocol.Line) record of its output. CommandRefused on an error
    line, UnexpectedAnswer when the line is missing."""
    output = console.command(command)
    for text in output.splitlines():
        if protocol.error_code(text) is not None:
            raise CommandRefused(command, text)
    found = line.parse_all(output)
    if len(found) != 1:
        raise UnexpectedAnswer(command, f"printed {len(found)} {line.name} lines, not one", output)
    return found[0]


def use_bench_key(console, bits):
    """`tls_key <bits>`: the firmware's bench key of that size becomes the console's key (the server's)."""
    taken = _checked(console, f"tls_key {bits}", protocol.KEY_SET)
    if taken["bits"] != bits or taken["private"] != "yes":
        raise UnexpectedAnswer(f"tls_key {bits}", f"took a {taken['bits']}-bit key", str(taken))
    return taken


def load_chain(console, certificates):
    """Loads the DER certificates (leaf first) with `cert clear` and `cert add`; returns the CHAIN record,
    after checking that the device holds them all and that the leaf is for its key."""
    from cryptography.hazmat.primitives import serialization
    der = b"".join(cert.public_bytes(serialization.Encoding.DER) for cert in certificates)
    console.command("cert clear")
    chain = None
    for at in range(0, len(der), CHAIN_PIECE):
        chain = _checked(console, f"cert add {der[at:at + CHAIN_PIECE].hex()}", protocol.CHAIN)
    if (chain["certs"], chain["bytes"], chain["key_match"]) != (len(certificates), len(der), "yes"):
        raise UnexpectedAnswer("cert", f"holds {chain['certs']} certificates of {chain['bytes']} bytes, "
                                       f"key_match={chain['key_match']}", str(chain))
    return chain


def prepare(console, key, out_dir=OUT_DIR):
    """The server's key (`key`: soc.keys' dict of the key the console holds) gets a certificate from the
    test CA, loaded onto the device. Returns the certificate."""
    cert = server_certificate(key["n"], key["e"], out_dir)
    load_chain(console, [cert])
    return cert


# ---- the bridge ----

class RecordStream:
    """The device's side of a connection: TLS records, then the text that ends them. `feed(data)` returns
    the bytes that belong to records (for the client); `text` collects what follows the last record."""

    def __init__(self):
        self.header = b""       # the part of a record header seen so far
        self.body = 0           # bytes of the current record's body still to come
        self.text = None        # None while records go on

    def feed(self, data):
        if self.text is not None:
            self.text += data
            return b""
        records = bytearray()
        i = 0
        while i < len(data):
            if self.body:
                take = min(self.body, len(data) - i)
                records += data[i:i + take]
                self.body -= take
                i += take
            elif not self.header and data[i] not in RECORD_TYPES:
                self.text = data[i:]
                break
            else:
                take = min(5 - len(self.header), len(data) - i)
                self.header += data[i:i + take]
                records += data[i:i + take]
                i += take
                if len(self.header) == 5:
                    self.body = int.from_bytes(self.header[3:5], "big")
                    self.header = b""
        return bytes(records)

    def done_line(self):
        """The text up to and with its TLS_DONE line, and what follows it; (None, None) before it came."""
        if self.text is None:
            return None, None
        text = self.text.decode("ascii", errors="replace")
        start = text.find("tls done ")
        end = text.find("\n", start)
        if start < 0 or end < 0:
            return None, None
        return text[:end + 1], text[end + 1:]


@dataclass
class Connection:
    """One connection as the device reported it: its TLS_START, TLS_HANDSHAKE (a board's: TLS_HANDSHAKE_BRIEF,
    without cycles; None without a completed handshake) and TLS_DONE records, whether the client closed its
    side before the device ended, and the wall-clock seconds it took."""
    start: dict
    handshake: dict
    done: dict
    client_closed: bool
    seconds: float

    @property
    def summary(self):
        done = self.done
        text = f"reason={done['reason']} error={done['error']} in={done['bytes_in']} out={done['bytes_out']}"
        h = self.handshake
        if h and "cycles" in h:
            text = (f"{h['suite']} {h['curve']} {h['impl']} RSA-{h['bits']}: {h['cycles']:,} cycles "
                    f"({config.SYS_CLK_FREQ / h['cycles']:.1f} handshakes/s at {config.SYS_CLK_FREQ / 1e6:g} MHz); "
                    + text)
        elif h:
            text = f"{h['suite']} {h['curve']} {h['impl']} RSA-{h['bits']}; " + text
        return text


def _fileno(transport):
    """A descriptor to wait on for the device's output, or None (then the bridge polls)."""
    proc = getattr(transport, "proc", None)
    if proc is not None:
        return proc.stdout.fileno()
    port = getattr(transport, "port", None)
    try:
        return port.fileno() if port is not None else None
    except Exception:       # pyserial URLs without a descriptor
        return None


class Bridge:
    """Serves connections on the console's UART: `serve_connection(sock)` runs one (a connected socket to
    the client), `serve(address)` accepts them one after another. `timeout_ms`: the device's idle limit
    per connection; `wall_limit`: seconds one connection may take here before the console counts as not
    answering."""

    def __init__(self, console, impl="hw_seq", timeout_ms=SIM_TIMEOUT_MS, wall_limit=900.0, log=None):
        if impl not in protocol.TLS_IMPLS:
            raise ValueError(f"impl takes one of {', '.join(protocol.TLS_IMPLS)} (got {impl!r})")
        self.console = console
        self.impl = impl
        self.timeout_ms = timeout_ms
        self.wall_limit = wall_limit
        self.log = log or (lambda message: None)
        self.connections = []       # every Connection `serve` ran, in order

    def _start(self):
        command = f"tls {self.impl} {self.timeout_ms} {protocol.MIX_OPTION}={os.urandom(32).hex()}"
        self.console.send(command + "\n")
        self.console.expect("\n")                   # the echoed command
        line = self.console.expect("\n")
        if protocol.error_code(line) is not None:
            self.console.wait_prompt()
            raise CommandRefused(command, line)
        start = protocol.TLS_START.parse(line)
        if start is None:
            raise UnexpectedAnswer(command, "did not start a connection", line)
        return start

    def serve_connection(self, sock):
        """One connection between `sock` and the device; returns the Connection once the console is back
        at its prompt. The socket is closed when the device has ended the connection."""
        started = time.monotonic()
        start = self._start()
        transport = self.console.transport
        stream = RecordStream()
        device_fd = _fileno(transport)
        selector = selectors.DefaultSelector()
        selector.register(sock, selectors.EVENT_READ)
        if device_fd is not None:
            selector.register(device_fd, selectors.EVENT_READ)
        client_open, client_closed = True, False
        deadline = started + self.wall_limit
        try:
            while True:
                text, rest = stream.done_line()
                if text is not None:
                    break
                if time.monotonic() > deadline:
                    raise ConsoleError(f"a TLS connection took more than {self.wall_limit:.0f} s: the device did "
                                       "not end it")
                events = selector.select(timeout=1.0 if device_fd is not None else 0.002)
                data = transport.read(0)
                if data:
                    records = stream.feed(data)
                    if records and client_open:
                        try:
                            sock.sendall(records)
                        except OSError:
                            client_open = False
                if client_open and stream.text is None and any(key.fileobj is sock for key, _ in events):
                    try:
                        data = sock.recv(65536)
                    except OSError:
                        data = b""
                    if data:
                        transport.write(data)
                    else:               # the client went away: the device ends the connection now
                        client_open, client_closed = False, True
                        selector.unregister(sock)
                        transport.write(protocol.TLS_RESUME_TOKEN)
        finally:
            selector.close()
            try:
                sock.close()
            except OSError:
                pass
        transport.write(protocol.TLS_RESUME_TOKEN)
        self.console.resume(rest)
        self.console.wait_prompt()
        done = protocol.TLS_DONE.parse_all(text)
        handshake = protocol.TLS_HANDSHAKE.parse_all(text) or protocol.TLS_HANDSHAKE_BRIEF.parse_all(text)
        if len(done) != 1:
            raise UnexpectedAnswer("tls", "ended without one `tls done` line", text)
        return Connection(start, handshake[0] if handshake else None, done[0], client_closed,
                          time.monotonic() - started)

    def serve(self, server, stop=None):
        """Accepts connections on the listening socket `server` one after another until Ctrl-C (or until
        the threading.Event `stop` is set), logging each one's summary and keeping it in `connections`."""
        server.settimeout(0.2)
        while stop is None or not stop.is_set():
            try:
                sock, peer = server.accept()
            except socket.timeout:
                continue
            sock.setblocking(True)
            connection = self.serve_connection(sock)
            self.connections.append(connection)
            self.log(f"[tls] {peer[0]}:{peer[1]}: {connection.summary}")


# ---- clients ----

def python_client(sock, ca_file, suite=None, curve=None, request=REQUEST, timeout=600.0, key_bits=2048, keylog=None):
    """A TLS 1.2 handshake by Python's `ssl` on the connected socket `sock`, verifying the device's chain
    against `ca_file` and its name; sends `request`, reads one line back, closes with close_notify.
    `suite`, `curve`: only that suite (console_protocol.TLS_SUITES) and curve (TLS_CURVES); `key_bits`:
    the device's key size (below 2048 bits the security level is lowered, `security_level`); `keylog`: a
    file the client's secrets are written to (NSS's key log format). Returns (the line, the cipher suite's
    OpenSSL name, the protocol version)."""
    context = ssl.create_default_context(cafile=str(ca_file))
    if keylog is not None:
        context.keylog_filename = str(keylog)
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    if suite is not None or security_level(key_bits) < 2:
        context.set_ciphers(cipher_string(key_bits, OPENSSL_CIPHERS[suite] if suite is not None else "DEFAULT"))
    if curve is not None:
        context.set_ecdh_curve(OPENSSL_CURVES[curve])
    sock.settimeout(timeout)
    with context.wrap_socket(sock, server_hostname=HOSTNAME) as tls:
        tls.sendall(request)
        line = b""
        while not line.endswith(b"\n"):
            chunk = tls.recv(4096)
            if not chunk:
                break
            line += chunk
        cipher, version = tls.cipher()[0], tls.version()
        tls.unwrap()
    return line.decode("ascii", errors="replace"), cipher, version


def commands(address, out_dir=OUT_DIR, key_bits=2048):
    """The commands that connect to the bridge at `address` and verify the device against the test CA (with
    the security level lowered for a key below 2048 bits, `security_level`)."""
    host, port = address
    ca = display_path(Path(out_dir) / "ca.pem")
    lowered = security_level(key_bits) < 2
    return {
        "openssl": (f"openssl s_client -connect {host}:{port} -CAfile {ca} -verify_return_error "
                    f"-verify_hostname {HOSTNAME} -servername {HOSTNAME} -tls1_2 -ign_eof"
                    + (f" -cipher '{cipher_string(key_bits)}'" if lowered else "")),
        "python": ("python3 -c \"import socket, ssl; c = ssl.create_default_context(cafile='" + ca + "'); "
                   + (f"c.set_ciphers('{cipher_string(key_bits)}'); " if lowered else "") +
                   f"s = c.wrap_socket(socket.create_connection(('{host}', {port})), server_hostname='{HOSTNAME}'); "
                   "s.sendall(b'hello\\n'); print(s.recv(4096).decode(), end=''); s.unwrap()\""),
    }


def parse_address(text):
    """HOST:PORT -> (host, port); a ProjectError when it is not one."""
    host, _, port = text.rpartition(":")
    try:
        port = int(port)
    except ValueError:
        port = -1
    if not host or not 0 < port < 65536:
        raise ProjectError(f"--listen takes HOST:PORT, e.g. 127.0.0.1:4433 (got {text!r})")
    return host.strip("[]"), port


def serve(console, key, address, impl="hw_seq", timeout_ms=SIM_TIMEOUT_MS, out=print):
    """`python -m sim tls`: the device's certificate loaded, the commands printed, connections served
    until Ctrl-C."""
    try:
        server = socket.create_server(address)
    except OSError as error:
        raise ProjectError(f"cannot listen on {address[0]}:{address[1]}: {error.strerror}") from None
    prepare(console, key)
    bridge = Bridge(console, impl=impl, timeout_ms=timeout_ms, log=out)
    out(f"[tls] the device serves TLS 1.2 on {address[0]}:{address[1]} (RSA-{key['n'].bit_length()} on {impl}, "
        f"idle limit {timeout_ms} device ms); its certificate: {display_path(OUT_DIR / 'server.pem')}, "
        f"the CA: {display_path(OUT_DIR / 'ca.pem')}")
    bits = key["n"].bit_length()
    if security_level(bits) < 2:
        out(f"[tls] RSA-{bits} is below the 2048 bits that OpenSSL's default security level (2) asks of a "
            f"server key: the commands lower it to {security_level(bits)}")
    for name, command in commands(address, key_bits=bits).items():
        out(f"[tls]   {name}: {command}")
    out("[tls] Ctrl-C ends it")
    with server:
        try:
            bridge.serve(server)
        except KeyboardInterrupt:
            pass
    return 0


# ---- the job: `python -m sim tls` ----

def add_tls_timeout(parser):
    parser.add_argument("--tls-timeout", type=options.at_least(1), default=None, metavar="MS",
                        help="the device's idle limit per connection, in device milliseconds (default: "
                             f"{SIM_TIMEOUT_MS} in simulation, {protocol.TLS_TIMEOUT_MS} on a board)")


def device_timeout_ms(args):
    """The device's idle limit per connection: --tls-timeout, or the default for where it runs."""
    return args.tls_timeout or (protocol.TLS_TIMEOUT_MS if args.port else SIM_TIMEOUT_MS)


def add_arguments(parser):
    parser.add_argument("--listen", default="127.0.0.1:4433", metavar="HOST:PORT",
                        help="where to listen (default: %(default)s)")
    parser.add_argument("--impl", default="hw_seq", choices=protocol.TLS_IMPLS, metavar="IMPL",
                        help="the implementation of the server's RSA (default: %(default)s; available: "
                             f"{','.join(protocol.TLS_IMPLS)}; on a board: "
                             f"{','.join(protocol.TLS_CONSTANT_TIME_IMPLS)})")
    options.add_size(parser, default=2048, help="the server's key: the firmware's bench key of this size")
    parser.add_argument("--device-key", action="store_true",
                        help="a key of --size bits made on the device (`keygen` on hw_seq, random seed) instead "
                             "of the bench key")
    add_tls_timeout(parser)


def check(args):
    try:
        parse_address(args.listen)
    except ProjectError as error:
        raise options.UsageError(str(error)) from None


def main(args, log):
    """The device's TLS server on a TCP port here, until Ctrl-C."""
    from soc import keys
    build = options.simulation(args, log)
    console = options.open_console(args, build, args.timeout or 10 * 365 * 86400.0)
    try:
        if args.device_key:
            log(f"[tls] making a {args.size}-bit key on the device (keygen on hw_seq) ...")
            key = console.keygen(args.size, os.urandom(protocol.KEYGEN_MIN_SEED), "hw_seq").key
        else:
            use_bench_key(console, args.size)
            key = next(k for k in keys.bench_keys() if k["bits"] == args.size)
        return serve(console, key, parse_address(args.listen), impl=args.impl, timeout_ms=device_timeout_ms(args),
                     out=log)
    finally:
        console.close()


registry.register(registry.Job(
    "tls", "the device as a TLS 1.2 server on a TCP port here", main, add_arguments=add_arguments,
    check=check, groups=(options.BUILD, options.SERIAL),
    description="The device as a TLS 1.2 server: a TCP port here bridged to its UART, one connection after "
                "another until Ctrl-C (docs/tls.md)."))
