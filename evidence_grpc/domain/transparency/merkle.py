"""The Merkle tree of RFC 9162 §2.1 (as RFC 6962): hashes, roots, inclusion and consistency proofs,
and the C2SP tlog-tiles layout of its stored hashes.

A log stores the hash of every *complete* subtree: `hash_at(level, index)` is the hash of the
2**level leaves starting at leaf `index * 2**level` (level 0: the leaf hashes). Roots and proofs of
any tree size are made from those in O(log n) reads; `new_hashes` says which ones an append makes.
C2SP tlog-tiles serves the same hashes in tiles of height 8: tile `(L, N)` holds the hashes at
level `8 * L`, indexes `256 * N` to `256 * N + 255`."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()
TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
MAX_TILE_LEVEL = 63

HashAt = Callable[[int, int], bytes]
"""`hash_at(level, index)`: the stored hash of the complete subtree of 2**level leaves starting at
leaf `index * 2**level`."""


class ProofError(ValueError):
    """A proof, or the roots and sizes it is checked against, do not verify."""


def leaf_hash(leaf: bytes) -> bytes:
    """SHA-256(0x00 ‖ leaf)."""
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 ‖ left ‖ right)."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n > 1)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(hashes: Sequence[bytes]) -> bytes:
    """MTH over leaf hashes (all in memory); the empty tree's is SHA-256 of the empty string."""
    if not hashes:
        return EMPTY_ROOT

    def mth(lo: int, hi: int) -> bytes:
        if hi - lo == 1:
            return hashes[lo]
        k = _split(hi - lo)
        return node_hash(mth(lo, lo + k), mth(lo + k, hi))

    return mth(0, len(hashes))


def _check_size(name: str, value: int) -> None:
    if value < 0:
        raise ValueError(f"{name} must not be negative, got {value}")


def _parts(start: int, end: int) -> list[tuple[int, int]]:
    """(level, index) of the complete subtrees D[start:end] is made of, largest first, for a
    subtree of the RFC's tree (start a multiple of a power of two at least end - start); of
    D[0:size], the frontier of a tree of `size` leaves."""
    keys = []
    position = start
    for level in range((end - start).bit_length() - 1, -1, -1):
        if (end - start) >> level & 1:
            keys.append((level, position >> level))
            position += 1 << level
    return keys


def _range_hash(start: int, end: int, hash_at: HashAt) -> bytes:
    """MTH(D[start:end]) for a subtree of the RFC's tree: its complete parts, folded."""
    return frontier_root([hash_at(level, index) for level, index in _parts(start, end)])


def tree_root(tree_size: int, hash_at: HashAt) -> bytes:
    """The root of the tree's first tree_size leaves, from popcount(tree_size) stored hashes."""
    _check_size("tree_size", tree_size)
    if tree_size == 0:
        return EMPTY_ROOT
    return _range_hash(0, tree_size, hash_at)


def inclusion_proof(index: int, tree_size: int, hash_at: HashAt) -> list[bytes]:
    """PATH(index, D[0:tree_size]) of RFC 9162 §2.1.3.1, leaf side first."""
    if not 0 <= index < tree_size:
        raise ValueError(f"leaf index {index} is not in a tree of size {tree_size}")
    path: list[bytes] = []
    start, end = 0, tree_size
    while end - start > 1:
        k = _split(end - start)
        if index < start + k:
            path.append(_range_hash(start + k, end, hash_at))
            end = start + k
        else:
            path.append(hash_at(k.bit_length() - 1, start // k))
            start += k
    path.reverse()
    return path


def consistency_proof(first: int, second: int, hash_at: HashAt) -> list[bytes]:
    """PROOF(first, D[0:second]) of RFC 9162 §2.1.4.1 (empty when the sizes are equal)."""
    if not 0 < first <= second:
        raise ValueError(f"no consistency proof from size {first} to size {second}")
    proof: list[bytes] = []
    start, end, whole = 0, second, True
    while True:
        n, m = end - start, first - start
        if m == n:
            if not whole:
                proof.append(_range_hash(start, end, hash_at))
            break
        k = _split(n)
        if m <= k:
            proof.append(_range_hash(start + k, end, hash_at))
            end = start + k
        else:
            proof.append(hash_at(k.bit_length() - 1, start // k))
            start += k
            whole = False
    proof.reverse()
    return proof


def _check_hash(what: str, value: bytes) -> None:
    if len(value) != HASH_SIZE:
        raise ProofError(f"{what} has {len(value)} bytes, not {HASH_SIZE}")


def verify_inclusion(
    index: int, tree_size: int, leaf_hash: bytes, proof: Sequence[bytes], root: bytes
) -> None:
    """RFC 9162 §2.1.3.2; raises ProofError unless the proof puts leaf_hash at index of the tree."""
    if index < 0 or index >= tree_size:
        raise ProofError(f"leaf index {index} is not in a tree of size {tree_size}")
    _check_hash("the leaf hash", leaf_hash)
    fn, sn, r = index, tree_size - 1, leaf_hash
    for position, p in enumerate(proof):
        _check_hash(f"proof hash {position}", p)
        if sn == 0:
            raise ProofError(f"the inclusion proof is too long: {len(proof)} hashes")
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"the inclusion proof is too short: {len(proof)} hashes")
    if r != root:
        raise ProofError(f"the inclusion proof leads to root {r.hex()}, not {root.hex()}")


def verify_consistency(
    first: int, second: int, first_root: bytes, second_root: bytes, proof: Sequence[bytes]
) -> None:
    """RFC 9162 §2.1.4.2; raises ProofError unless the tree of size first is a prefix of the tree of
    size second. Equal sizes need an empty proof and equal roots; any proof from the empty tree is
    refused, as transparency-dev/merkle does (RFC 9162 defines proofs for 0 < first < second)."""
    if first < 0 or second < first:
        raise ProofError(f"no consistency from size {first} to size {second}")
    if first == 0:
        raise ProofError("a consistency proof from the empty tree is meaningless")
    if first == second:
        if proof:
            raise ProofError(f"equal sizes ({first}) need an empty proof, got {len(proof)} hashes")
        if first_root != second_root:
            raise ProofError(f"equal sizes ({first}) but different roots")
        return
    if not proof:
        raise ProofError("the consistency proof is empty")
    for position, c in enumerate(proof):
        _check_hash(f"proof hash {position}", c)
    path = list(proof)
    if first & (first - 1) == 0:
        path.insert(0, first_root)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            raise ProofError(f"the consistency proof is too long: {len(proof)} hashes")
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while fn and not fn & 1:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise ProofError(f"the consistency proof is too short: {len(proof)} hashes")
    if fr != first_root:
        raise ProofError(f"the consistency proof leads to first root {fr.hex()}, not {first_root.hex()}")
    if sr != second_root:
        raise ProofError(f"the consistency proof leads to second root {sr.hex()}, not {second_root.hex()}")


@dataclass(frozen=True)
class StoredHash:
    """A complete subtree's hash, as a log stores it: `(level, index) -> hash`."""

    level: int
    index: int
    hash: bytes


def new_hashes(existing_size: int, leaf_hashes: Iterable[bytes], hash_at: HashAt) -> list[StoredHash]:
    """The hashes that become complete when leaf_hashes are appended to a tree of existing_size
    leaves: each leaf's, then every subtree it closes, in order (parents after their children).
    Reads from hash_at only the existing tree's frontier (one hash per 1 bit of its size)."""
    _check_size("existing_size", existing_size)
    frontier = [hash_at(level, index) for level, index in _parts(0, existing_size)]
    out: list[StoredHash] = []
    for number, h in enumerate(leaf_hashes, existing_size):
        if len(h) != HASH_SIZE:
            raise ValueError(f"a leaf hash has {len(h)} bytes, not {HASH_SIZE}")
        out += [StoredHash(level, index, value) for (level, index), value in
                zip(closed_by(number), append_leaf(frontier, number, h), strict=True)]
    return out


def closed_by(number: int) -> list[tuple[int, int]]:
    """The (level, index) of the subtrees leaf `number` completes, level 0 (its own) first:
    one for each trailing 1 bit of `number`, and one more. The hash of (level, index) is made by
    leaf `((index + 1) << level) - 1`, at position `level` of what `append_leaf` answers it."""
    closed = [(0, number)]
    while number & 1:
        number >>= 1
        closed.append((len(closed), number))
    return closed


def maker_of(level: int, index: int) -> int:
    """The leaf whose append completes the subtree (level, index) (see closed_by)."""
    return ((index + 1) << level) - 1


def append_leaf(frontier: list[bytes], number: int, leaf_hash: bytes) -> list[bytes]:
    """Append leaf `number` (the tree's size) to a tree given by its `frontier`, the hashes of
    the complete subtrees along its right edge, largest first (one per 1 bit of the size): the
    frontier becomes the next one's, and the answer is the hashes the leaf completes, level 0
    first (closed_by). The siblings it needs are the frontier's last entries, so an append
    reads nothing else."""
    made = [leaf_hash]
    h = leaf_hash
    while number & 1:
        h = node_hash(frontier.pop(), h)
        made.append(h)
        number >>= 1
    frontier.append(h)
    return made


def frontier_root(frontier: Sequence[bytes]) -> bytes:
    """The root of the tree whose frontier this is."""
    if not frontier:
        return EMPTY_ROOT
    h = frontier[-1]
    for left in reversed(frontier[:-1]):
        h = node_hash(left, h)
    return h


class MemoryHashStore:
    """The stored hashes of a log, in a dict; for tests and for building trees in memory."""

    def __init__(self, leaf_hashes: Iterable[bytes] = ()) -> None:
        self.hashes: dict[tuple[int, int], bytes] = {}
        self.size = 0
        self.append(leaf_hashes)

    def hash_at(self, level: int, index: int) -> bytes:
        return self.hashes[(level, index)]

    def append(self, leaf_hashes: Iterable[bytes]) -> list[StoredHash]:
        """Adds the leaves; answers the hashes made (see new_hashes)."""
        leaves = list(leaf_hashes)
        made = new_hashes(self.size, leaves, self.hash_at)
        for stored in made:
            self.hashes[(stored.level, stored.index)] = stored.hash
        self.size += len(leaves)
        return made

    def root(self, tree_size: int | None = None) -> bytes:
        return tree_root(self.size if tree_size is None else tree_size, self.hash_at)


# C2SP tlog-tiles.


@dataclass(frozen=True)
class Tile:
    """Tile `index` of tile level `level` (Merkle level 8 * level), `width` hashes wide (256: full)."""

    level: int
    index: int
    width: int = TILE_WIDTH


def _encode_index(index: int) -> str:
    if index < 0:
        raise ValueError(f"a tile index must not be negative, got {index}")
    digits = str(index)
    digits = digits.zfill(-(-len(digits) // 3) * 3)
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    return "/".join([f"x{group}" for group in groups[:-1]] + groups[-1:])


def _width_suffix(width: int) -> str:
    if not 1 <= width <= TILE_WIDTH:
        raise ValueError(f"a tile is 1 to {TILE_WIDTH} hashes wide, got {width}")
    return "" if width == TILE_WIDTH else f".p/{width}"


def tile_path(level: int, index: int, width: int = TILE_WIDTH) -> str:
    """`tile/<L>/<N>[.p/<W>]`, N in 3-digit groups (1234067: `x001/x234/067`)."""
    if not 0 <= level <= MAX_TILE_LEVEL:
        raise ValueError(f"a tile level is 0 to {MAX_TILE_LEVEL}, got {level}")
    return f"tile/{level}/{_encode_index(index)}{_width_suffix(width)}"


def entry_bundle_path(index: int, width: int = TILE_WIDTH) -> str:
    """`tile/entries/<N>[.p/<W>]`: the leaves of level-0 tile N."""
    return f"tile/entries/{_encode_index(index)}{_width_suffix(width)}"


_TILE_PATH = re.compile(r"tile/(0|[1-9][0-9]?)/((?:x[0-9]{3}/)*[0-9]{3})(?:\.p/([1-9][0-9]{0,2}))?", re.ASCII)


def parse_tile_path(path: str) -> Tile:
    """The tile a `tile/<L>/<N>[.p/<W>]` path names; ValueError for anything not written by
    tile_path (leading zeros, levels above 63, widths outside 1..255)."""
    match = _TILE_PATH.fullmatch(path)
    if match is None:
        raise ValueError(f"not a tile path: {path!r}")
    level = int(match[1])
    index = int(match[2].replace("x", "").replace("/", ""))
    width = TILE_WIDTH if match[3] is None else int(match[3])
    if tile_path(level, index, width) != path:
        raise ValueError(f"not a canonical tile path: {path!r}")
    return Tile(level, index, width)


def tile_hashes(tile: Tile, hash_at: HashAt) -> bytes:
    """A tile's content: its hashes, concatenated."""
    first = tile.index * TILE_WIDTH
    return b"".join(hash_at(tile.level * TILE_HEIGHT, first + i) for i in range(tile.width))


def changed_tiles(old_size: int, new_size: int) -> list[Tile]:
    """The tiles (full or partial, at their new width) that a tree growing from old_size to
    new_size leaves creates or widens: what a log publishes after the append."""
    _check_size("old_size", old_size)
    if new_size < old_size:
        raise ValueError(f"a tree does not shrink from {old_size} to {new_size}")
    tiles: list[Tile] = []
    level = 0
    while True:
        shift = level * TILE_HEIGHT
        before, after = old_size >> shift, new_size >> shift
        if after == before:
            return tiles
        for index in range(before // TILE_WIDTH, (after - 1) // TILE_WIDTH + 1):
            tiles.append(Tile(level, index, min(TILE_WIDTH, after - index * TILE_WIDTH)))
        level += 1


def tiles_for_size(tree_size: int) -> list[Tile]:
    """Every tile of a tree of tree_size leaves (full ones, then the partial one, by level)."""
    return changed_tiles(0, tree_size)


@dataclass(frozen=True)
class TileSpan:
    """Where a stored hash lives in the tiles: the hashes `offset` to `offset + count - 1` of
    `tile` (a partial tile of at least offset + count hashes will do), whose MTH it is."""

    tile: Tile
    offset: int
    count: int


def tile_span(level: int, index: int) -> TileSpan:
    """The tile hashes the stored hash `(level, index)` is made of."""
    tile_level, height = divmod(level, TILE_HEIGHT)
    first = index << height
    return TileSpan(Tile(tile_level, first // TILE_WIDTH), first % TILE_WIDTH, 1 << height)


def hash_from_tile(tile_data: bytes, level: int, index: int) -> bytes:
    """The stored hash `(level, index)` from the content of the tile tile_span names."""
    span = tile_span(level, index)
    if len(tile_data) % HASH_SIZE or len(tile_data) < (span.offset + span.count) * HASH_SIZE:
        raise ValueError(f"the tile holds {len(tile_data)} bytes, too few for hash ({level}, {index})")
    hashes = [
        tile_data[i * HASH_SIZE : (i + 1) * HASH_SIZE] for i in range(span.offset, span.offset + span.count)
    ]
    return root(hashes)


def hash_at_from_tiles(read_tile: Callable[[int, int], bytes]) -> HashAt:
    """A hash_at over tiles: `read_tile(level, index)` answers a tile's content (full, or the
    widest partial one stored). Uncached: wrap read_tile to cache."""

    def hash_at(level: int, index: int) -> bytes:
        span = tile_span(level, index)
        return hash_from_tile(read_tile(span.tile.level, span.tile.index), level, index)

    return hash_at
