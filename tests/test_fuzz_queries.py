"""The query language fuzzed over the API: any text is a query, answered within a second.

``Library.search`` gets random and hostile queries (syntax, Unicode, control characters,
enormous strings) with every status, limit, offset and typing mode: it returns a result, or
raises the documented one-line :class:`~db.errors.LibraryError`, and answers within
:data:`~tests.fuzz_support.QUERY_LIMIT_S` (here at the shipped seeds; ``scripts/fuzz.py
--corpus`` checks it at 87k papers).
"""

from __future__ import annotations

from hypothesis import given

from db import Library
from tests.fuzz_support import Search, check_query, in_the_suite, searches


@in_the_suite(400)
@given(searches())
def test_any_query_is_answered_within_a_second(shipped_library: Library, search: Search) -> None:
    check_query(shipped_library, search)
