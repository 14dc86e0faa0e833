"""NIST's SHA-256 vectors (CAVP, from `cryptography_vectors`) through the engine's RTL in Amaranth's simulator,
driven block by block over its ports (jobs/sha256_vectors.py: the padding here, one helper writing a block's
message words): every ShortMsg vector, and LongMsg vectors spread over its lengths. The whole LongMsg set
is `python -m sim sha256-vectors`'s (docs/testing.md)."""

import hashlib

from jobs import sha256_vectors

#: LongMsg vectors run here: its shortest, its longest and two between (163 to 6,400 bytes, 3 to 101
#: blocks; about 1 s of simulation, the whole set about 25 s).
LONG_SAMPLE = (0, 21, 42, 63)


def _mismatches(vectors):
    digests = sha256_vectors.rtl_digests([message for message, _ in vectors])
    return [len(message) for (message, expected), found in zip(vectors, digests) if found != expected]


def test_the_response_files_parse_whole():
    short, long = sha256_vectors.message_vectors("short"), sha256_vectors.message_vectors("long")
    assert [len(message) for message, _ in short] == list(range(65))
    assert len(long) == 64 and len(long[0][0]) == 163 and len(long[-1][0]) == 6400
    for message, digest in short + long[:2]:
        assert hashlib.sha256(message).digest() == digest


def test_every_short_message():
    assert _mismatches(sha256_vectors.message_vectors("short")) == []


def test_long_messages_across_the_lengths():
    long = sha256_vectors.message_vectors("long")
    assert _mismatches([long[index] for index in LONG_SAMPLE]) == []
