"""Filters on a paper's fields from structured seeds: ``year:``, ``venue:``, ``track:``,
``decision:``, ``kw:`` and ``area:`` (docs/search.md).

``year:2024``, ``year:>=2023`` (also ``>``, ``<=``, ``<``) and ``year:2020..2023`` compare
numbers; the other keys match text: the field holds the value, case aside (``track:datasets``
finds "Datasets and Benchmarks"; ``kw:`` any one keyword). ``-KEY:VALUE`` excludes; a paper that
has no such field is not excluded. A paper's year and venue are its record's, else those of its
collection label ("ICML 2025" from a text seed's header), as exports read them.

A filter on a field that no paper of the library has would find nothing: it is dropped with a
one-line notice instead (:func:`drop_absent`).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

#: The filter keys of this module and the field each reads; ``status:`` is the venue's decision
#: ("Oral", "Spotlight", "Poster") as paper lists name it, like ``decision:``.
FIELD_KEYS = {"year": "year", "venue": "venue", "track": "track", "decision": "decision",
              "status": "decision", "kw": "keywords", "area": "area"}

#: SQL of each field over ``papers p``: NULL where the paper does not have it
_YEAR_SQL = ("coalesce(p.year, CASE WHEN p.collection GLOB '* [12][0-9][0-9][0-9]' "
             "THEN CAST(substr(p.collection, -4) AS INTEGER) END)")
_FIELD_SQL = {
    "year": _YEAR_SQL,
    "venue": "coalesce(p.venue, nullif(p.collection, ''))",
    "track": "json_extract(p.details, '$.track')",
    "decision": "json_extract(p.details, '$.decision')",
    "area": "json_extract(p.details, '$.area')",
    "keywords": "json_extract(p.details, '$.keywords')",
}
_YEAR_RE = re.compile(r"(?P<op>>=|<=|>|<|=)?(?P<a>\d{4})|(?P<c>\d{4})(?:\.\.|-)(?P<b>\d{4})")


@dataclass(frozen=True, slots=True)
class FieldFilter:
    """One ``KEY:VALUE`` on a field: ``field`` (a value of :data:`FIELD_KEYS`), as typed
    (``typed``, for notices and the effective query: the value in quotes when it has a space),
    and whether it excludes."""

    field: str
    typed: str
    value: str
    negated: bool = False

    def sql(self) -> tuple[str, list]:
        """The clause over ``papers p`` and its parameters; an excluding filter keeps the
        papers without the field."""
        column = _FIELD_SQL[self.field]
        if self.field == "year":
            clause, params = _year_clause(column, self.value)
        elif self.field == "keywords":
            clause = ("EXISTS (SELECT 1 FROM json_each(p.details, '$.keywords') "
                      "WHERE value LIKE ? ESCAPE '\\')")
            params = [_like(self.value)]
        else:
            clause, params = f"{column} LIKE ? ESCAPE '\\'", [_like(self.value)]
        return (f"NOT coalesce({clause}, 0)" if self.negated else clause), params


def parse_field(key: str, value: str, negated: bool) -> FieldFilter | str:
    """The filter ``KEY:VALUE`` (``key`` in :data:`FIELD_KEYS`), or the notice saying why it is
    ignored (an empty value, a year that is none)."""
    shown = f'"{value}"' if any(c.isspace() for c in value) else value
    typed = f"{'-' if negated else ''}{key}:{shown}"
    field = FIELD_KEYS[key]
    if not value:
        return f"{key}: names nothing; ignored (like {key}:{_EXAMPLES[field]})"
    if field == "year":
        found = _YEAR_RE.fullmatch(value.replace(" ", ""))
        if not found:
            return f"{key}:{value} is no year; ignored (like year:2024, year:>=2023, " \
                   "year:2020..2023)"
        value = found.group(0)
    return FieldFilter(field, typed, value, negated)


def drop_absent(conn: sqlite3.Connection, filters: list[FieldFilter]) -> list[str]:
    """Remove from ``filters`` (in place) those on a field that no paper has, and say so in one
    notice each: "no paper here has a track: track:main ignored"."""
    notices = []
    for field in dict.fromkeys(f.field for f in filters):
        if conn.execute(f"SELECT EXISTS (SELECT 1 FROM papers p WHERE {_FIELD_SQL[field]} "
                        "IS NOT NULL)").fetchone()[0]:
            continue
        gone = [f for f in filters if f.field == field]
        filters[:] = [f for f in filters if f.field != field]
        notices.append(f"no paper here has {_NAMES[field]}: "
                       f"{' '.join(f.typed for f in gone)} ignored")
    return notices


def drop_authorless(conn: sqlite3.Connection, authors: list) -> list[str]:
    """Empty ``authors`` (the ``au:`` terms, :class:`db.search.terms.Term`) when no paper has
    authors (text seeds have none), with a notice as :func:`drop_absent` gives."""
    if not authors or conn.execute(
            "SELECT EXISTS (SELECT 1 FROM papers WHERE authors IS NOT NULL)").fetchone()[0]:
        return []
    typed = " ".join(("-au:" if t.negated else "au:") + "_".join(t.tokens) for t in authors)
    authors.clear()
    return [f"no paper here has authors: {typed} ignored"]


def _year_clause(column: str, value: str) -> tuple[str, list]:
    found = _YEAR_RE.fullmatch(value)
    assert found is not None  # (parse_field checked it)
    if found.group("b"):
        low, high = sorted((int(found.group("c")), int(found.group("b"))))
        return f"{column} BETWEEN ? AND ?", [low, high]
    return f"{column} {found.group('op') or '='} ?", [int(found.group("a"))]


def _like(value: str) -> str:
    """A LIKE pattern for text holding ``value`` (its ``%``, ``_`` and ``\\`` literal)."""
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


_NAMES = {"year": "a year", "venue": "a venue", "track": "a track", "decision": "a decision "
          "(oral, spotlight, poster)", "area": "an area", "keywords": "keywords"}
_EXAMPLES = {"year": "2024", "venue": "icml", "track": "main", "decision": "oral",
             "area": "theory", "keywords": "robustness"}
