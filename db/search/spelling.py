"""Typo correction and name spellings against the index vocabulary (``vocab(term, df)``).

A word that is in the vocabulary is never corrected, however rare. A word that is not is matched
against vocabulary words of about its length by optimal-string-alignment distance (a swap of two
neighbouring letters costs 1, as a dropped or replaced letter does); candidates that share the
first letter are tried first, since typos rarely hit it. Among words at the same distance the more
frequent wins (``lerning`` → ``learning``, not ``leaning``); near-ties are kept as alternatives.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from db.text import tokens

MAX_ALTERNATIVES = 2  # a corrected word matches its best spelling and at most one near-tie
NEAR_TIE = 0.35  # goodness points (one edit = 1.0; doubling the df ≈ 0.1)


def max_edits(word: str) -> int:
    """Edits allowed to correct ``word``: 1 up to 4 letters, 2 up to 8, else 3."""
    return 1 if len(word) <= 4 else 2 if len(word) <= 8 else 3


@dataclass(slots=True)
class Vocabulary:
    """The index's words (folded, unstemmed) with document frequencies, and name spellings.

    ``names`` maps a method name written without its punctuation (``c3po``, ``s2track``,
    ``wudimerging``) to its index tokens (``("c", "3po")``), so the run-together spelling finds it.
    """

    df: dict[str, int]
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _buckets: dict[tuple[str, int], list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, conn: sqlite3.Connection) -> Vocabulary:
        df = dict(conn.execute("SELECT term, df FROM vocab").fetchall())
        names = {}
        for (name,) in conn.execute("SELECT DISTINCT name FROM papers WHERE name IS NOT NULL"):
            parts = tuple(tokens(name))
            if len(parts) > 1:
                names.setdefault("".join(parts), parts)
        return cls(df, names)

    def __post_init__(self) -> None:
        buckets: dict[tuple[str, int], list[str]] = defaultdict(list)
        for term in self.df:
            buckets[term[:1], len(term)].append(term)
        self._buckets = dict(buckets)

    def correct(self, word: str) -> list[str]:
        """Likely intended words for ``word`` (absent from the index), best first; [] if none.

        Words under 3 letters, or with a digit, are left alone, and a 3-letter word is only
        given a dropped letter back (``tsk`` → ``task``): short words are acronyms, names and
        numbers (``gpt``, ``gpt4``, ``x2``) more often than typos.
        """
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        if len(word) < 3 or not self.df or any(c.isdigit() for c in word) or word in self.df:
            return []
        limit = max_edits(word)
        lengths = range(len(word) - limit, len(word) + limit + 1)
        pool = [t for n in lengths for t in self._buckets.get((word[0], n), ())]
        found = process.extract(word, pool, scorer=OSA.distance, score_cutoff=limit, limit=30)
        if not found:
            pool = [t for (_, n), terms in self._buckets.items() if n in lengths for t in terms]
            found = process.extract(word, pool, scorer=OSA.distance, score_cutoff=limit,
                                    limit=30)
        if len(word) == 3:
            found = [f for f in found if len(f[0]) == 4]
        if not found:
            return []
        scored = sorted(((-d + 0.15 * math.log1p(self.df[t]), t) for t, d, _ in found),
                        reverse=True)
        return [t for g, t in scored[:MAX_ALTERNATIVES] if g >= scored[0][0] - NEAR_TIE]

    def splits(self, word: str) -> list[tuple[str, str]]:
        """Ways to cut ``word`` (absent from the index) into two indexed words, the more
        frequent pair first: ``multitask`` → ``("multi", "task")``, for an abstract that writes
        "multi-task" (the index holds its parts). Whether the parts stand side by side in some
        abstract is for the caller to ask the index. [] for a known word or one with no cut."""
        if word in self.df or len(word) < 4:
            return []
        df = self.df
        cuts = [(word[:i], word[i:]) for i in range(1, len(word))]
        found = [(a, b) for a, b in cuts if a in df and b in df and len(a) + len(b) > 3
                 and min(len(a), len(b)) >= (1 if a.isalpha() and b.isalpha() else 2)]
        return sorted(found, key=lambda ab: -min(df[ab[0]], df[ab[1]]))
