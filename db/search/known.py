"""Known-item search of many titles at once: the abstract each title of a catalogue names.

A conference's catalogue lists titles without abstracts; the library has abstracts without
titles. Each title is looked up as a reader's remembered title is (:mod:`db.search.rerank`):
candidates from its rarest words, each scored by bm25 of the title's words plus the in-order,
early-mention and acronym bonuses. Three things differ, because a title here is evidence, not
a query:

* a title word that no paper has counts against every candidate (a typed word the index does
  not know is ignored instead), so "Reinforced Lifelong Editing for Language Models" is not a
  perfect match for any abstract that says "language models";
* each abstract is scored on its name and text alone: a title a catalogue gave it before must
  not decide its match again;
* each candidate abstract's words are stemmed once for all the titles (3,340 titles against 35
  abstracts: each abstract is a candidate of hundreds of titles);
* only abstracts whose collection may be the catalogue's are candidates (:func:`same_year`),
  and when they are few (:data:`POOL_MAX`) they are searched in memory, each word weighed by
  how rare it is among them, so that the library's other papers change nothing.

A title is **matched** to its best abstract only with a clear margin on both sides: its score
is at least :data:`FLOOR` and :data:`MARGIN` above its second-best abstract's, and no other title
whose best is that abstract comes near it in *evidence* (:func:`evidence`: a title that fits
the abstract word for word and says much explains it better than a short, generic one that
fits it as well, or a long one that fits it in part). A title whose best abstract another
title explains better is **unmatched**, as is one that fits no abstract; one that cannot be
told apart from another is **ambiguous**.
"""

from __future__ import annotations

import math
import re
import sqlite3
from typing import NamedTuple

from db.search.highlight import stem
from db.search.query import parse
from db.search.rerank import (
    _Matcher,
    _rare_word_candidates,
    _score,
    _words,
    slots,
)
from db.seeds.formats import title_id

# The figures below were set on the 35 shipped abstracts and ICML 2025's catalogue of 3,340
# titles (tests/test_catalogue.py): 34 of the 35 real titles matched and none wrong; with
# the 35 real titles taken out of the catalogue, 6 abstracts take a wrong title (a catalogue
# that lacks a paper can name its abstract with a near miss).
#: The least score (:func:`db.search.rerank.ranked`'s scale, [0, 1.45]) of a match. The real
#: titles score 0.45-1.22 against their abstracts.
FLOOR = 0.45
#: ... and by how much it must beat the title's second-best abstract (the real titles: 0.23 and
#: more, all but one 0.26 and more).
MARGIN = 0.2
#: Evidence of the best title for an abstract over the next title whose best it is too (the
#: real titles: 1.55 times the next one's or more).
EVIDENCE_RATIO = 1.3
#: Candidates scored per title, the best by their rarest words (db.search.rerank).
CANDIDATES = 8
#: Abstracts whose stemmed words are kept between titles (each ~180 words).
KEPT_DOCS = 20_000
#: A catalogue that may name at most this many abstracts (of its year and conference, or of
#: none named) looks its titles up among them in memory (:class:`_Pool`), not in the FTS index,
#: with the words' idf among them: what it finds does not depend on the library's other papers
#: (ICML 2025's 3,340 titles against the 35 shipped abstracts, alone or beside 87,000 abstracts
#: of other years: the same 34 matches, in ~1 s instead of 30).
POOL_MAX = 5_000


class Match(NamedTuple):
    """What a catalogue's title found: ``outcome`` is "matched" (``paper_id`` is the abstract's
    id), "ambiguous" or "unmatched" (``paper_id`` None)."""

    paper_id: str | None
    outcome: str


class _Doc:
    """An abstract's words stemmed once: stem → positions, the number of words, the words."""

    __slots__ = ("count", "positions", "words")

    def __init__(self, text: str):
        words = _words(text)
        self.count, self.words = len(words), set(words)
        self.positions: dict[str, list[int]] = {}
        for at, word in enumerate(words):
            self.positions.setdefault(stem(word), []).append(at)


class _Kept(_Matcher):
    """:class:`db.search.rerank._Matcher` over texts stemmed once (:class:`_Doc`)."""

    def __init__(self, found: list, docs: dict[str, _Doc]):  # (no pattern to compile)
        self.weigh(found)
        self.docs = docs

    def positions(self, text: str) -> tuple[list[list[int]], int]:
        doc = self.docs.get(text)
        if doc is None:
            if len(self.docs) >= KEPT_DOCS:
                self.docs.clear()
            doc = self.docs[text] = _Doc(text)
        self.words = doc.words
        out = []
        for s in self.found:
            hits = [p for st in s.stems for p in doc.positions.get(st, ())]
            out.append(sorted(hits) if len(s.stems) > 1 else hits)
        return out, doc.count


class Titles:
    """Scores titles against the abstracts of an index (the connection, read only) whose
    collection may be the catalogue's ``collection`` (:func:`same_year`). An abstract with a
    title of its own (a file with fields) is one too: a catalogue's title that finds it makes
    one paper of the two, whose fields the first file with fields gives (docs/seeds.md)."""

    def __init__(self, conn: sqlite3.Connection, collection: str = ""):
        self.conn = conn
        # (the papers the vocabulary counts: not max(rowid), which the catalogue's title-only
        # papers, deleted before each match, leave higher than before, by turns)
        self.papers = conn.execute("SELECT count(*) FROM papers").fetchone()[0] or 1
        self.docs: dict[str, _Doc] = {}
        self.collection = collection
        self.fits = {c: same_year(c, collection) for (c,) in conn.execute(
            "SELECT DISTINCT collection FROM papers")}  # collection → it may be the catalogue's
        self.pool = self._pool()

    def scored(self, title: str) -> tuple[float, list[tuple[str, float]]]:
        """The title's idf mass and ``(paper id, score)`` of its best abstracts, best first."""
        # a title is text, not a query: no quotes, and no OR, NOT or -word as operators
        q = parse(" ".join(w.lstrip("-") for w in title.replace('"', " ").lower().split()))
        found = slots(self.conn, q)
        papers_in = self.papers
        if self.pool is not None:  # how rare a word is among the abstracts it may name
            papers_in = len(self.pool.rows)
            for s in found:  # (as the vocabulary counts them: the word as written)
                s.df = len(self.pool.with_word.get(s.word, ()))
        for s in found:
            s.idf = math.log(1 + (papers_in - s.df + 0.5) / (s.df + 0.5))
        if self.pool is not None:
            papers = self.pool.candidates(found)
        else:
            rowids = self._candidates(_rare_word_candidates(self.conn, found))
            papers = self.conn.execute(
                f"SELECT id, derived_name, coalesce(body, abstract) FROM papers WHERE rowid IN "
                f"({','.join('?' * len(rowids))})", rowids).fetchall() if rowids else []
        if not papers:
            return 0.0, []
        match = _Kept(found, self.docs)
        scored = [(pid, _score(match, name or "", body)) for pid, name, body in papers]
        scored.sort(key=lambda r: (-r[1], r[0]))
        return sum(s.idf for s in found), scored

    def _pool(self) -> _Pool | None:
        """The abstracts that may be the catalogue's, in memory, when there are at most
        :data:`POOL_MAX` of them; else None (they are found in the FTS index)."""
        fitting = [c for c, fits in self.fits.items() if fits]
        marks = ",".join("?" * len(fitting))
        if not fitting or self.conn.execute(
                f"SELECT count(*) FROM papers WHERE collection IN ({marks}) AND abstract != ''",
                fitting).fetchone()[0] > POOL_MAX:
            return None
        return _Pool(self.conn.execute(
            f"SELECT id, derived_name, coalesce(body, abstract) FROM papers WHERE collection IN "
            f"({marks}) AND abstract != '' ORDER BY rowid", fitting).fetchall(), self.docs)

    def _candidates(self, rowids: list[int]) -> list[int]:
        """The first :data:`CANDIDATES` of ``rowids`` that are abstracts of a collection that
        fits."""
        if not rowids:
            return []
        fits = {rowid: self.fits.get(collection, False) for rowid, collection in self.conn.execute(
            f"SELECT rowid, collection FROM papers WHERE rowid IN "
            f"({','.join('?' * len(rowids))}) AND abstract != ''", rowids)}
        return [r for r in rowids if fits.get(r)][:CANDIDATES]


class _Pool:
    """Abstracts held in memory (``(id, name, text)`` rows), each with its words stemmed once
    (:class:`_Doc`, kept in ``docs``), and for each stem the abstracts that have it."""

    def __init__(self, rows: list[tuple[str, str | None, str]], docs: dict[str, _Doc]):
        self.rows = rows
        self.having: dict[str, list[int]] = {}  # stem → the abstracts with it
        self.with_word: dict[str, list[int]] = {}  # word (folded) → the abstracts with it
        for at, (_pid, name, body) in enumerate(rows):
            stems, words = set(), set()
            for text in (body, name or ""):
                if text not in docs:
                    docs[text] = _Doc(text)
                stems.update(docs[text].positions)
                words.update(docs[text].words)
            for st in stems:
                self.having.setdefault(st, []).append(at)
            for word in words:
                self.with_word.setdefault(word, []).append(at)

    def candidates(self, found: list) -> list[tuple[str, str | None, str]]:
        """The :data:`CANDIDATES` rows with the largest idf of the title's words (``found``:
        :class:`db.search.rerank.Slot`), ties in the pool's order: as the FTS candidates of
        :func:`db.search.rerank._rare_word_candidates`, but counting every word."""
        weight: dict[int, float] = {}
        for s in found:
            having = {at for st in s.stems for at in self.having.get(st, ())}
            for at in having:
                weight[at] = weight.get(at, 0.0) + s.idf
        best = sorted(weight, key=lambda at: (-weight[at], at))[:CANDIDATES]
        return [self.rows[at] for at in best]


_YEAR_RE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


def same_year(collection: str, catalogue: str) -> bool:
    """Whether an abstract of ``collection`` may be in a catalogue of collection ``catalogue``
    ("ICML 2025"): not when both name a year and the years differ, or the abstract's names
    another conference ("NeurIPS 2025": the word before the year)."""
    wanted, years = _YEAR_RE.search(catalogue), _YEAR_RE.findall(collection)
    if not wanted or not years:
        return True
    if wanted.group() not in years:
        return False
    venue = catalogue[:wanted.start()].split()[-1:]
    return not venue or venue[0].casefold() in collection.casefold()


def evidence(score: float, weight: float) -> float:
    """How well a title explains an abstract: its score cubed (how much of it the abstract
    has, in order) times its idf mass (how much it says). Of the powers 1 to 4, 3 set the real
    titles furthest apart from the others that fit the same abstracts."""
    return score ** 3 * weight


def match_titles(conn: sqlite3.Connection, titles: list[str], collection: str = ""
                 ) -> list[Match]:
    """The abstract each of ``titles`` (of a catalogue of ``collection``) names, in order
    (module docstring): at most one title per abstract. Reads the index only."""
    scorer = Titles(conn, collection)
    best: list[tuple[str, float, float, bool]] = []  # (paper id, score, evidence, clear)
    # abstract → {title: evidence} of each title whose best it is; a title listed twice (the
    # same title, as db.seeds.formats.title_id folds it) is one claim, not two that tie
    claims: dict[str, dict[str, float]] = {}
    for title in titles:
        weight, scored = scorer.scored(title)
        if not scored or scored[0][1] < FLOOR:
            best.append(("", 0.0, 0.0, False))
            continue
        pid, score = scored[0]
        second = scored[1][1] if len(scored) > 1 else 0.0
        best.append((pid, score, evidence(score, weight), score - second >= MARGIN))
        claims.setdefault(pid, {})[title_id(title)] = evidence(score, weight)
    out = []
    for pid, _, strength, clear in best:
        if not pid:
            out.append(Match(None, "unmatched"))
            continue
        others = sorted(claims[pid].values(), reverse=True)
        if strength < others[0]:
            out.append(Match(None, "unmatched"))  # another title explains it better
        elif not clear or (len(others) > 1 and others[1] * EVIDENCE_RATIO > strength):
            out.append(Match(None, "ambiguous"))
        else:
            out.append(Match(pid, "matched"))
    return out
