"""Similar papers: bm25 over a paper's most distinctive words ("more like this").

A paper's words are weighed by how often it uses them and how rare they are in the library
(inverse document frequency from the index's ``vocab`` table, as bm25 computes it); the
:data:`TERMS` heaviest become one FTS5 ``OR`` query, ranked by bm25 with the paper itself left
out. "More like my to-read list" does the same with the words of every to-read paper, and lists
only new papers. This is arxiv-sanity's "similar" done with the index papertray already has
(no embeddings, nothing to train, instant on 100,000 papers).
"""

from __future__ import annotations

import dataclasses
import math
import re
import sqlite3
from collections import Counter
from functools import lru_cache

from db.index.schema import BM25_WEIGHTS
from db.models import SearchResult
from db.search.hits import HIT_COLUMNS, hits
from db.search.surface import surface_forms
from db.text import tokens

#: Distinctive words a "more like this" query uses. Fewer miss papers that share the topic in
#: other words; more let common words in (on the shipped seeds, 20 ranks the mixture-of-experts
#: and the Pareto papers nearest each other, better than 12 or 16).
TERMS = 20
#: Words more frequent than this in pyspellchecker's English word counts (about the 1,000 most
#: common words: "during", "three", "called", "high") are left out: in a small library such a
#: word can look rare, yet it says nothing about a topic.
COMMON_ENGLISH = 100_000
#: Words in fewer papers than this are left out: a word only the paper itself has finds nothing.
MIN_DF = 2
#: ``like:ID`` and ``like:to-read`` in a query (the whole query) ask for similar papers.
LIKE_RE = re.compile(r"^\s*like:(\S+)\s*$", re.IGNORECASE)
TO_READ = "to-read"
_COMPOUND_RE = re.compile(r"[^\W_]{2,}(?:-[^\W_]{2,})+")


def like_target(query: str) -> str | None:
    """The id prefix (or ``to-read``) of a ``like:...`` query, or None for any other query."""
    m = LIKE_RE.match(query or "")
    return m.group(1).lower() if m else None


def _weights(conn: sqlite3.Connection, texts: list[str]) -> Counter[str]:
    """Word → weight summed over ``texts``: (1 + log tf) x bm25's idf, each text's weights
    scaled to sum to 1 (so a long abstract does not outvote the others)."""
    n = conn.execute("SELECT count(*) FROM papers").fetchone()[0] or 1
    total: Counter[str] = Counter()
    for text in texts:
        common = _common_english()
        tf = Counter(t for t in tokens(text)
                     if len(t) > 2 and not t.isdigit() and t not in common)
        compounds = Counter(" ".join(tokens(c)) for c in _COMPOUND_RE.findall(text))
        if not tf:
            continue
        df = dict(_df(conn, list(tf)))
        for phrase in compounds:  # "multi-objective": a phrase says more than its two words
            df[phrase] = conn.execute("SELECT count(*) FROM papers_fts WHERE papers_fts MATCH ?",
                                      (f'"{phrase}"',)).fetchone()[0]
        tf.update(compounds)
        weights = {t: (1 + math.log(c)) * math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                   for t, c in tf.items() if df.get(t, 0) >= MIN_DF}
        norm = sum(weights.values()) or 1.0
        for t, w in weights.items():
            total[t] += w / norm
    return total


@lru_cache(maxsize=1)
def _common_english() -> frozenset[str]:
    from spellchecker import SpellChecker  # ~0.25 s to load, once per process

    counts = SpellChecker(distance=1).word_frequency
    return frozenset(w for w, c in counts.items() if c > COMMON_ENGLISH)


def _df(conn: sqlite3.Connection, words: list[str]) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for start in range(0, len(words), 500):
        chunk = words[start:start + 500]
        found += conn.execute(f"SELECT term, df FROM vocab WHERE term IN "
                              f"({','.join('?' * len(chunk))})", chunk).fetchall()
    return found


def _texts(conn: sqlite3.Connection, where: str, params: list) -> list[str]:
    return [" ".join(filter(None, row)) for row in conn.execute(
        f"SELECT p.name, p.title, coalesce(p.body, p.abstract) FROM papers p WHERE {where}",
        params)]


def similar(conn: sqlite3.Connection, paper_id: str, label: str, status: str | None,
            limit: int, offset: int) -> SearchResult:
    """Papers like ``paper_id`` (a full id in the index), best first, without it.

    ``label`` names the paper in the notice; ``status`` filters the hits (``hidden`` counts
    those it leaves out). The shape is a search's: ``total`` counts every paper sharing a
    distinctive word; ``terms`` are the words.
    """
    words = _weights(conn, _texts(conn, "p.id = ?", [paper_id]))
    found = _run(conn, words, f"like:{paper_id[:8]}", f"papers like {label}",
                 ("p.id != ?", [paper_id]), status, limit, offset)
    if not status:
        return found
    every = _run(conn, words, "", "", ("p.id != ?", [paper_id]), None, 0, 0)  # counted only
    return dataclasses.replace(found, hidden=max(0, every.total - found.total))


def like_to_read(conn: sqlite3.Connection, limit: int, offset: int) -> SearchResult:
    """New papers ranked by their likeness to every to-read paper together (best first)."""
    words = _weights(conn, _texts(
        conn, "p.id IN (SELECT paper_id FROM m.marks WHERE status = 'to-read')", []))
    if not words:
        return SearchResult(f"like:{TO_READ}", "", "no paper is marked to-read yet", 0, [])
    return _run(conn, words, f"like:{TO_READ}", "new papers like your to-read list",
                ("k.status IS NULL", []), None, limit, offset)


def _run(conn: sqlite3.Connection, words: Counter[str], query: str, what: str,
         exclude: tuple[str, list], status: str | None, limit: int,
         offset: int) -> SearchResult:
    chosen = [w for w, _ in words.most_common(TERMS)]
    if not chosen:
        return SearchResult(query, "", f"{what}: no distinctive words to compare by", 0, [])
    expression = " OR ".join(f'"{w}"' for w in chosen)  # tokens: letters and digits only
    clauses, params = [exclude[0]], list(exclude[1])
    if status:
        clauses.append("coalesce(k.status, 'new') = ?")
        params.append(status)
    weights = ", ".join(str(w) for w in BM25_WEIGHTS)
    base = (f"FROM (SELECT rowid, bm25(papers_fts, {weights}) AS score FROM papers_fts "
            "WHERE papers_fts MATCH ?) hit JOIN papers p ON p.rowid = hit.rowid "
            "LEFT JOIN m.marks k ON k.paper_id = p.id WHERE " + " AND ".join(clauses))
    total = conn.execute(f"SELECT count(*) {base}", [expression, *params]).fetchone()[0]
    rows = conn.execute(
        f"SELECT {HIT_COLUMNS}, -hit.score {base} ORDER BY hit.score, p.first_file, "
        "p.first_pos LIMIT ? OFFSET ?", [expression, *params, limit, offset]).fetchall()
    spelt = surface_forms(conn, chosen)  # the words as the abstracts write them
    shown = [spelt.get(w, w) for w in chosen]
    notice = f"{what} (by {', '.join(shown[:6])}…)"
    return SearchResult(query, " OR ".join(shown), notice, total, hits(conn, rows),
                        tuple(chosen))
