"""Matching query words against the reader's notes (in the marks file), as the index's tokens.

Notes are matched here rather than in the FTS index because the index is disposable and the
notes are not: a rebuild must not be needed to find a note written a second ago.
"""

from __future__ import annotations

import sqlite3

from db.search.query import Query
from db.text import tokens


def note_match(conn: sqlite3.Connection, q: Query, mode: str) -> list[str]:
    """Ids of the papers whose note (in the marks file) has the query's words, as plain text
    (``mode`` "all" or "any" as for the FTS expression); [] quickly when no note has them.

    A note is compared by its index tokens (:func:`db.text.tokens`), as the abstracts are:
    ``multi-task`` and ``GPT-3.5`` find the note that has them, ``Élan`` finds ``elan``.
    """
    if not q.positive:
        return []
    groups: dict[int, list[str]] = {}
    singles: list[str] = []
    for term in q.positive:
        words = " ".join(term.tokens)
        if term.or_group:
            groups.setdefault(term.or_group, []).append(words)
        else:
            singles.append(words)
    wanted = [[w] for w in singles] + list(groups.values())
    combine = all if mode == "all" else any
    return [paper_id for paper_id, said in note_tokens(conn)
            if combine(any(" " + w in said for w in alternatives) for alternatives in wanted)]


_CACHE: dict[str, list[tuple[str, str]]] = {}


def note_tokens(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """``(paper_id, the note's index tokens joined by spaces)`` of every note; kept while the
    notes are the same (every change of a note changes its time), as a search runs at every
    keystroke."""
    key = conn.execute("SELECT count(*) || ':' || coalesce(group_concat(paper_id || updated_at, "
                       "','), '') FROM m.notes").fetchone()[0]
    found = _CACHE.get(key)
    if found is None:
        # a space before every token: a query word matches a note's word or its start
        found = [(paper_id, " " + " ".join(tokens(text)))
                 for paper_id, text in conn.execute("SELECT paper_id, text FROM m.notes")]
        _CACHE.clear()
        _CACHE[key] = found
    return found



def in_a_note(conn: sqlite3.Connection, word: str) -> bool:
    """Whether some note has ``word`` (then it is no typo, though the index lacks it)."""
    return any(word in said for _, said in note_tokens(conn))
