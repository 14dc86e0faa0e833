"""RSA keys and ciphertexts from the PKCS#1 v2.1 OAEP vectors in ``cryptography_vectors``."""

import functools
import os

import cryptography_vectors

_NAMES = {"Modulus": "n", "Public exponent": "e", "Prime 1": "p", "Prime 2": "q",
          "Prime exponent 1": "dp", "Prime exponent 2": "dq", "Coefficient": "qinv",
          "Encryption": "ciphertext"}


@functools.cache
def oaep_keys():
    path = os.path.join("asymmetric", "RSA", "pkcs-1v2-1d2-vec", "oaep-vect.txt")
    with cryptography_vectors.open_vector_file(path, "r") as f:
        lines = f.read().splitlines()
    keys = []
    field = None
    hexdigits = []

    def flush():
        if field is None or not keys:
            return
        value = int("".join(hexdigits), 16) if hexdigits else None
        key = keys[-1]
        if field == "Exponent":
            key["d" if "e" in key else "e"] = value
        elif field == "ciphertext":
            key["ciphertexts"].append(value)
        elif field not in key:
            key[field] = value

    for line in lines:
        if line.startswith("# Example") and ":" in line and "RSA key pair" in line:
            flush()
            field, hexdigits = None, []
            keys.append({"ciphertexts": []})
        elif line.startswith("# ") and line.rstrip().endswith(":"):
            flush()
            name = line[2:].rstrip()[:-1].strip()
            field = _NAMES.get(name, name)
            hexdigits = []
        elif field is not None and line.strip() and not line.startswith("#") and not line.startswith("="):
            hexdigits.append(line.replace(" ", "").strip())
        else:
            if field is not None and hexdigits:
                flush()
                field, hexdigits = None, []
    flush()
    for key in keys:
        assert key["n"] == key["p"] * key["q"], "parsed key is inconsistent"
        assert pow(pow(2, key["e"], key["n"]), key["d"], key["n"]) == 2
    return keys
