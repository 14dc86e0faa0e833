"""soc/peer_libs.py: pinned versions and checksums, the cache, and a failed fetch as one error line."""

import dataclasses
import hashlib
import io
import tarfile

from soc import firmware, peer_libs


def test_peers_are_pinned():
    for name, peer in peer_libs.PEERS.items():
        assert peer.name == name
        assert peer.version and len(peer.sha256) == 64
        assert peer.tarball.startswith(f"{name}_")


def test_failed_fetch_is_one_error_line_and_no_tree(tmp_path, monkeypatch):
    monkeypatch.setattr(peer_libs, "PEERS_DIR", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))          # no apt-get
    err = io.StringIO()
    trees = peer_libs.fetch_all(err=err)
    assert trees == {name: None for name in peer_libs.PEERS}
    lines = err.getvalue().splitlines()
    assert len(lines) == len(peer_libs.PEERS)
    for line, name in zip(lines, peer_libs.PEERS):
        assert line.startswith(f"error: could not fetch {name} ")


def _tarball_bytes(peer, content=b"int x;\n"):
    """An (uncompressed, byte-for-byte repeatable) tarball with the peer's top directory."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as archive:
        info = tarfile.TarInfo(f"{peer.top}/src.c")
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))
    return buf.getvalue()


def _fake_apt(peer, data, calls):
    def apt(args, cwd=None):
        calls.append(args[0])
        if args[0] == "source":
            (cwd / peer.tarball).write_bytes(data)
    return apt


def test_checksum_mismatch_is_refused(tmp_path, monkeypatch):
    """A tarball that is not the pinned one is never unpacked."""
    monkeypatch.setattr(peer_libs, "PEERS_DIR", tmp_path)
    peer = peer_libs.PEERS["bearssl"]
    monkeypatch.setattr(peer_libs.shutil, "which", lambda name: "/usr/bin/apt-get")
    monkeypatch.setattr(peer_libs, "_apt", _fake_apt(peer, _tarball_bytes(peer), []))
    monkeypatch.setattr(peer_libs, "PEERS", {"bearssl": peer})
    err = io.StringIO()
    assert peer_libs.fetch_all(err=err) == {"bearssl": None}
    assert "SHA256" in err.getvalue() and "pinned" in err.getvalue()
    assert not peer.root.exists() and peer_libs.cached(peer) is None


def test_checked_tarball_is_unpacked_once(tmp_path, monkeypatch):
    monkeypatch.setattr(peer_libs, "PEERS_DIR", tmp_path)
    data = _tarball_bytes(peer_libs.PEERS["bearssl"])
    peer = dataclasses.replace(peer_libs.PEERS["bearssl"], sha256=hashlib.sha256(data).hexdigest())
    calls = []
    monkeypatch.setattr(peer_libs.shutil, "which", lambda name: "/usr/bin/apt-get")
    monkeypatch.setattr(peer_libs, "_apt", _fake_apt(peer, data, calls))
    tree = peer_libs.fetch(peer, [False])
    assert calls == ["update", "source"]
    assert tree == peer.root and (tree / "src.c").read_text() == "int x;\n"
    calls.clear()
    assert peer_libs.fetch(peer, [False]) == tree and calls == []     # cached: no apt-get at all


def test_peer_header_says_which_libraries_are_built(tmp_path):
    text = firmware.peer_header({"mbedtls": tmp_path, "bearssl": None})
    assert "#define PEER_HAVE_MBEDTLS 1" in text and "#define PEER_HAVE_BEARSSL 0" in text
