"""Answers kept for the inputs seen last, with a bound on memory. `small_lru`: what a pure
function made of inputs up to `most_bytes` is kept (an lru of `items`); bigger inputs are worked
out every time, so `items` times `most_bytes` bounds what a process keeps, whatever the callers
send. `BytesLru` and `bytes_lru`: bounded by the total bytes kept, for answers whose size varies
widely (parsed documents of up to 1 MiB); `Share`, what one answer may add to one."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class SmallLru:
    """The inputs' size is worked out only when their answer is not kept: on a hot read the
    lookup is all it costs.

    No lock: each OrderedDict operation is atomic under the GIL, and what two threads can do
    between them (both make an answer, evict one too many, find a key evicted by the other)
    only costs an answer made again."""

    def __init__(self, function: Callable[..., Any], items: int, most_bytes: int,
                 size: Callable[..., int]) -> None:
        self._function = function
        self._kept: OrderedDict[tuple, Any] = OrderedDict()
        self._items = items
        self._most_bytes = most_bytes
        self._size = size
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any) -> Any:
        kept = self._kept
        try:
            answer = kept[args]
            kept.move_to_end(args)
            return answer
        except KeyError:
            pass
        answer = self._function(*args)
        if self._size(*args) <= self._most_bytes:
            kept[args] = answer
            if len(kept) > self._items:
                try:
                    kept.popitem(last=False)
                except KeyError:  # another thread emptied it first
                    pass
        return answer

    def cache_clear(self) -> None:
        self._kept.clear()


def small_lru(items: int, most_bytes: int, size: Callable[..., int]
              ) -> Callable[[Callable[..., Any]], SmallLru]:
    """Decorates a pure function of hashable arguments; `size` tells how big its arguments are."""
    return lambda function: SmallLru(function, items, most_bytes, size)


class BytesLru:
    """Values by key, least recently used first out, bounded by the bytes of what is kept (the
    size each `put` declares: a parsed document is proportional to its text). A value bigger
    than the whole bound is not kept: it would push everything else out and then itself.
    Each entry notes when it was last read or put (a count of reads and puts), so that one
    answer's items can be kept without pushing out each other (`Share`)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        self.clock = 0
        # each entry: [value, size, when last read or put], its time set in place (a new
        # tuple would hash the key once more on every read)
        self._entries: OrderedDict[Hashable, list[Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self.clock += 1
            entry[2] = self.clock
            self._entries.move_to_end(key)
            return entry[0]

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.bytes = 0

    def put(self, key: Hashable, value: Any, size: int, sparing: int | None = None) -> None:
        """Keeps `value`, pushing out the entries read last longest ago; with `sparing`, only
        if none of them was read or put since that time (else nothing changes)."""
        with self._lock:
            if key in self._entries or size > self.max_bytes:
                return
            if sparing is not None and not self._room_sparing(size, sparing):
                return
            self.clock += 1
            self._entries[key] = [value, size, self.clock]
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, evicted, _) = self._entries.popitem(last=False)
                self.bytes -= evicted

    def _room_sparing(self, size: int, since: int) -> bool:
        needed = self.bytes + size - self.max_bytes
        for _, kept_size, read in self._entries.values():  # read last longest ago first
            if needed <= 0:
                break
            if read > since:
                return False
            needed -= kept_size
        return True


class Share:
    """What one answer (a list of many items) adds to a BytesLru: at most half its bound, and
    never by pushing out what the answer itself read or kept. A list longer than the cache
    would otherwise push out all that is kept, the answers read most too, and then its own
    items: read again, it would find none of them (each pushed out by the ones after it, the
    way a list read in a loop defeats "last read, first out"). Read again, it finds those it
    kept; past its share, its items are made and not kept."""

    def __init__(self, kept: BytesLru) -> None:
        self.kept = kept
        self.left = kept.max_bytes // 2
        self.since = kept.clock

    def put(self, key: Hashable, value: Any, size: int) -> None:
        if size <= self.left:
            self.left -= size
            self.kept.put(key, value, size, sparing=self.since)


class BytesLruFunction:
    """A pure function of hashable arguments whose answers a BytesLru keeps, each counted as
    `size(*args)` bytes."""

    def __init__(self, function: Callable[..., Any], max_bytes: int,
                 size: Callable[..., int]) -> None:
        self._function = function
        self._size = size
        self.kept = BytesLru(max_bytes)
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any) -> Any:
        answer = self.kept.get(args)
        if answer is None:
            answer = self._function(*args)
            self.kept.put(args, answer, self._size(*args))
        return answer

    def cache_clear(self) -> None:
        self.kept.clear()


def bytes_lru(max_bytes: int, size: Callable[..., int]
              ) -> Callable[[Callable[..., Any]], BytesLruFunction]:
    """Decorates a pure function (whose answers are never None) of hashable arguments; `size`
    tells how many bytes its answer for them counts against `max_bytes`."""
    return lambda function: BytesLruFunction(function, max_bytes, size)
