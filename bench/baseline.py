"""Plain-SQLite baselines for the benchmark: what FTS5 alone costs on the same seed files.

``python bench/baseline.py build SEEDS DB`` reads the seed files (header line, blank-line separated
paragraphs), inserts the abstracts into a table and builds an external-content FTS5 index with the
same tokenizer as papertray's, then rebuilds it once: the cost floor of any FTS5 library.
``python bench/baseline.py open DB`` opens that index and counts its rows: a warm start's floor.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

TOKENIZE = "porter unicode61 remove_diacritics 2"


def read_abstracts(seeds: Path) -> list[str]:
    """The abstracts of every seed file under ``seeds``, files in name order."""
    return [a for f in sorted(seeds.rglob("*.txt")) for a in read_abstracts_of(f)]


def read_abstracts_of(path: Path) -> list[str]:
    """One seed file's abstracts: paragraphs after the header line, whitespace folded."""
    text = path.read_text(encoding="utf-8", errors="replace").strip()
    paragraphs = re.split(r"\n\s*\n", text)
    return [" ".join(p.split()) for p in paragraphs[1:] if p.strip()]


def build(seeds: Path, db: Path) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE docs(rowid INTEGER PRIMARY KEY, abstract TEXT)")
    conn.execute(f"CREATE VIRTUAL TABLE docs_fts USING fts5(abstract, content='docs', "
                 f"content_rowid='rowid', tokenize='{TOKENIZE}')")
    conn.executemany("INSERT INTO docs(abstract) VALUES (?)", [(a,) for a in read_abstracts(seeds)])
    conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('rebuild')")
    conn.execute("COMMIT")
    conn.close()


def search(conn: sqlite3.Connection, words: list[str], limit: int = 200) -> list[tuple[int, str]]:
    """A plain bm25 query (all words, each quoted, the last one a prefix) and what a table shows
    of its hits: ``(rowid, the abstract's first 80 characters)``, best first.

    The rows are part of the baseline because ``Library.search``, measured against it, returns
    hits a table can show (names, headlines, statuses, sources), not bare rowids; the bare app
    of ``bench/browser.py`` shows these rows.
    """
    expr = " AND ".join(f'"{w}"' for w in words[:-1]) + (" AND " if len(words) > 1 else "")
    expr += f'"{words[-1]}"*'
    ids = [r[0] for r in conn.execute(
        "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rank LIMIT ?", (expr, limit))]
    marks = ",".join("?" * len(ids))
    shown = dict(conn.execute(
        f"SELECT rowid, substr(abstract, 1, 80) FROM docs WHERE rowid IN ({marks})", ids))
    return [(i, shown[i]) for i in ids]


if __name__ == "__main__":
    if sys.argv[1] == "build":
        build(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        print(sqlite3.connect(sys.argv[2]).execute("SELECT count(*) FROM docs").fetchone()[0])
