"""Ranking for title-like queries: the best partial matches when all words together find fewer
than a handful of papers, and the order of a few hundred papers that have them all.

A title typed from memory ("Natural Gradient Revisited") often has a word or two that its
abstract lacks, so requiring every word finds nothing. bm25 over an OR of the words is the usual
fallback, but it scores every paper containing "learning" or "of" (tens of thousands at 87k
papers) and ignores word order. Here instead:

1. **Candidates** come from the query's rarest words (document frequency from ``vocab``): the
   :data:`CANDIDATES` papers with the largest idf-weighted share of them, counted in SQL from
   each word's list of papers. Common words add little evidence and much cost.
2. **Re-ranking** in Python scores each candidate by bm25 of all the query's words (stemmed as
   the index stems; name and title count 8 times), plus a bonus for query words that stand
   side by side in the query's order (:data:`ORDER_WEIGHT`) and for words in the abstract's
   first sentences (:data:`EARLY_WEIGHT`), where an abstract restates its title, and for an
   acronym of query words in a row (:data:`ACRONYM_WEIGHT`: "SVI" in the abstract for
   "Stochastic Variational Inference" in the title).

The few papers with every word (fewer than a handful, or the partial matches would not be
ranked) are always candidates: among thousands of papers with the two rarest words, counting
those does not single them out.

The weights were tuned on known-item title queries with ``bench/recall.py --seed 1`` and are
reported on held-out queries of ``--seed 2`` (docs/benchmark.md).
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from db.index.schema import BM25_WEIGHTS
from db.search.highlight import stem
from db.search.query import Query

HANDFUL = 5  # fewer papers than this with all the words → rank the best partial matches
SMALL_LIBRARY = 1000  # papers; in a smaller library a handful is most of what a word matches
RERANK_TERMS = 3  # from 3 words on, word order says something bm25 does not see
#: Words (stop-words aside) of the longest query ranked as a title typed from memory; a longer
#: one is a question or a description, ranked by bm25 over all its words (db.search.anyword),
#: and so is a sentence (Query.sentence) of more than SENTENCE_WORDS words. Titles of 9-15
#: words find their paper better by the title ranking (87k abstracts, bench/recall.py: with
#: the line at 8 words recall@3 fell from 0.856 to 0.852), and questions of 5-15 words theirs
#: by bm25 (Cranfield, bench/relevance.py).
TITLE_WORDS = 16
SENTENCE_WORDS = 4
PARTIAL_HEAD = 60  # the best partial matches re-ranked: a first page of the browser (60 hits)
CANDIDATES = 200  # papers re-ranked; the known item is among the first 200 by rare words
# papers with all the words whose order is re-ranked, the best by bm25: the known item is as
# often in the first 3 re-ranking 50 as 200 (bench/recall.py, seeds 1-3), for a quarter of
# the time (87k papers, a 3-word query with 200 hits: 6 ms instead of 20)
RERANK_HEAD = 50
CANDIDATE_ROWS = 20_000  # papers the candidate words may be in together
RARE_ROWS = 3_000  # papers of the rarest candidate words, read whole (1,000 lost 9 of 1,000 titles)
HEAD_WEIGHT = 8.0  # a word in the name or title counts as 8 in the abstract (BM25_WEIGHTS)
EARLY_WORDS, EARLY_WEIGHT = 80, 0.1  # an abstract's first sentences restate its title
K1, B = 1.2, 0.75  # bm25's usual constants, as FTS5 uses them
AVERAGE_WORDS = 180  # words of a typical abstract (the 87k corpus: ~170), bm25's avgdl
ORDER_WEIGHT = 0.2  # query words side by side and in order, as in the title recalled
GAP = 2  # "grasp under uncertainty": "grasp" → "uncertainty" still counts, 2 words on
ACRONYM_WEIGHT = 0.15  # the abstract has the initials of query words in a row
ACRONYM_SKIP_IDF = 0.5  # "of", "for", "and" have no letter in an acronym
_STEPS = range(1, GAP + 1)  # how far on the next query word may stand


@dataclass(slots=True)
class Slot:
    """One query word in query order: its spellings (as stems), prefix flag, and idf weight."""

    stems: frozenset[str]
    prefix: str  # the word being typed, matching every word that starts with it; or ""
    df: int
    fts: str  # the slot as an FTS5 query
    idf: float = 0.0
    word: str = ""  # the word as typed (folded): its initial starts an acronym


def slots(conn: sqlite3.Connection, q: Query) -> list[Slot]:
    """The query's positive words in order (a phrase gives each of its words), with their
    document frequencies from ``vocab`` (a prefix counts its first 50 completions)."""
    words = [t for term in q.positive for t in (*term.tokens, *term.variants)]
    marks = ",".join("?" * len(words))
    df = dict(conn.execute(f"SELECT term, df FROM vocab WHERE term IN ({marks})", words))
    out = []
    for term in q.positive:
        tok0 = term.tokens[0] if term.tokens else ""
        if term.variants:
            spellings = (*term.tokens, *term.variants)
            out.append(Slot(frozenset(map(stem, spellings)), "",
                            sum(df.get(t, 0) for t in spellings), term.fts(), word=tok0))
            continue
        first = len(out)
        for i, tok in enumerate(term.tokens):
            if term.prefix and i == len(term.tokens) - 1:
                found = conn.execute("SELECT coalesce(sum(df), 0) FROM (SELECT df FROM vocab "
                                     "WHERE term >= ? AND term < ? LIMIT 50)",
                                     (tok, tok + "\U0010ffff")).fetchone()[0]
                # a prefix also matches the words it begins (Term.completions): the index
                # holds their stems, which "diffusi"* does not begin ("diffus")
                fts = "(" + " OR ".join((f'"{tok}"*', *(f'"{w}"' for w in term.completions))) + ")"
                out.append(Slot(frozenset(), tok, found, fts, word=tok))
            else:
                out.append(Slot(frozenset({stem(tok)}), "", df.get(tok, 0), f'"{tok}"',
                                word=tok))
        if (term.alternatives or term.acronyms) and len(out) > first:
            # the term's other spellings match with its first word: a paper that writes only
            # "multitask" or "RLHF" is a partial match as the words are
            out[first].fts = f"({out[first].fts} OR {term.fts()})"
    return out


def handful(conn: sqlite3.Connection) -> int:
    """Papers with all the words below which partial matches are ranked instead: 1 (that is,
    only when none has them all) in a library under :data:`SMALL_LIBRARY`, else :data:`HANDFUL`."""
    papers = conn.execute("SELECT max(rowid) FROM papers").fetchone()[0] or 0
    return HANDFUL if papers >= SMALL_LIBRARY else 1


def ranked(conn: sqlite3.Connection, q: Query, expression: str | None = None,
           matches: list[tuple[int, float]] | None = None) -> list[tuple[int, float]]:
    """``(rowid, score)`` of papers for ``q``'s words, best first: the papers matching the FTS5
    ``expression`` (at most :data:`CANDIDATES` of them, by bm25, ties in rowid order), or else
    the best partial matches (candidates from the rarest words). Ties keep the candidates' order.

    ``matches``, when the caller already has them, is every match of ``expression`` as
    ``(rowid, bm25 score)`` in any order (``db.search.match.best_matches`` of a query with at most
    :data:`CANDIDATES` matches): the candidates are then taken from it instead of a second bm25
    pass over the index, the same list (87k papers: 1.6-4.5 ms saved on a 3-word query).

    Ignores filters and exclusions (the caller applies them to this list, so that they only ever
    remove papers). Score in [0, 1 + ORDER_WEIGHT + EARLY_WEIGHT + ACRONYM_WEIGHT], higher is
    better; of the papers matching ``expression`` only the best :data:`RERANK_HEAD` by bm25 are
    scored, the others follow them in bm25 order (scores below the head's, maybe negative).
    """
    found = slots(conn, q)
    papers = conn.execute("SELECT max(rowid) FROM papers").fetchone()[0] or 1
    for s in found:
        s.idf = math.log(1 + (papers - s.df + 0.5) / (s.df + 0.5)) if s.df else 0.0
    if expression is None:
        # the few papers with every word come first (module docstring)
        every = q.match_expression("all")
        candidates = [r[0] for r in conn.execute(
            "SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?",
            (every, HANDFUL))] if every else []
        seen = set(candidates)
        candidates += [r for r in _rare_word_candidates(conn, found) if r not in seen]
    elif matches is not None:  # the same order as the query below: bm25, then rowid
        candidates = [r for r, _ in sorted(matches, key=lambda m: (m[1], m[0]))[:CANDIDATES]]
    else:
        weights = ", ".join(str(w) for w in BM25_WEIGHTS)
        candidates = [r[0] for r in conn.execute(
            f"SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? "
            f"ORDER BY bm25(papers_fts, {weights}), rowid LIMIT {CANDIDATES}", (expression,))]
    if not candidates:
        return []
    tail = candidates[RERANK_HEAD:] if expression is not None else []
    candidates = candidates[:len(candidates) - len(tail)]
    bm25_rank = {rowid: n for n, rowid in enumerate(candidates)}
    marks = ",".join("?" * len(bm25_rank))
    match = _Matcher(found)
    scored = []
    for rowid, name, title, body in conn.execute(  # (the name the FTS indexes)
            f"SELECT rowid, derived_name, title, coalesce(body, abstract) FROM papers "
            f"WHERE rowid IN ({marks})", list(bm25_rank)):
        score = _score(match, " ".join(filter(None, (name, title))), body)
        scored.append((rowid, score - 1e-4 * bm25_rank[rowid]))
    scored.sort(key=lambda r: -r[1])
    floor = scored[-1][1] if scored else 0.0
    return scored + [(rowid, floor - 1e-4 * n) for n, rowid in enumerate(tail, start=1)]


def _rare_word_candidates(conn: sqlite3.Connection, found: list[Slot]) -> list[int]:
    """Rowids of at most :data:`CANDIDATES` papers with the most (idf-weighted) of the query's
    rarest words: those (at least 2) that together are in at most :data:`CANDIDATE_ROWS`
    papers. Scoring bm25 over all of those papers would cost more than everything else together.

    Every paper of the rarest of them (at least one word, in at most :data:`RARE_ROWS` papers
    together) is counted; a commoner word is counted only in those papers (FTS5 skips through
    its list to them), and the papers with every commoner word but none of the rarest are
    candidates too. Reading the commoner words' lists whole made the same candidates for 1,000
    known-item titles at 87k papers in 2-3 times the time (bench/recall.py)."""
    rows = 0
    chosen: dict[str, float] = {}
    for s in sorted((s for s in found if s.df), key=lambda s: s.df):
        if len(chosen) >= 2 and rows + s.df > CANDIDATE_ROWS:
            break
        if s.fts not in chosen:
            chosen[s.fts] = s.idf
            rows += s.df
    if not chosen:
        return []
    df = {s.fts: s.df for s in found}
    rare: list[str] = []
    rows = 0
    for fts in chosen:
        if rare and rows + df[fts] > RARE_ROWS:
            break
        rare.append(fts)
        rows += df[fts]
    common = [fts for fts in chosen if fts not in rare]
    any_rare = f"({' OR '.join(rare)})"
    parts = [(chosen[fts], fts) for fts in rare]
    parts += [(chosen[fts], f"{fts} AND {any_rare}") for fts in common]
    if len(common) > 1:
        parts.append((sum(chosen[fts] for fts in common),
                      f"({' AND '.join(common)}) NOT {any_rare}"))
    each = " UNION ALL ".join(
        ["SELECT rowid, ? AS w FROM papers_fts WHERE papers_fts MATCH ?"] * len(parts))
    return [r[0] for r in conn.execute(
        f"SELECT rowid FROM ({each}) GROUP BY rowid ORDER BY sum(w) DESC LIMIT {CANDIDATES}",
        [v for part in parts for v in part])]


_WORD_RE = re.compile(r"[^\W_]+")
#: ASCII bytes folded, every one that is not a letter or digit made a space: for ASCII text,
#: ``_WORD_RE.findall(text.lower())`` is ``text`` translated with this and split
_ASCII_WORDS = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or 48 <= c <= 57 else 32
                     for c in range(256))
#: every byte but a space made "a": in text translated with _ASCII_WORDS, b" a" starts a word
_WORD_STARTS = bytes(32 if c == 32 else 97 for c in range(256))


def _words(text: str) -> list[str]:
    """The words of ``text``, folded: runs of letters and digits (``_WORD_RE``), as
    :class:`_Matcher` counts and finds them."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORDS).decode("ascii").split()
    return _WORD_RE.findall(text.lower())


def _candidates(starts: Iterable[str], acronyms: Iterable[str]) -> str | None:
    """The pattern of :class:`_Matcher`'s candidate words (group 1) in folded words separated
    by spaces: a word that begins with one of ``starts``, or is one of ``acronyms``; None when
    there are neither. A lookahead for their first letters gives up on any other word at once."""
    starts, acronyms = sorted(starts), sorted(acronyms, key=lambda w: (-len(w), w))
    either = [f"(?:{'|'.join(map(re.escape, starts))})[^\\W_]*"] if starts else []
    if acronyms:
        either.append(f"(?:{'|'.join(map(re.escape, acronyms))})(?= )")
    if not either:
        return None
    firsts = "|".join(map(re.escape, sorted({w[0] for w in (*starts, *acronyms)})))
    return f" (?={firsts})({'|'.join(either)})"


class _Matcher:
    """Finds the query's words in texts; which slots a word matches is worked out (stemmed)
    once per distinct word and remembered for the next text."""

    def __init__(self, found: list[Slot]):
        """``found``: the query's slots, their idf set."""
        self.weigh(found)
        self.slots_of: dict[str, tuple[int, ...]] = {}
        # the first 3 letters of every stem and prefix, or the whole of a shorter one: Porter
        # keeps a word's start, so a word that matches begins with one ("ai": "AIs")
        self.starts = {w[:3] for s in found for w in (*s.stems, s.prefix) if w}
        self._short = any(len(w) < 3 for w in self.starts)
        # The words that may match are found by one pattern (_candidates); every other word is
        # neither hashed nor looked at (an abstract of ~180 words: ~15 µs). ASCII text is
        # searched as bytes, translated, never split into words (no other word is in it).
        pattern = _candidates(self.starts, self.acronyms)
        self._pattern, self._candidate = pattern, None  # compiled for the first other text
        if pattern and not pattern.isascii():
            pattern = _candidates({w for w in self.starts if w.isascii()},
                                  [w for w in self.acronyms if w.isascii()])
        self._ascii = re.compile(pattern.encode("ascii")) if pattern else None

    def weigh(self, found: list[Slot]) -> None:
        """What :func:`_score` takes of the query's slots ``found`` (their idf set), once."""
        self.found = found
        self.total = sum(s.idf for s in found) or 1.0
        #: (i, weight) of each pair of slots side by side, slot i first: the weight the pair
        #: adds to the in-order bonus when the text has them in order
        self.pairs = [(i, min(found[i].idf, found[i + 1].idf)) for i in range(len(found) - 1)]
        self.pair_weight = sum(weight for _, weight in self.pairs)
        self.nowhere: list[list[int]] = [[] for _ in found]  # positions() of an empty text
        self.acronyms = _acronyms(found)
        #: of the text last given to positions(): its words that may match a slot (they start
        #: as a stem or prefix does) or are acronyms, at least
        self.words: set[str] = set()

    def acronym(self) -> float:
        """The idf of the query words whose initials the text last given to :meth:`positions`
        has as a word ("SVI" for "stochastic variational inference"), the most of any run."""
        if not self.acronyms:
            return 0.0
        found = self.acronyms.keys() & self.words
        return max((self.acronyms[a] for a in found), default=0.0)

    def _slots(self, word: str) -> tuple[int, ...]:
        """The slots ``word`` (folded) matches: its stem is a slot's, or it starts with the
        prefix; remembered."""
        found = self.slots_of.get(word)
        if found is None:
            if word[:3] not in self.starts and not (self._short and (
                    word[:1] in self.starts or word[:2] in self.starts)):
                # Porter keeps a word's start: it cannot match
                found = ()
            else:
                st = stem(word)
                found = tuple(i for i, s in enumerate(self.found)
                              if st in s.stems or (s.prefix and word.startswith(s.prefix)))
            self.slots_of[word] = found
        return found

    def positions(self, text: str) -> tuple[list[list[int]], int]:
        """For each slot, the word positions of ``text`` it matches (ascending); and the number
        of words (runs of letters and digits, folded)."""
        if text.isascii():
            return self._ascii_positions(text)
        out: list[list[int]] = [[] for _ in self.found]
        words = _words(text)
        self.words = set()
        if self._pattern is None or not words:
            return out, len(words)
        if self._candidate is None:
            self._candidate = re.compile(self._pattern)
        padded = " " + " ".join(words) + " "
        at = index = 0  # a word's position: the spaces before it, less the first
        for m in self._candidate.finditer(padded):
            word = m.group(1)
            self.words.add(word)
            slots = self._slots(word)
            if slots:
                index += padded.count(" ", at, m.start(1))
                at = m.start(1)
                for i in slots:
                    out[i].append(index - 1)
        return out, len(words)

    def _ascii_positions(self, text: str) -> tuple[list[list[int]], int]:
        """:meth:`positions` of ASCII ``text``, in bytes: the words are where b" a" is in
        ``starts``, so a word's position is how many come before it."""
        out: list[list[int]] = [[] for _ in self.found]
        padded = b" " + text.encode("ascii").translate(_ASCII_WORDS) + b" "
        starts = padded.translate(_WORD_STARTS)
        self.words = set()
        if self._ascii is None:
            return out, starts.count(b" a")
        at = index = 0
        for m in self._ascii.finditer(padded):
            word = m.group(1).decode("ascii")
            self.words.add(word)
            slots = self._slots(word)
            if slots:
                index += starts.count(b" a", at, m.start())
                at = m.start()
                for i in slots:
                    out[i].append(index)
        return out, starts.count(b" a")


def _acronyms(found: list[Slot]) -> dict[str, float]:
    """Initials of 3 to 6 query words in a row (words of little idf may be skipped, as "of" in
    "mixture of experts"), also with a plural s, mapped to those words' idf."""
    out: dict[str, float] = {}
    for i in range(len(found)):
        letters, weight = "", 0.0
        for s in found[i:]:
            if not s.word or not s.word[0].isalpha():
                break
            if s.idf < ACRONYM_SKIP_IDF and letters:
                continue
            letters += s.word[0]
            weight += s.idf
            if len(letters) > 6:
                break
            if len(letters) >= 3:
                for a in (letters, letters + "s"):
                    out[a] = max(out.get(a, 0.0), weight)
    return out


def _score(match: _Matcher, head: str, body: str) -> float:
    """bm25 of the words over name, title and abstract (weights as in the index), divided by its
    maximum (every word very often), plus the in-order, early-mention and acronym bonuses."""
    found = match.found
    total = match.total
    in_body, words = match.positions(body)
    acronym = match.acronym() if ACRONYM_WEIGHT else 0.0
    in_head = match.positions(head)[0] if head else match.nowhere
    norm = K1 * (1 - B + B * words / AVERAGE_WORDS)
    matched = early = 0.0
    for s, b, h in zip(found, in_body, in_head, strict=True):
        tf = len(b) + HEAD_WEIGHT * len(h)
        if tf:
            matched += s.idf * tf * (K1 + 1) / (tf + norm)
            if b and b[0] < EARLY_WORDS:
                early += s.idf
    together = 0.0
    for i, weight in match.pairs:
        after = in_body[i + 1]
        if after and any(a + step in after for a in in_body[i] for step in _STEPS):
            together += weight
    order = together / match.pair_weight if match.pair_weight else 0.0
    return (matched / (total * (K1 + 1)) + ORDER_WEIGHT * order + EARLY_WEIGHT * early / total
            + ACRONYM_WEIGHT * acronym / total)
