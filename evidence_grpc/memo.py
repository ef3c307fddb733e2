"""Answers kept for the inputs seen last, with a bound on memory: what a pure function made of
inputs up to `most_bytes` is kept (an lru of `items`); bigger inputs are worked out every time,
so `items` times `most_bytes` bounds what a process keeps, whatever the callers send."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
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
