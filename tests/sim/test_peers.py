"""The peer libraries (mbedTLS, BearSSL) on the softcore: each built into the firmware from its own
sources and run through its own RSA API in the simulated SoC, one RSA-512 private operation each,
checked against Python. (Their full benchmark rows are `make bench`'s: minutes of simulation.)"""

import random

import pytest

from soc import console_protocol as protocol
from soc import keys as soc_keys
from soc import peer_libs


@pytest.mark.parametrize("impl", protocol.PEER_IMPLS)
def test_peer_private_crt_512(console, impl):
    if peer_libs.cached(peer_libs.PEERS[impl]) is None:    # a missing library is a failure, not a skip
        pytest.fail(f"{impl} was not fetched into build/peers/ (run `make test`, which fetches it)")
    key = soc_keys.generate_key(512, seed="test-peers")
    n, e, d, p, q = (key[k] for k in ("n", "e", "d", "p", "q"))
    assert protocol.KEY_SET.parse_all(console.command(f"key {n:x} {e:x} {d:x} {p:x} {q:x}")) == \
        [{"bits": 512, "private": "yes"}]
    c = pow(random.Random(impl).randrange(n), e, n)
    [r] = protocol.TIMED.parse_all(console.command(f"time private_crt {impl} {c:x}"))
    assert (r["op"], r["impl"], r["ok"], r["result"]) == ("private_crt", impl, 1, pow(c, d, n))
    assert r["cycles"] > 0


def test_bench_rows_name_every_peer():
    rows = protocol.bench_rows()
    for impl in protocol.PEER_IMPLS:
        ops = [op for op, i in rows if i == impl]
        assert ops == ["public", "private", "private_crt"] + (["mul"] if impl in protocol.PEER_MUL_IMPLS else [])
    assert [r for r in rows if r[1] in protocol.IMPLS] == protocol.bench_rows(peers=False)
