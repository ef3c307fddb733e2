"""Answers kept for the inputs seen last, with a bound on memory: what a pure function made of
inputs up to `most_bytes` is kept (an lru of `items`); bigger inputs are worked out every time,
so `items` times `most_bytes` bounds what a process keeps, whatever the callers send."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any


class SmallLru:
    def __init__(self, function: Callable[..., Any], items: int, most_bytes: int,
                 size: Callable[..., int]) -> None:
        self._function = function
        self._kept = functools.lru_cache(maxsize=items)(function)
        self._most_bytes = most_bytes
        self._size = size
        functools.update_wrapper(self, function)

    def __call__(self, *args: Any) -> Any:
        if self._size(*args) > self._most_bytes:
            return self._function(*args)
        return self._kept(*args)

    def cache_clear(self) -> None:
        self._kept.cache_clear()


def small_lru(items: int, most_bytes: int, size: Callable[..., int]
              ) -> Callable[[Callable[..., Any]], SmallLru]:
    """Decorates a pure function of hashable arguments; `size` tells how big its arguments are."""
    return lambda function: SmallLru(function, items, most_bytes, size)
