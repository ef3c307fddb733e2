"""Page-numbered listing shared by the list endpoints."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import peewee

from .errors import validation_error
from .numbers import clamped_whole_number

MAX_PER_PAGE = 100
# The last page a web page asks for: past any real list, and page * per_page stays within an
# int32 (the API's page fields).
MAX_PAGE = 1_000_000


@dataclasses.dataclass(frozen=True)
class Page:
    number: int
    size: int | None  # None: every item, in one page
    requested: bool  # the caller asked for paging (page or per_page given)

    def apply(self, query: peewee.Select, run: Callable[[peewee.Select], list] = list
              ) -> tuple[list, dict[str, int]]:
        """Rows of this page (`run` runs the page's query) and the pagination object
        {total, page, per_page, page_count}."""
        if self.size is None:
            rows = run(query)
            return rows, {"total": len(rows), "page": 1, "per_page": max(1, len(rows)),
                          "page_count": 1}
        return run(query.paginate(self.number, self.size)), self.pagination(query.count())

    @property
    def offset(self) -> int:
        return (self.number - 1) * (self.size or 0)

    def pagination(self, total: int) -> dict[str, int]:
        """{total, page, per_page, page_count} of this page of a list of `total` items."""
        size = self.size or max(1, total)
        return {"total": total, "page": self.number, "per_page": size,
                "page_count": max(1, math.ceil(total / size))}

    def numbered(self, low: int, high: int, ascending: bool = False) -> range:
        """The numbers this page holds of a list whose items are numbered `low`..`high` without
        a gap (an environment's snapshot indexes, a flow's approval numbers), in the page's
        order: highest first unless `ascending`. A page is then picked by a range of numbers,
        the same cost at any depth, where an OFFSET walks every item before it. Empty past
        the end."""
        size = high - low + 1 if self.size is None else self.size
        if ascending:
            first = low + self.offset
            return range(first, min(high, first + size - 1) + 1)
        first = high - self.offset
        return range(first, max(low, first - size + 1) - 1, -1)

    def slice(self, rows: list) -> tuple[list, dict[str, int]]:
        """This page of rows already listed and filtered in Python, with the pagination of the
        runtime lists (`counted`)."""
        start = (self.number - 1) * (self.size or 0)
        page = rows if self.size is None else rows[start:start + self.size]
        return page, counted(self, len(rows))


def page_of(page: int | None, per_page: int | None, default_size: int = 20,
            maximum: int = MAX_PER_PAGE, size_field: str = "per_page", *,
            whole_when_unpaged: bool = False) -> Page:
    """The page asked for. `default_size` applies when only `page` is given, and to an unpaged
    request unless `whole_when_unpaged`: then it lists every item (lists whose contract has no
    default page size, which the CLI reads unpaged and expects whole)."""
    number = 1 if page is None else page
    size = default_size if per_page is None else per_page
    if number < 1:
        raise validation_error("page", "Must be 1 or more")
    if not 1 <= size <= maximum:
        raise validation_error(size_field, f"Must be between 1 and {maximum}")
    requested = page is not None or per_page is not None
    return Page(number, size if requested or not whole_when_unpaged else None, requested)


def page_asked(text: str | None) -> int:
    """The page a web page's query string asks for (`?page=`), clamped: ASCII digits within
    1..MAX_PAGE (0 is 1, beyond is MAX_PAGE), anything else page 1. The pages show a list
    whatever the query string holds; the API refuses what its page fields cannot hold."""
    return clamped_whole_number(text or "", 1, MAX_PAGE, 1)


def counted(paging: Page, total: int) -> dict[str, int]:
    """{page, per_page, total_count, total_pages}: the pagination of the runtime lists."""
    size = paging.size or max(1, total)
    return {"page": paging.number, "per_page": size, "total_count": total,
            "total_pages": max(1, math.ceil(total / size))}


def in_time_range(query: peewee.Select, field: peewee.Field, start: float | None,
                  end: float | None) -> peewee.Select:
    """`query` kept to rows whose `field` (a time) is within [start, end]; None: unbounded."""
    if start is not None:
        query = query.where(field >= start)
    if end is not None:
        query = query.where(field <= end)
    return query
