"""The Merkle tree against transparency-dev/merkle's vectors (vectors/README.md), against a reference
written here from RFC 9162's recursive definitions, and the C2SP tlog-tiles layout."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import random
from pathlib import Path

import pytest

from evidence_grpc.domain.transparency import merkle
from evidence_grpc.domain.transparency.merkle import ProofError, Tile

VECTORS = Path(__file__).parent / "vectors"
MAX_SIZE = 64

# --- The reference: RFC 9162 §2.1, recursively over the leaf inputs D; only hashlib. ---------


def _sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _k(n: int) -> int:
    """The largest power of two smaller than n."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


@functools.cache
def ref_mth(d: tuple[bytes, ...]) -> bytes:
    if len(d) == 0:
        return _sha256(b"")
    if len(d) == 1:
        return _sha256(b"\x00" + d[0])
    k = _k(len(d))
    return _sha256(b"\x01" + ref_mth(d[:k]) + ref_mth(d[k:]))


def ref_path(m: int, d: tuple[bytes, ...]) -> list[bytes]:
    if len(d) == 1:
        return []
    k = _k(len(d))
    if m < k:
        return ref_path(m, d[:k]) + [ref_mth(d[k:])]
    return ref_path(m - k, d[k:]) + [ref_mth(d[:k])]


def ref_subproof(m: int, d: tuple[bytes, ...], b: bool) -> list[bytes]:
    n = len(d)
    if m == n:
        return [] if b else [ref_mth(d)]
    k = _k(n)
    if m <= k:
        return ref_subproof(m, d[:k], b) + [ref_mth(d[k:])]
    return ref_subproof(m - k, d[k:], False) + [ref_mth(d[:k])]


def ref_proof(m: int, d: tuple[bytes, ...]) -> list[bytes]:
    return ref_subproof(m, d, True)


LEAVES = tuple(b"leaf %d" % i for i in range(MAX_SIZE))


def test_the_reference_gives_the_rfcs_worked_examples():
    """RFC 9162 §2.1.5: the tree of seven leaves d0..d6 (a check on the check)."""
    d = LEAVES[:7]
    a, b, c, dd, e, f, j = (_sha256(b"\x00" + x) for x in d)
    g, h, i = (_sha256(b"\x01" + x + y) for x, y in [(a, b), (c, dd), (e, f)])
    kk, ll = _sha256(b"\x01" + g + h), _sha256(b"\x01" + i + j)
    assert ref_mth(d) == _sha256(b"\x01" + kk + ll)
    assert [ref_path(0, d), ref_path(3, d), ref_path(4, d), ref_path(6, d)] == [
        [b, h, ll],
        [c, g, ll],
        [f, j, kk],
        [i, kk],
    ]
    assert [ref_proof(3, d), ref_proof(4, d), ref_proof(6, d)] == [[c, dd, g, ll], [ll], [i, j, kk]]


# --- transparency-dev/merkle's probes -------------------------------------------------------


def _b64(value: str | None) -> bytes:
    return base64.b64decode(value or "")


def _probes(kind: str) -> list[Path]:
    return sorted((VECTORS / kind).rglob("*.json"))


def test_every_probe_file_is_there():
    inclusion, consistency = _probes("inclusion"), _probes("consistency")
    assert (len(inclusion), len(consistency)) == (98, 98)
    happy = [p for p in inclusion + consistency if not json.loads(p.read_text())["wantErr"]]
    assert len(happy) == 12


@pytest.mark.parametrize("path", _probes("inclusion"), ids=lambda p: str(p.relative_to(VECTORS)))
def test_inclusion_probe(path: Path):
    probe = json.loads(path.read_text())
    proof = [_b64(h) for h in probe["proof"] or []]
    args = (probe["leafIdx"], probe["treeSize"], _b64(probe["leafHash"]), proof, _b64(probe["root"]))
    if probe["wantErr"]:
        with pytest.raises(ProofError):
            merkle.verify_inclusion(*args)
    else:
        merkle.verify_inclusion(*args)


@pytest.mark.parametrize("path", _probes("consistency"), ids=lambda p: str(p.relative_to(VECTORS)))
def test_consistency_probe(path: Path):
    probe = json.loads(path.read_text())
    proof = [_b64(h) for h in probe["proof"] or []]
    args = (probe["size1"], probe["size2"], _b64(probe["root1"]), _b64(probe["root2"]), proof)
    if probe["wantErr"]:
        with pytest.raises(ProofError):
            merkle.verify_consistency(*args)
    else:
        merkle.verify_consistency(*args)


def test_the_eight_leaf_tree_of_testonly_constants():
    constants = json.loads((VECTORS / "constants.json").read_text())
    inputs = [bytes.fromhex(h) for h in constants["leaf_inputs"]]
    roots = [bytes.fromhex(h) for h in constants["root_hashes"]]
    hashes = [merkle.leaf_hash(leaf) for leaf in inputs]
    assert len(roots) == 9
    for size in range(9):
        assert merkle.root(hashes[:size]) == roots[size], size
        assert merkle.tree_root(size, merkle.MemoryHashStore(hashes[:size]).hash_at) == roots[size], size
        assert ref_mth(tuple(inputs[:size])) == roots[size], size
    store = merkle.MemoryHashStore(hashes)
    nodes = {
        (level, index): bytes.fromhex(h)
        for level, row in enumerate(constants["node_hashes"])
        for index, h in enumerate(row)
    }
    assert store.hashes == nodes


# --- Our generator, our verifier and the reference, sizes 1..64 ------------------------------


@pytest.fixture(scope="module")
def store() -> merkle.MemoryHashStore:
    return merkle.MemoryHashStore(merkle.leaf_hash(leaf) for leaf in LEAVES + (b"one more",))


def test_roots_match_the_reference(store: merkle.MemoryHashStore):
    for n in range(MAX_SIZE + 1):
        assert store.root(n) == ref_mth(LEAVES[:n]) == merkle.root([merkle.leaf_hash(x) for x in LEAVES[:n]])


def test_inclusion_proofs_match_the_reference_and_verify(store: merkle.MemoryHashStore):
    count = 0
    for n in range(1, MAX_SIZE + 1):
        root = ref_mth(LEAVES[:n])
        for m in range(n):
            proof = merkle.inclusion_proof(m, n, store.hash_at)
            assert proof == ref_path(m, LEAVES[:n]), (m, n)
            merkle.verify_inclusion(m, n, merkle.leaf_hash(LEAVES[m]), proof, root)
            count += 1
    assert count == MAX_SIZE * (MAX_SIZE + 1) // 2


def test_consistency_proofs_match_the_reference_and_verify(store: merkle.MemoryHashStore):
    count = 0
    for n in range(1, MAX_SIZE + 1):
        for m in range(1, n + 1):
            proof = merkle.consistency_proof(m, n, store.hash_at)
            assert proof == (ref_proof(m, LEAVES[:n]) if m < n else []), (m, n)
            merkle.verify_consistency(m, n, ref_mth(LEAVES[:m]), ref_mth(LEAVES[:n]), proof)
            count += 1
    assert count == MAX_SIZE * (MAX_SIZE + 1) // 2


def _flip(h: bytes, bit: int = 0) -> bytes:
    return bytes([h[0] ^ (1 << bit)]) + h[1:]


def test_mutated_inclusion_proofs_fail(store: merkle.MemoryHashStore):
    failures = 0
    for n in range(1, MAX_SIZE + 1):
        root = store.root(n)
        for m in range(n):
            leaf, proof = merkle.leaf_hash(LEAVES[m]), merkle.inclusion_proof(m, n, store.hash_at)
            bad = [
                (m, n, _flip(leaf), proof, root),
                (m, n, leaf, proof, _flip(root)),
                (m, n, leaf, proof + [root], root),
                (m, n + 1, leaf, proof, store.root(n + 1)),
                (m + 1, n, leaf, proof, root),
                (m ^ 1, n, leaf, proof, root),
            ] + [(m, n, leaf, proof[:i] + [_flip(p)] + proof[i + 1 :], root) for i, p in enumerate(proof)]
            if proof:
                bad.append((m, n, leaf, proof[:-1], root))
            for args in bad:
                with pytest.raises(ProofError):
                    merkle.verify_inclusion(*args)
                failures += 1
    assert failures > 10_000


def test_mutated_consistency_proofs_fail(store: merkle.MemoryHashStore):
    failures = 0
    for n in range(2, MAX_SIZE + 1):
        for m in range(1, n):
            r1, r2, proof = store.root(m), store.root(n), merkle.consistency_proof(m, n, store.hash_at)
            bad = [
                (m, n, _flip(r1), r2, proof),
                (m, n, r1, _flip(r2), proof),
                (m, n, r2, r1, proof),
                (m, n, r1, r2, proof + [r1]),
                (m, n, r1, r2, proof[:-1]),
                (m, n + 1, r1, store.root(n + 1), proof),
                (m + 1, n, store.root(m + 1), r2, proof),
                (0, n, merkle.EMPTY_ROOT, r2, []),
            ] + [(m, n, r1, r2, proof[:i] + [_flip(p)] + proof[i + 1 :]) for i, p in enumerate(proof)]
            for args in bad:
                with pytest.raises(ProofError):
                    merkle.verify_consistency(*args)
                failures += 1
    assert failures > 10_000


# --- O(log n) reads, and appends -----------------------------------------------------------


class CountingHashes:
    """A pretend store of any size: hash_at answers a made-up hash and counts the reads."""

    def __init__(self) -> None:
        self.reads = 0

    def hash_at(self, level: int, index: int) -> bytes:
        self.reads += 1
        return _sha256(b"%d/%d" % (level, index))


@pytest.mark.parametrize("n", [2, 3, 1000, 2**20, 2**20 + 1, 2**40 - 1, 10**15 + 12345])
def test_proofs_read_o_log_n_hashes(n: int):
    limit = 2 * n.bit_length() + 2
    rng = random.Random(n)
    for m in {0, 1, n // 2, n - 1, rng.randrange(n)}:
        hashes = CountingHashes()
        merkle.inclusion_proof(min(m, n - 1), n, hashes.hash_at)
        assert hashes.reads <= limit
        if m:
            hashes = CountingHashes()
            merkle.consistency_proof(m, n, hashes.hash_at)
            assert hashes.reads <= limit
    hashes = CountingHashes()
    merkle.tree_root(n, hashes.hash_at)
    assert hashes.reads == bin(n).count("1")


def test_appends_in_batches_store_every_complete_subtree():
    rng = random.Random(7)
    whole = merkle.MemoryHashStore(merkle.leaf_hash(leaf) for leaf in LEAVES)
    batched = merkle.MemoryHashStore()
    while batched.size < MAX_SIZE:
        batch = LEAVES[batched.size : batched.size + rng.randint(0, 9)]
        reads = CountingReads(batched)
        made = merkle.new_hashes(batched.size, [merkle.leaf_hash(x) for x in batch], reads.hash_at)
        assert reads.reads <= max(batched.size.bit_length(), 1)
        assert [(s.level, s.index) for s in made] == sorted(
            ((s.level, s.index) for s in made), key=lambda key: ((key[1] + 1) << key[0], key[0])
        )
        batched.append(merkle.leaf_hash(x) for x in batch)
    assert batched.hashes == whole.hashes
    for (level, index), h in whole.hashes.items():
        assert h == ref_mth(LEAVES[index << level : (index + 1) << level])
    # every complete subtree, and nothing else
    expected = {(lv, i) for lv in range(7) for i in range(MAX_SIZE >> lv)}
    assert set(whole.hashes) == expected


class CountingReads:
    def __init__(self, store: merkle.MemoryHashStore) -> None:
        self.store, self.reads = store, 0

    def hash_at(self, level: int, index: int) -> bytes:
        self.reads += 1
        return self.store.hash_at(level, index)


def test_bad_arguments_to_the_generator():
    store = merkle.MemoryHashStore([merkle.leaf_hash(b"x")])
    for args in [(1, 1), (-1, 1), (0, 0)]:
        with pytest.raises(ValueError):
            merkle.inclusion_proof(*args, store.hash_at)
    for args in [(0, 1), (2, 1), (-1, 1)]:
        with pytest.raises(ValueError):
            merkle.consistency_proof(*args, store.hash_at)
    with pytest.raises(ValueError):
        merkle.new_hashes(1, [b"short"], store.hash_at)
    assert merkle.consistency_proof(1, 1, store.hash_at) == []


# --- C2SP tlog-tiles -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tile", "path"),
    [
        ((0, 1234067), "tile/0/x001/x234/067"),
        ((0, 0), "tile/0/000"),
        ((1, 999), "tile/1/999"),
        ((2, 1000), "tile/2/x001/000"),
        ((0, 5, 112), "tile/0/005.p/112"),
        ((63, 1, 1), "tile/63/001.p/1"),
        ((3, 1_000_000, 256), "tile/3/x001/x000/000"),
    ],
)
def test_tile_paths(tile: tuple[int, ...], path: str):
    assert merkle.tile_path(*tile) == path
    assert merkle.parse_tile_path(path) == Tile(*tile)


def test_entry_bundle_paths():
    assert merkle.entry_bundle_path(1234067) == "tile/entries/x001/x234/067"
    assert merkle.entry_bundle_path(0, 3) == "tile/entries/000.p/3"


@pytest.mark.parametrize("tile", [(64, 0), (-1, 0), (0, -1), (0, 0, 0), (0, 0, 257)])
def test_bad_tiles(tile: tuple[int, ...]):
    with pytest.raises(ValueError):
        merkle.tile_path(*tile)


@pytest.mark.parametrize(
    "path",
    [
        "tile/0/1",
        "tile/00/000",
        "tile/64/000",
        "tile/0/x000/001",
        "tile/0/001/002",
        "tile/0/000.p/0",
        "tile/0/000.p/256",
        "tile/0/000.p/012",
        "tile/0/000/",
        "/tile/0/000",
        "tile/0/٠٠٠",
    ],
)
def test_bad_tile_paths(path: str):
    with pytest.raises(ValueError):
        merkle.parse_tile_path(path)


def test_the_tiles_of_the_specs_examples():
    tiles = merkle.tiles_for_size(70_000)
    assert [t for t in tiles if t.level == 0 and t.width == 256] == [Tile(0, i) for i in range(273)]
    assert [t for t in tiles if t.width != 256 or t.level] == [
        Tile(0, 273, 112),
        Tile(1, 0),
        Tile(1, 1, 17),
        Tile(2, 0, 1),
    ]
    assert merkle.tiles_for_size(256) == [Tile(0, 0), Tile(1, 0, 1)]
    assert merkle.tiles_for_size(0) == []


def test_changed_tiles_are_the_new_or_wider_ones():
    rng = random.Random(3)
    for _ in range(300):
        old = rng.choice([0, 1, 255, 256, 257, 65535, 65536]) + rng.randrange(600)
        new = old + rng.choice([0, 1, 2, 255, 256, 70_000])
        before = set(merkle.tiles_for_size(old))
        assert merkle.changed_tiles(old, new) == [t for t in merkle.tiles_for_size(new) if t not in before]


def test_hashes_and_proofs_read_from_tiles():
    size = 256 * 256 + 300
    store = merkle.MemoryHashStore(_sha256(b"%d" % i) for i in range(size))
    tiles = {(t.level, t.index): merkle.tile_hashes(t, store.hash_at) for t in merkle.tiles_for_size(size)}
    assert len(tiles[(0, 0)]) == 256 * 32 and len(tiles[(2, 0)]) == 32
    from_tiles = merkle.hash_at_from_tiles(lambda level, index: tiles[(level, index)])
    for level, index in [(0, 0), (0, size - 1), (3, 7), (8, 0), (8, 1), (9, 0), (16, 0), (5, 2049)]:
        assert from_tiles(level, index) == store.hash_at(level, index)
    for n in (1, 255, 256, 257, 65536, size):
        assert merkle.tree_root(n, from_tiles) == store.root(n)
        assert merkle.inclusion_proof(n - 1, size, from_tiles) == merkle.inclusion_proof(
            n - 1, size, store.hash_at
        )
        assert merkle.consistency_proof(n, size, from_tiles) == merkle.consistency_proof(
            n, size, store.hash_at
        )
