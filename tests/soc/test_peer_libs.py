"""soc/peer_libs.py: pinned versions and checksums, the cache, a failed fetch as one error line, a third
peer in the table reaching the protocol, the firmware's lists and the bench's columns; and a new peer added
in a copy of the tree through the files docs/extending.md lists, no others."""

import dataclasses
import hashlib
import importlib.util
import io
import subprocess
import tarfile

import pytest

from soc import console_protocol, firmware, peer_libs
from tree_copy import add_entry, doc_files, replace, run_python


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


# ---- a third peer: what derives from the table follows it ----

DUMMY = peer_libs.Peer("dummyssl", "DummySSL", "DummySSL 1.0", "DummySSL 1.0 (dummy_rsa_public / dummy_rsa_private)",
                       "1.0-1", "dummyssl_1.0.orig.tar.gz", "0" * 64, "dummyssl-1.0", stateful=True, mul=True,
                       keygen=True, note="DummySSL is a test's.",
                       cycles_1024={"public": 1e6, "private": 9e7, "private_crt": 3e7, "mul": 5e4})


@pytest.fixture
def three_peers(monkeypatch):
    """soc.peer_libs.PEERS with DUMMY after the two real peers, and a fresh copy of the console protocol
    made from that table (the imported module keeps the real one); jobs.bench reads that copy."""
    monkeypatch.setattr(peer_libs, "PEERS", {**peer_libs.PEERS, DUMMY.name: DUMMY})
    spec = importlib.util.spec_from_file_location("console_protocol_three_peers", console_protocol.__file__)
    protocol = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(protocol)
    from jobs import bench
    monkeypatch.setattr(bench, "protocol", protocol)
    return protocol


def test_a_third_peer_is_in_the_protocol(three_peers):
    protocol = three_peers
    assert list(protocol.PEER_IMPLS) == ["mbedtls", "bearssl", "dummyssl"]
    assert list(protocol.ALL_IMPLS)[-1] == "dummyssl"
    assert protocol.STATEFUL_IMPLS == ("mbedtls", "dummyssl") and protocol.PEER_MUL_IMPLS == ("bearssl", "dummyssl")
    assert [op for op, impl in protocol.bench_rows() if impl == "dummyssl"] == list(protocol.OPS)
    assert all(impl != "dummyssl" for _, impl in protocol.bench_rows(peers=False))
    assert "sw / hw_cpu / hw_seq / mbedtls / bearssl / dummyssl RSA" in protocol.COMMANDS["bench"][1]
    header = protocol.c_header()
    assert '#define IMPL_DUMMYSSL "dummyssl"' in header and "#define IMPL_DUMMYSSL_CONSTANT_TIME 0" in header
    assert "dummyssl: DummySSL 1.0 (dummy_rsa_public / dummy_rsa_private)\"\n" in header.split("IMPL_LEGEND")[1]
    # the real protocol did not change
    assert "dummyssl" not in console_protocol.ALL_IMPLS


def test_a_third_peer_is_in_the_firmware_lists(three_peers, tmp_path):
    """peer_build.h lists it, and the firmware's tables expand to it: rsa_impls gets its row, the key
    generation its entry (preprocessed with the generated headers, as the firmware's build makes them)."""
    from gateware.header import c_header as montmul_header
    from gateware.interface import PeripheralConfig
    text = firmware.peer_header({"mbedtls": tmp_path, "bearssl": None, "dummyssl": tmp_path})
    assert "#define PEER_HAVE_DUMMYSSL 1" in text
    assert "#define PEER_LIST(X) X(mbedtls, MBEDTLS) X(bearssl, BEARSSL) X(dummyssl, DUMMYSSL)\n" in text
    assert "#define PEER_KEYGEN_LIST(X) X(mbedtls, MBEDTLS) X(dummyssl, DUMMYSSL)\n" in text   # no BearSSL here
    headers = {**firmware.generated_headers(512), "console_protocol.h": three_peers.c_header(), "peer_build.h": text,
               "montmul.h": montmul_header(PeripheralConfig())}
    for name, content in headers.items():
        (tmp_path / name).write_text(content)
    host = firmware.ROOT / "tests" / "firmware"

    def preprocessed(source):
        return subprocess.run(["gcc", "-E", "-P", f"-I{tmp_path}", f"-I{firmware.FIRMWARE_DIR}",
                               f"-I{host / 'host_litex'}", f"-I{host / 'fuzz' / 'host'}", "-include", "firmware_config.h",
                               str(firmware.FIRMWARE_DIR / source)],
                              capture_output=True, text=True, check=True).stdout

    impls = preprocessed("rsa/rsa_impls.c")
    assert "extern const struct rsa_peer peer_dummyssl;" in impls
    table = impls.split("rsa_impls[] = {")[1].split("};")[0]
    assert table.index('&peer_bearssl') < table.index('{ "dummyssl", ((void *)0), 0, &peer_dummyssl }')
    keygen = preprocessed("peers/peer_keygen.c")
    assert "peer_keygen_fn peer_dummyssl_keygen;" in keygen
    assert '{ "dummyssl", ((void *)0) }' in keygen.split("keygens[] = {")[1].split("};")[0]


def test_a_third_peer_has_its_bench_columns(three_peers):
    from jobs import bench
    protocol = three_peers
    cycles = {"sw": 6000, "hw_cpu": 300, "hw_seq": 200, "hw_seq_window": 190, "mbedtls": 8000, "bearssl": 4000,
              "dummyssl": 10000}
    data = {"soc": {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100_000_000,
                    "peripheral": {"max_bits": 4096, "lanes": 64, "word_bits": 16, "slots": 8}},
            "command": "python -m sim bench --sizes 512", "date": "2026-11-23",
            "results": [{"bits": 512, "op": op, "impl": impl, "cycles": cycles[impl], "ok": True}
                        for op, impl in protocol.bench_rows()]}
    lines = bench.markdown(data).splitlines()
    header = next(line for line in lines if line.startswith("| key |"))
    cells = [cell.strip() for cell in header.strip("|").split("|")]
    assert cells[2:6] == ["software (ours)", "mbedTLS", "BearSSL", "DummySSL"]
    assert cells[-4:] == ["vs mbedTLS", "vs BearSSL", "vs DummySSL", "ok"]
    align = lines[lines.index(header) + 1]
    assert align.count("|") - 1 == len(cells)
    [row] = [line for line in lines if line.startswith(f"| 512 | {protocol.OPS['mul']} |")]
    row = [cell.strip() for cell in row.strip("|").split("|")]
    assert len(row) == len(cells)
    assert row[5] == "10,000" and row[-4:] == ["-", "20.0x", "50.0x", "yes"]
    assert "DummySSL is a test's." in bench.markdown(data)
    assert "mbedTLS 2.28.3, BearSSL 0.6 and DummySSL 1.0 are built" in bench.markdown(data)
    # the bench deals the third peer's rows from its table entry: together, as a stateful peer's
    jobs = bench.jobs_for(bench.planned_rows([1024]))
    [dummy_job] = [job for job in jobs if any(r.impl == "dummyssl" for r in job.rows)]
    assert {r.impl for r in dummy_job.rows} == {"dummyssl"} and len(dummy_job.rows) == 4
    assert bench.estimated_cycles(bench.Row(1024, "private", "dummyssl")) == 9e7


# ---- a new peer in a copy of the tree, through the files docs/extending.md lists ----

#: The dummy library "fetched": its tree, as soc.peer_libs would unpack it.
DUMMY_LIBRARY = {
    "dummy_rsa.h": "#include <stdint.h>\n"
                   "int dummy_rsa(uint32_t *r, const uint32_t *x, const uint32_t *e, const uint32_t *n, unsigned words);\n",
    "dummy_rsa.c": '#include "dummy_rsa.h"\n'
                   "int dummy_rsa(uint32_t *r, const uint32_t *x, const uint32_t *e, const uint32_t *n, unsigned words)\n"
                   "{ unsigned i; for (i = 0; i < words; i++) r[i] = x[i] ^ e[i] ^ n[i]; return 0; }\n",
}

DUMMY_GLUE = """/* DummySSL as a peer implementation: dummy_rsa on our keys (a test's). */
#include "peers/peer_common.h"
#include "rsa/rsa_impls.h"

#if PEER_HAVE_DUMMYSSL

#include "dummy_rsa.h"

static const rsa_key *key;
static uint32_t x[BN_MAX_WORDS], r[BN_MAX_WORDS];

static int dummy_load(const rsa_key *k, enum rsa_op_id op, const uint32_t *in)
{
	(void)op;
	key = k;
	bn_copy(x, in, BN_WORDS(k->bits));
	return RSA_OK;
}

static int dummy_run(enum rsa_op_id op)
{
	return dummy_rsa(r, x, op == RSA_OP_PUBLIC ? key->e : key->d, key->n, BN_WORDS(key->bits)) ? RSA_ERR_PEER
	                                                                                              : RSA_OK;
}

static void dummy_store(uint32_t *out)
{
	bn_copy(out, r, BN_WORDS(key->bits));
}

const struct rsa_peer peer_dummyssl = { 1, dummy_load, dummy_run, dummy_store, NULL };

#else

const struct rsa_peer peer_dummyssl = { 0, NULL, NULL, NULL, NULL };

#endif
"""


def _peer_table(root):
    replace(root / "soc" / "peer_libs.py",
            'cycles_1024={"public": 1.6e6, "private": 5.1e7, "private_crt": 1.5e7, "mul": 3.7e4}),\n}\n',
            'cycles_1024={"public": 1.6e6, "private": 5.1e7, "private_crt": 1.5e7, "mul": 3.7e4}),\n'
            '    "dummyssl": Peer("dummyssl", "DummySSL", "DummySSL 1.0", "DummySSL 1.0 (dummy_rsa)", "1.0-1",\n'
            '                     "dummyssl_1.0.orig.tar.gz", "0" * 64, "dummyssl-1.0", note="DummySSL is a test\'s.",\n'
            '                     cycles_1024={"public": 1e6, "private": 9e7, "private_crt": 3e7}),\n}\n')


def _peer_glue(root):
    (root / "firmware" / "peers" / "peer_dummyssl.c").write_text(DUMMY_GLUE)


def _peer_makefile(root):
    replace(root / "firmware" / "Makefile", "endif\n\nall: firmware.bin\n",
            "endif\n\n"
            "# DummySSL: dummy_rsa.c\n"
            "ifneq ($(DUMMYSSL_DIR),)\n"
            "CFLAGS += -I$(DUMMYSSL_DIR)\n"
            "PEER_LIBS += libpeer_dummyssl.a\n"
            "peer_dummyssl/%.o: $(DUMMYSSL_DIR)/%.c\n"
            "\t@mkdir -p $(dir $@)\n"
            "\t$(CC) -c $(PEER_CFLAGS) -I$(DUMMYSSL_DIR) $< -o $@\n"
            "libpeer_dummyssl.a: peer_dummyssl/dummy_rsa.o\n"
            "\t$(RM) $@\n"
            "\t$(AR) crs $@ $^\n"
            "endif\n\n"
            "all: firmware.bin\n")


def _peer_doc(root):
    replace(root / "docs" / "peers.md", "BearSSL does not check a CRT result with e.\n",
            "BearSSL does not check a CRT result with e.\n"
            "- **DummySSL 1.0** (`impl=dummyssl`): `dummy_rsa`, a test's.\n")


#: What the copy gets, file by file: the files docs/extending.md lists for a new peer (<name>: dummyssl).
PEER_EDITS = {
    "soc/peer_libs.py": _peer_table,
    "firmware/peers/peer_<name>.c": _peer_glue,
    "firmware/Makefile": _peer_makefile,
    "docs/peers.md": _peer_doc,
}

PEER_CHECKS = """
import subprocess, sys
from pathlib import Path

import litex
from soc import console_protocol as protocol, firmware, peer_libs
from jobs import bench

tree, gen, out = (Path(p) for p in sys.argv[1:4])

# the protocol and the bench's columns
assert list(protocol.PEER_IMPLS)[-1] == "dummyssl" and list(protocol.ALL_IMPLS)[-1] == "dummyssl"
assert [op for op, impl in protocol.bench_rows() if impl == "dummyssl"] == ["public", "private", "private_crt"]
data = {"soc": {"cpu": "vexriscv", "variant": "full", "sys_clk_hz": 100_000_000,
                "peripheral": {"max_bits": 4096, "lanes": 32, "word_bits": 32, "slots": 16}},
        "command": "python -m sim bench --sizes 512", "date": "-",
        "results": [{"bits": 512, "op": op, "impl": impl, "cycles": 1000, "ok": True} for op, impl in protocol.bench_rows()]}
assert "| DummySSL |" in bench.markdown(data) and "vs DummySSL" in bench.markdown(data)

# the generated headers; the firmware's table (preprocessed); the glue, with the library and without
from gateware.header import c_header
trees = {name: None for name in peer_libs.PEERS} | {"dummyssl": tree}
headers = {**firmware.generated_headers(512), "peer_build.h": firmware.peer_header(trees), "montmul.h": c_header()}
assert "#define PEER_HAVE_DUMMYSSL 1" in headers["peer_build.h"]
for name, text in headers.items():
    (gen / name).write_text(text)
host = firmware.ROOT / "tests" / "firmware"
flags = [f"-I{gen}", f"-I{firmware.FIRMWARE_DIR}", f"-I{host / 'host_litex'}", f"-I{host / 'fuzz' / 'host'}",
         "-include", "firmware_config.h"]
impls = subprocess.run(["gcc", "-E", "-P", *flags, str(firmware.FIRMWARE_DIR / "rsa" / "rsa_impls.c")],
                       capture_output=True, text=True, check=True).stdout
assert '{ "dummyssl", ((void *)0), 0, &peer_dummyssl }' in impls.split("rsa_impls[] = {")[1]
glue = str(firmware.FIRMWARE_DIR / "peers" / "peer_dummyssl.c")
subprocess.run(["gcc", "-fsyntax-only", "-std=c11", "-Wall", "-Wextra", "-Werror", *flags, f"-I{tree}", glue], check=True)
(gen / "peer_build.h").write_text(firmware.peer_header({name: None for name in peer_libs.PEERS}))
subprocess.run(["gcc", "-fsyntax-only", "-std=c11", "-Wall", "-Wextra", "-Werror", *flags, glue], check=True)

# the Makefile, given the tree as soc/firmware.py gives it (<NAME>_DIR): the library archived and linked
# after the other peers', the glue among our objects (make -n over a stand-in of LiteX's variables)
build = out / "b"
(build / "software" / "include" / "generated").mkdir(parents=True)
soc_dir = Path(litex.__file__).parent / "soc"
(build / "software" / "include" / "generated" / "variables.mak").write_text(
    "PACKAGES=libc libcompiler_rt libbase\\nLIBS=libc libcompiler_rt libbase\\nTRIPLE=riscv64-unknown-elf\\n"
    f"CPU=vexriscv\\nCPUFAMILY=riscv\\nCPUFLAGS=-march=rv32im -mabi=ilp32\\nCPUENDIANNESS=little\\nCLANG=0\\n"
    f"CPU_DIRECTORY={soc_dir}/cores/cpu/vexriscv\\nSOC_DIRECTORY={soc_dir}\\nBUILDINC_DIRECTORY={build}/software/include\\n")
(out / "fw").mkdir()
dry = subprocess.run(["make", "-n", "-C", str(out / "fw"), "-f", str(firmware.FIRMWARE_DIR / "Makefile"),
                      f"BUILD_DIR={build}", "MBEDTLS_DIR=", "BEARSSL_DIR=", f"DUMMYSSL_DIR={tree}", "firmware.elf"],
                     capture_output=True, text=True).stdout
assert f"{tree}/dummy_rsa.c -o peer_dummyssl/dummy_rsa.o" in dry, dry[-3000:]
[link] = [line for line in dry.splitlines() if "libpeer_dummyssl.a" in line and "crt0.o" in line]
assert " peer_dummyssl.o " in link
print("new peer: every layer follows")
"""


def test_the_doc_lists_the_files_a_new_peer_edits():
    files = doc_files("A new peer library")
    assert files == list(PEER_EDITS) and len(files) <= 4


def test_a_new_peer_reaches_every_layer(tmp_path):
    copy, edited = add_entry(tmp_path / "tree", PEER_EDITS.values())
    assert edited == sorted(name.replace("<name>", "dummyssl")
                            for name in doc_files("A new peer library"))
    library, gen, out = tmp_path / "dummyssl-1.0", tmp_path / "gen", tmp_path / "out"
    for directory in (library, gen, out):
        directory.mkdir()
    for name, text in DUMMY_LIBRARY.items():
        (library / name).write_text(text)
    script = f"import sys; sys.argv[1:] = {[str(library), str(gen), str(out)]!r}\n" + PEER_CHECKS
    assert "every layer follows" in run_python(copy, script)
