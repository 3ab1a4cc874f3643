"""Spelling, part of stage 2 of a search (:mod:`db.search.rewrite`): the words of a query
that no paper has, corrected when they are misspelt (:func:`correct`) against the index's
vocabulary (:class:`Vocabulary`), and the index lookups that tell a compound written otherwise
(:func:`phrase_papers`, :func:`hyphenated`).
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field

from db.search.notes import in_a_note
from db.search.query import Query
from db.search.surface import surface_forms
from db.search.terms import Term
from db.seeds.dictionary import is_english_word
from db.text import tokens


def known(conn: sqlite3.Connection, token: str, prefix: bool = False) -> bool:
    """Whether ``token`` is in the vocabulary (with ``prefix``, whether a word starts with it)."""
    if prefix:
        return conn.execute("SELECT 1 FROM vocab WHERE term >= ? AND term < ? LIMIT 1",
                            (token, token + "\U0010ffff")).fetchone() is not None
    return conn.execute("SELECT 1 FROM vocab WHERE term = ?", (token,)).fetchone() is not None


def correct(conn: sqlite3.Connection, q: Query, vocabulary
            ) -> tuple[list[tuple[str, tuple[str, ...], str]], list[str]]:
    """Correct the misspelt words of ``q``'s terms in place, and leave out the real words that
    no paper has. Returns ``(corrections, absent)``: corrections as ``(typed, index words, how
    they join)`` (``("lerning", ("learning",), "")``, ``("multitask", ("multi", "task"),
    "-")``, ``("tesk", ("task", "test"), " or ")``) and the words left out, as typed (folded).

    A word the index lacks is corrected only when it is no English word (pyspellchecker's
    dictionary, :mod:`db.seeds.dictionary`) or an umlaut written out ("mueller" for Müller).
    An English word the index has by its stem ("guides": "guide") is searched as typed, one it
    has written in two ("multitask": "multi-task") is corrected as a compound; one it lacks
    ("pesticides" is no typo of "peptides") is left out when it is a term of its own, and the
    rest is searched; when it is all the query has, it is corrected after all (nothing would
    be found otherwise).
    """
    unknown = [(term, i, tok) for term in q.positive for i, tok in enumerate(term.tokens)
               if not known(conn, tok, term.prefix and i == len(term.tokens) - 1)
               and not in_a_note(conn, tok)]
    english = [(term, i, tok) for term, i, tok in unknown
               if is_english_word(tok) and not _umlaut(conn, tok)]
    # an English word FTS5 finds by its stem is no unknown word ("guides": "guide"; the word
    # being typed, "evaluated", too)
    unknown = [u for u in unknown if u not in english or not phrase_papers(conn, u[2], False, 1)]
    # (an English word the abstracts write in two, "multitask" for "multi-task", is corrected)
    real = [u for u in english if u in unknown and not u[0].prefix
            and not _compound(conn, vocabulary(), u[2], False, 0)]
    alone = {id(t) for t, _, _ in real if len(t.tokens) == 1}
    absent = []
    if any(id(t) not in alone for t in q.positive):  # something else to search
        absent = [tok for t, _, tok in real if id(t) in alone]
        q.terms = [t for t in q.terms if id(t) not in alone]
        unknown = [u for u in unknown if u not in real]
    corrections = []
    for term in {id(t): t for t, _, _ in unknown}.values():
        at = [i for t, i, _ in unknown if t is term]
        corrections += _correct_term(conn, term, at, vocabulary)
    return corrections, list(dict.fromkeys(absent))


_UMLAUT_RE = re.compile(r"([aou])e")


def _umlaut(conn: sqlite3.Connection, tok: str) -> bool:
    """Whether ``tok`` is an index word with its umlauts written out: "mueller" is "muller",
    the key of Müller (the index folds ü to u), which the abstracts write with an umlaut
    ("shoe" is no "sho")."""
    plain = _UMLAUT_RE.sub(r"\1", tok)
    if plain == tok or not known(conn, plain):
        return False
    return any(c in "äöüÄÖÜ" for c in surface_forms(conn, [plain]).get(plain, ""))


def _correct_term(conn: sqlite3.Connection, term: Term, at: list[int], vocabulary
                  ) -> list[tuple[str, tuple[str, ...], str]]:
    """Correct the tokens of ``term`` at the positions ``at`` in place (see :func:`correct`)."""
    corrections = []
    last = len(term.tokens) - 1
    fixed_tokens: list = list(term.tokens)
    for i in at:
        tok = term.tokens[i]
        vocab = vocabulary()
        if last == 0 and tok in vocab.names:  # "c3po" is the name C-3PO
            fixed_tokens = list(vocab.names[tok])
            term.prefix = False
            break
        spellings = vocab.correct(tok)
        parts = _compound(conn, vocab, tok, term.prefix and i == last,
                          vocab.df[spellings[0]] if spellings else 0)
        if parts:  # "multitask": the index has "multi-task" as the phrase "multi task"
            fixed_tokens[i] = parts
            corrections.append((tok, parts, "-"))
            continue
        if not spellings:
            continue
        fixed_tokens[i] = spellings[0]
        if last == 0:
            term.variants = tuple(spellings[1:])
        else:
            spellings = spellings[:1]
        if i == last:
            term.prefix = False
        corrections.append((tok, tuple(spellings), " or "))
    term.tokens = tuple(t for tok in fixed_tokens
                        for t in ((tok,) if isinstance(tok, str) else tok))
    return corrections


def _compound(conn: sqlite3.Connection, vocab: Vocabulary, word: str, prefix: bool,
              rival: int) -> tuple[str, str] | None:
    """The two words ``word`` (absent from the index) runs together ("nanoassembly" →
    "nano-assembly", "realworld" → "real-world"): the most frequent pair of words of 3 letters
    or more that stand side by side in more papers than ``rival``, the document frequency of
    the best spelling correction (so "learnng" is "learning", not "learn ng"); else None.
    With ``prefix`` (the word being typed) the second word may go on ("multi-tasking")."""
    for parts in vocab.splits(word)[:3]:
        if min(map(len, parts)) < 3:
            continue
        if phrase_papers(conn, " ".join(parts), prefix, rival + 1) > rival:
            return parts
    return None


def phrase_papers(conn: sqlite3.Connection, phrase: str, prefix: bool, enough: int) -> int:
    """Papers with the phrase (its last word a prefix with ``prefix``), counted up to
    ``enough``."""
    return conn.execute("SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? "
                        "LIMIT ?)", (f'"{phrase}"' + ("*" if prefix else ""), enough)).fetchone()[0]


#: Papers with a compound's two words side by side that :func:`hyphenated` reads for the
#: hyphen: "multi task" is nearly always written "multi-task", so the first few show it.
HYPHEN_SAMPLE = 50


def hyphenated(conn: sqlite3.Connection, a: str, b: str, prefix: bool) -> bool:
    """Whether some abstract (or title) of the first :data:`HYPHEN_SAMPLE` with the words ``a b``
    side by side writes them as one hyphenated word ("multi-task"): the evidence that "a b" is the
    compound ``ab`` written otherwise, not two words that meet by chance ("not able" is not
    "notable", "use less" not "useless", "the sis" not "thesis")."""
    phrase = f'"{a} {b}"' + ("*" if prefix else "")
    hyphen = re.compile(rf"(?<![^\W_]){re.escape(a)}[-\u2010\u2011]{re.escape(b)}", re.IGNORECASE)
    rows = conn.execute("SELECT title, coalesce(body, abstract) FROM papers WHERE rowid IN "
                        "(SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)",
                        (phrase, HYPHEN_SAMPLE))
    return any(hyphen.search(text) for row in rows for text in row if text)


# -- spelling: corrections and name spellings against the index vocabulary ----------------
# A word that is in the vocabulary is never corrected, however rare. A word that is not is
# matched against vocabulary words of about its length by optimal-string-alignment distance (a
# swap of two neighbouring letters costs 1, as a dropped or replaced letter does); candidates
# that share the first letter are tried first, since typos rarely hit it. Among words at the same
# distance the more frequent wins (``lerning`` -> ``learning``, not ``leaning``); near-ties are
# kept as alternatives.

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
        for (name,) in conn.execute(  # (searchable names: shown or not, db.index.names)
                "SELECT DISTINCT derived_name FROM papers WHERE derived_name IS NOT NULL"):
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
