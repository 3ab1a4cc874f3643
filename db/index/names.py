"""The names the results table shows: a paper's derived name, unless the library shares it.

A text seed has no titles, so a paper is known by the name its abstract gives
(:func:`db.seeds.derive.method_name`, kept in ``papers.derived_name``). A name that several
papers of one library derive (case-folded: "SCAN" and "Scan") tells none of them apart, and is
often a tool they all use rather than a method they introduce: those papers show no name
(``papers.name`` NULL), so the table shows their headline. Only papers without a title count:
a title is shown instead of any name.

The derived name stays searchable: the full-text index and the vocabulary hold
``derived_name`` (weighted as a name in bm25), so a paper ranks the same for its name however
many other papers of the library share it, and hiding or showing a name rewrites no full-text
row. ``name`` is what is shown and sorted by, and what marks keep as a label.
"""

from __future__ import annotations

import sqlite3
from collections import Counter


def hide_shared_names(conn: sqlite3.Connection) -> int:
    """Set ``papers.name`` of every paper without a title: its ``derived_name``, or NULL where
    another such paper derives the same name (case-folded). Returns how many rows changed.

    Runs at the end of every sync that wrote papers, in its write transaction, over the whole
    library: a paper added, edited or removed anywhere can make another paper's name shared or
    unique again. It reads the partial index ``papers_derived_name`` alone (87k abstracts:
    ~20k entries, a few ms) and writes only the rows whose shown name changes.
    """
    rows = conn.execute(
        "SELECT rowid, derived_name, name FROM papers INDEXED BY papers_derived_name "
        "WHERE derived_name IS NOT NULL AND title IS NULL").fetchall()
    counts = Counter(derived.casefold() for _rowid, derived, _name in rows)
    changes = []
    for rowid, derived, name in rows:
        shown = derived if counts[derived.casefold()] == 1 else None
        if shown != name:
            changes.append((shown, rowid))
    conn.executemany("UPDATE papers SET name = ? WHERE rowid = ?", changes)
    return len(changes)
