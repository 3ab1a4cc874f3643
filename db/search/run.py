"""A search, stage by stage: parse → rewrite → match → rank → result.

Each stage is one module, called once, in this order; each takes what the one before gave:

1. :mod:`db.search.query` parses the text into a :class:`~db.search.query.Query` (no input is
   an error: user text never reaches FTS5 MATCH unquoted);
2. :mod:`db.search.rewrite` rewrites it against the index: typo corrections, method names
   typed without their punctuation, compounds, irregular plurals, a prefix's words;
   then :mod:`db.search.acronyms` gives a short form its long forms and a long form its short
   form (after the corrections: a long form typed with a typo is one too);
3. :mod:`db.search.match` finds what its words and filters match;
4. :mod:`db.search.rank` orders the matches and takes one page (bm25, or the re-ranking of
   partial matches and title-like queries);
5. :mod:`db.search.hits` makes the page's rows into hits and the result.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable

from db.models import SearchResult
from db.search import rank as ranking
from db.search.acronyms import expand
from db.search.hits import result
from db.search.match import match
from db.search.query import parse
from db.search.rank import rank
from db.search.rewrite import rewrite
from db.search.spelling import Vocabulary


def run(conn: sqlite3.Connection, text: str, status: str | None, limit: int, offset: int,
        vocabulary: Callable[[], Vocabulary], typing: bool = False,
        hidden: bool = False, sort: str = "relevance",
        beside: ranking.Beside | None = None) -> SearchResult:
    """Search; see :meth:`db.Library.search`. ``vocabulary()`` returns the index's
    :class:`~db.search.spelling.Vocabulary` (loaded once, when a word needs correcting);
    ``beside`` runs a count on another connection while this one ranks
    (:data:`db.search.rank.Beside`)."""
    q = parse(text, typing=typing, status=status)
    notices = [*q.notices, *rewrite(conn, q, vocabulary, text), *expand(conn, q)]
    matches = match(conn, q, limit + offset, ranked=sort == "relevance")
    total, rows, notice = rank(conn, q, matches, limit, offset, sort, beside)
    found = result(conn, text, q, total, rows, [*notices, notice], sort)
    if not hidden or status in (None, "all") or not text.strip():
        return found
    # the same query with no status filter, counted only: how many hits the filter hides
    every = run(conn, text, None, 0, 0, vocabulary, typing, beside=beside)
    return dataclasses.replace(found, hidden=max(0, every.total - found.total))


def hit_set(conn: sqlite3.Connection, text: str, status: str | None,
            vocabulary: Callable[[], Vocabulary], reader_filters: bool = True
            ) -> ranking.HitSet:
    """The papers a search of ``text`` (typed: its last word a prefix) lists, in any order
    (:class:`db.search.rank.HitSet`: SQL conditions on ``papers p`` and its mark ``k`` with
    their parameters, and its size when matching counted it). The query is parsed and
    rewritten as :func:`run` does; not for ``like:`` queries (:mod:`db.search.similar`).
    ``reader_filters`` False leaves out what the reader's own marks decide (``status``,
    ``is:``, ``-is:``, ``tag:``, ``-tag:``): the papers the text finds whatever their status."""
    q = parse(text, typing=True, status=status if reader_filters else None)
    if not reader_filters:
        q.status, q.more_status, q.not_status, q.tags, q.not_tags = None, [], [], [], []
    rewrite(conn, q, vocabulary, text)
    expand(conn, q)
    return ranking.hit_sets(conn, q, match(conn, q, 0, ranked=False))
