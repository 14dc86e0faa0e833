"""RSA keys and ciphertexts from the PKCS#1 v2.1 OAEP vectors in ``cryptography_vectors``, in the
shape the gateware tests use; the parsing (and its checks) lives in soc/keys.py, shared with the build."""

import functools

from soc.keys import oaep_vectors


@functools.cache
def oaep_keys():
    keys = []
    for key, cases in oaep_vectors():
        entry = {k: key[k] for k in ("n", "e", "d", "p", "q", "dp", "dq", "qinv")}
        entry["ciphertexts"] = [c for c, _ in cases]
        keys.append(entry)
    return keys
