"""Bounds of what people send: ids and whole numbers read from text, and dates.

Every id or count that arrives as text (a query parameter, a form field, a cookie, a
JSON value) is read by :func:`parse_id` or :func:`parse_whole_number`, never by
``str.isdigit()`` and ``int()``: ``isdigit()`` is true for digits that ``int()`` refuses
(``"²"``, ``"①"``), and a number thousands of digits long is past what ``int()`` converts
and what the database stores. Only ASCII digits are read, at most :data:`MAX_ID_DIGITS` of
them, so every id fits a 64-bit column.

Every date and time the site accepts lies in ``[EARLIEST_DATE, LATEST_DATE)`` (checked by
:func:`date_problem`): a date in year 1 or 9999 is a typing slip, and any sum made from it
(a start time less the check-in minutes, a round's scheduled start) would leave what
Python's ``datetime`` holds. :func:`shift` adds minutes to a stored date without ever
raising, for rows written before the bound existed.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

#: The most digits an id or whole number read from text may have (ids fit a signed 64-bit column).
MAX_ID_DIGITS = 18
#: The largest id :func:`parse_id` accepts.
MAX_ID = 10**MAX_ID_DIGITS - 1

#: Dates the site accepts: from the first of January 2000 (UTC) ...
EARLIEST_DATE = datetime(2000, 1, 1, tzinfo=UTC)
#: ... up to, not including, the first of January 2100 (UTC).
LATEST_DATE = datetime(2100, 1, 1, tzinfo=UTC)

_ASCII_DIGITS = frozenset("0123456789")


def parse_whole_number(value: Any, *, max_digits: int = MAX_ID_DIGITS) -> int | None:
    """``value`` as a whole number (0 or more), or None when it is not one: text of 1 to
    ``max_digits`` ASCII digits (surrounding spaces ignored), or an ``int`` (not a
    ``bool``) of at most ``max_digits`` digits. Never raises."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 10**max_digits else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text or len(text) > max_digits or not _ASCII_DIGITS.issuperset(text):
        return None
    return int(text)


def parse_id(value: Any) -> int | None:
    """An object id from user input (see :func:`parse_whole_number`), or None. An id
    that names no row is the caller's 404; None is the caller's 400 (or 404)."""
    return parse_whole_number(value, max_digits=MAX_ID_DIGITS)


def date_problem(value: Any, name: str) -> str | None:
    """A message naming ``name`` when ``value`` (a ``datetime``) is outside
    ``[EARLIEST_DATE, LATEST_DATE)``; None when it is inside (or not a datetime)."""
    if not isinstance(value, datetime):
        return None
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if EARLIEST_DATE <= moment < LATEST_DATE:
        return None
    return (f"{name} must be from {EARLIEST_DATE:%Y-%m-%d} to before {LATEST_DATE:%Y-%m-%d} (UTC), "
            f"not {value:%Y-%m-%d}")


def shift(moment: datetime, *, minutes: float = 0, seconds: float = 0) -> datetime:
    """``moment`` plus ``minutes`` and ``seconds``, held at the ends of what ``datetime``
    can hold instead of raising ``OverflowError`` (a row stored with a date far from now)."""
    try:
        return moment + timedelta(minutes=minutes, seconds=seconds)
    except OverflowError:
        extreme = datetime.max if minutes * 60 + seconds > 0 else datetime.min
        return extreme.replace(tzinfo=moment.tzinfo)
