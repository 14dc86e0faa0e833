"""The peer libraries the benchmark compares against (mbedTLS, BearSSL): fetched, checked, cached.

They are real dependencies, never copies in this repository: Debian's source packages, fetched with
`apt-get source` at a pinned version through a private sources list and lists directory under
build/ (the machine's own apt configuration is neither read for sources nor changed). apt checks each
file against the SHA256 in the signed Sources index; we check the upstream tarball once more against
the SHA256 pinned here, then unpack it (upstream sources only, Debian's patches are not applied) into
build/peers/<name>/. A second call finds the unpacked tree and its stamp and does nothing.

A failed fetch is not fatal: `fetch_all` prints one `error:` line naming the package and the firmware
is built without that library (its bench rows are reported missing).

    python -m soc.peer_libs      fetch what is missing (tools/setup.sh runs it); exit 0 either way
"""

import hashlib
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from common.errors import ProjectError
from common.paths import BUILD_DIR

PEERS_DIR = BUILD_DIR / "peers"
#: Debian release whose source packages carry the pinned versions, and its archive key.
DEB_SRC = ("deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
           "http://deb.debian.org/debian bookworm main\n")


@dataclass(frozen=True)
class Peer:
    """One peer library: how it is fetched, and what the rest of the tree derives from it (the
    console protocol's implementation, the firmware's peer list, the bench's columns). Its glue is
    firmware/peers/peer_<name>.c, which defines `const struct rsa_peer peer_<name>` (firmware/rsa/rsa_impls.h)."""
    name: str           # bench implementation name, Debian source package, C name (peer_<name>)
    title: str          # the library's name in tables and prose
    label: str          # with the version, as the results name it
    description: str    # what the implementation runs (console_protocol.PEER_IMPLS, `bench`'s legend)
    version: str        # the Debian source version, pinned
    tarball: str        # the upstream tarball inside the source package
    sha256: str         # of that tarball
    top: str            # its top directory
    #: Its rows depend on the rows before them in one simulation (library state made on first use):
    #: the bench runs them together, in the firmware's order (console_protocol.STATEFUL_IMPLS).
    stateful: bool = False
    #: Its glue times a Montgomery product (`mul_cycles`): it has a `mul` row.
    mul: bool = False
    #: Its key generation is offered (`keygen <bits> <seed> <name>`): firmware/peers/peer_<name>_keygen.c
    #: defines `peer_<name>_keygen` (firmware/peers/peer_keygen.h).
    keygen: bool = False
    #: What the results say of how it is run (a sentence of results.md, after the table).
    note: str = ""
    #: Rough cycles of its rows at 1024 bits by operation, only for the bench to deal the longest rows
    #: first and to estimate the time left (jobs/bench.py).
    cycles_1024: dict = field(default_factory=dict, compare=False)

    @property
    def root(self):
        """The unpacked upstream tree."""
        return PEERS_DIR / self.name / self.top


#: The peer libraries, in the order of the bench's rows and columns.
PEERS = {
    "mbedtls": Peer(
        "mbedtls", "mbedTLS", "mbedTLS 2.28.3",
        "mbedTLS 2.28.3 (mbedtls_rsa_public / mbedtls_rsa_private, CRT and blinding)",
        "2.28.3-1", "mbedtls_2.28.3.orig.tar.gz",
        "3b4953aa55a681e084d31892d9904cc5328d6b4958ea57b90ae4b4f94ae69a8d", "Mbed-TLS-mbedtls-8f97ca5",
        # its heap, and the blinding pair made on a key's first private operation (README, "Peer libraries")
        stateful=True, keygen=True,
        note="mbedTLS blinds every private operation (a deterministic generator here, for repeatable "
             "counts) and checks a CRT result with e; it is not constant-time (a sliding window, with "
             "blinding instead); its Montgomery product is a static function, so it has no product row.",
        cycles_1024={"public": 7.6e5, "private": 6.7e7, "private_crt": 2.8e7}),
    "bearssl": Peer(
        "bearssl", "BearSSL", "BearSSL 0.6", "BearSSL 0.6 i31 (br_rsa_i31_public / br_rsa_i31_private)",
        "0.6+dfsg.1-3", "bearssl_0.6+dfsg.1.orig.tar.xz",
        "102a625bd8f6155260867a50c508df8d8c3f796985dd744df1a68e5cd1a79004", "bearssl-0.6",
        mul=True, keygen=True,
        note="BearSSL's private operation is always CRT (its `private, no CRT` row is br_rsa_i31_public "
             "with d as the exponent) and constant-time by design; its product row times "
             "br_i31_montymul (inner.h), which is not in its public API.",
        cycles_1024={"public": 1.6e6, "private": 5.1e7, "private_crt": 1.5e7, "mul": 3.7e4}),
}


def _stamp(peer):
    return PEERS_DIR / peer.name / ".unpacked"


def cached(peer):
    """The unpacked tree when an earlier fetch completed and checked it, else None."""
    stamp = _stamp(peer)
    if stamp.exists() and stamp.read_text().strip() == peer.sha256 and peer.root.is_dir():
        return peer.root
    return None


def _apt_options():
    apt_dir = PEERS_DIR / "apt"
    lists = apt_dir / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    (apt_dir / "cache" / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    sources = apt_dir / "sources.list"
    if not sources.exists() or sources.read_text() != DEB_SRC:
        sources.write_text(DEB_SRC)
    return ["-q", "-o", f"Dir::Etc::sourcelist={sources}", "-o", "Dir::Etc::sourceparts=-",
            "-o", f"Dir::State::Lists={lists}", "-o", f"Dir::Cache={apt_dir / 'cache'}"]


def _apt(args, cwd=None):
    result = subprocess.run(["apt-get", *_apt_options(), *args], cwd=cwd, capture_output=True, text=True)
    if result.returncode != 0:
        last = (result.stderr.strip() or result.stdout.strip() or "no output").splitlines()[-1]
        raise ProjectError(f"apt-get {args[0]} failed: {last}")


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch(peer, updated):
    """Fetches, checks and unpacks one library (nothing when cached); returns its tree.
    `updated` is a one-element list: whether the private index was refreshed in this run."""
    root = cached(peer)
    if root:
        return root
    if shutil.which("apt-get") is None:
        raise ProjectError("apt-get not found")
    if not updated[0]:
        _apt(["update"])
        updated[0] = True
    download = PEERS_DIR / peer.name / "download"
    shutil.rmtree(download, ignore_errors=True)
    download.mkdir(parents=True)
    # --download-only: apt checks every file against the signed index; we unpack ourselves.
    _apt(["source", "--download-only", f"{peer.name}={peer.version}"], cwd=download)
    tarball = download / peer.tarball
    if not tarball.exists():
        raise ProjectError(f"{peer.tarball} not in the source package")
    actual = _sha256(tarball)
    if actual != peer.sha256:
        raise ProjectError(f"{peer.tarball} has SHA256 {actual}, pinned {peer.sha256}")
    shutil.rmtree(peer.root, ignore_errors=True)
    with tarfile.open(tarball) as archive:
        archive.extractall(PEERS_DIR / peer.name, filter="data")
    if not peer.root.is_dir():
        raise ProjectError(f"{peer.tarball} has no {peer.top}/")
    _stamp(peer).write_text(peer.sha256 + "\n")
    return peer.root


def fetch_all(err=sys.stderr):
    """{name: tree or None}: every peer library, fetched when missing; one `error:` line per failure."""
    trees, updated = {}, [False]
    for name, peer in PEERS.items():
        try:
            trees[name] = fetch(peer, updated)
        except (ProjectError, OSError, tarfile.TarError) as error:
            trees[name] = None
            err.write(f"error: could not fetch {name} {peer.version} ({error}); "
                      f"its bench rows will be reported missing\n")
            err.flush()
    return trees


def main():
    trees = fetch_all()
    for name, tree in trees.items():
        if tree:
            print(f"[setup] {PEERS[name].label}: {Path(tree)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
