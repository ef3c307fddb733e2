"""Page-numbered listing shared by the list endpoints."""

from __future__ import annotations

import dataclasses
import math

import peewee

from .errors import validation_error

MAX_PER_PAGE = 100


@dataclasses.dataclass(frozen=True)
class Page:
    number: int
    size: int
    requested: bool  # the caller asked for paging (page or per_page given)

    def apply(self, query: peewee.Select) -> tuple[list, dict[str, int]]:
        """Rows of this page and the pagination object {total, page, per_page, page_count}."""
        total = query.count()
        rows = list(query.paginate(self.number, self.size))
        return rows, {"total": total, "page": self.number, "per_page": self.size,
                      "page_count": max(1, math.ceil(total / self.size))}


def page_of(page: int | None, per_page: int | None, default_size: int = 20,
            maximum: int = MAX_PER_PAGE, size_field: str = "per_page") -> Page:
    number = 1 if page is None else page
    size = default_size if per_page is None else per_page
    if number < 1:
        raise validation_error("page", "Must be 1 or more")
    if not 1 <= size <= maximum:
        raise validation_error(size_field, f"Must be between 1 and {maximum}")
    return Page(number, size, page is not None or per_page is not None)


def counted(paging: Page, total: int) -> dict[str, int]:
    """{page, per_page, total_count, total_pages}: the pagination of the runtime lists."""
    return {"page": paging.number, "per_page": paging.size, "total_count": total,
            "total_pages": max(1, math.ceil(total / paging.size))}
