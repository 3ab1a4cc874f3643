"""Stage 2 of a search: the parsed query rewritten against the index before it runs (typo
corrections, method names typed without their punctuation, compounds written otherwise,
irregular plurals, the words a prefix stands for), and the index's vocabulary that the
corrections are drawn from (:class:`Vocabulary`).

Every function changes the :class:`db.search.query.Query` in place and reads the index (the
``vocab`` table of unstemmed words and the FTS5 index) and the notes' words, never the marks.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from db.search.notes import in_a_note
from db.search.query import Query
from db.search.surface import surface_forms
from db.text import tokens


def rewrite(conn: sqlite3.Connection, q: Query, vocabulary: Callable[[], Vocabulary],
            typed: str = "") -> list[str]:
    """Rewrite ``q`` in place against the index, in this order: irregular plurals
    (:func:`plurals`), typo corrections and names (:func:`correct`), the words a prefix stands
    for (:func:`complete`), compounds written otherwise (:func:`alternatives`). Returns the
    notices to show ("corrected lerning → learning"); [] when the query runs as typed.

    Every index word the query shows that is not a word of ``typed`` (the query's text) typed
    as its key (lower case, as the key is) is shown as the abstracts spell it (``q.spelt``,
    :mod:`db.search.surface`): "corrected сети → сетей", not the index's key "сетеи"; "ØRSTED"
    as "Ørsted", not "ørsted"."""
    plurals(conn, q)
    corrections = correct(conn, q, vocabulary)
    complete(conn, q)
    alternatives(conn, q)
    as_typed = {w for w in _WORD_RE.findall(typed) if w == w.lower()}  # (ØRSTED: Ørsted)
    keys = [k for t in q.terms for k in (*t.tokens, *t.variants,
                                         *(w for a in t.alternatives for w in a.split(" ")))]
    keys += [k for _, found, _ in corrections for k in found]
    keys += [k for t in q.authors for k in t.tokens]
    q.spelt = surface_forms(conn, (k for k in keys if k not in as_typed))
    if not corrections:
        return []
    # each misspelt word is named as typed (lower case), found by its folded key: "нейроные"
    # (key "неироные", й folded to и), "βασης" (key "βασησ")
    typed_as = {}
    for word in _WORD_RE.findall(typed.lower()):
        folded = tokens(word)
        if len(folded) == 1:
            typed_as.setdefault(folded[0], word)
    return ["corrected " + ", ".join(
        f"{typed_as.get(a, a)} → {sep.join(q.spelt.get(k, k) for k in found)}"
        for a, found, sep in corrections)]


_WORD_RE = re.compile(r"[^\W_]+")


def known(conn: sqlite3.Connection, token: str, prefix: bool = False) -> bool:
    """Whether ``token`` is in the vocabulary (with ``prefix``, whether a word starts with it)."""
    if prefix:
        return conn.execute("SELECT 1 FROM vocab WHERE term >= ? AND term < ? LIMIT 1",
                            (token, token + "\U0010ffff")).fetchone() is not None
    return conn.execute("SELECT 1 FROM vocab WHERE term = ?", (token,)).fetchone() is not None


def correct(conn: sqlite3.Connection, q: Query, vocabulary
            ) -> list[tuple[str, tuple[str, ...], str]]:
    """Replace unknown words of ``q``'s terms in place; returns ``(typed, index words, how
    they join)``: ``("lerning", ("learning",), "")``, ``("multitask", ("multi", "task"),
    "-")``, ``("tesk", ("task", "test"), " or ")``."""
    corrections = []
    for term in q.positive:
        last = len(term.tokens) - 1
        fixed_tokens = list(term.tokens)
        for i, tok in enumerate(term.tokens):
            if known(conn, tok, prefix=term.prefix and i == last) or in_a_note(conn, tok):
                continue
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
        if _papers(conn, " ".join(parts), prefix, rival + 1) > rival:
            return parts
    return None


#: Singulars and plurals that the index's Porter stemmer keeps apart ("matrix" → "matrix",
#: "matrices" → "matric"): Latin and Greek plurals of words common in abstracts, and English
#: ones. A word of a pair also finds the other. Left out where the other form mostly means
#: something else ("data"/"datum", "media"/"medium", "bases"/"basis", "focus"/"foci").
IRREGULAR_PLURALS = {
    "matrix": "matrices", "index": "indices", "vertex": "vertices", "simplex": "simplices",
    "appendix": "appendices", "helix": "helices", "cortex": "cortices",
    "analysis": "analyses", "hypothesis": "hypotheses", "synthesis": "syntheses",
    "thesis": "theses", "axis": "axes", "crisis": "crises", "diagnosis": "diagnoses",
    "prognosis": "prognoses", "parenthesis": "parentheses", "emphasis": "emphases",
    "criterion": "criteria", "phenomenon": "phenomena", "automaton": "automata",
    "polyhedron": "polyhedra", "optimum": "optima", "maximum": "maxima", "minimum": "minima",
    "spectrum": "spectra", "stratum": "strata", "curriculum": "curricula", "corpus": "corpora",
    "genus": "genera", "nucleus": "nuclei", "radius": "radii", "stimulus": "stimuli",
    "locus": "loci", "syllabus": "syllabi",
    "schema": "schemata", "lemma": "lemmata",
    "mouse": "mice", "child": "children", "man": "men", "woman": "women", "foot": "feet",
    "tooth": "teeth", "goose": "geese", "leaf": "leaves", "knife": "knives", "wolf": "wolves",
    "half": "halves", "shelf": "shelves", "self": "selves",
}
_OTHER_NUMBER = {**IRREGULAR_PLURALS, **{p: s for s, p in IRREGULAR_PLURALS.items()}}


#: Words of a query up to which a word also finds its other number (:func:`plurals`). In a
#: longer query, a title remembered, the form typed is the paper's own: adding the other form
#: there lost 2 of 300 title queries their paper's place at 10,000 abstracts (bench/recall.py,
#: seed 2; the rarer form weighs more in bm25) and found none.
PLURAL_TERMS = 2


def plurals(conn: sqlite3.Connection, q: Query) -> None:
    """Give a one-word term whose singular or plural the stemmer does not reach
    (:data:`IRREGULAR_PLURALS`) that form as a variant, in a query of up to
    :data:`PLURAL_TERMS` words: "matrix" finds "matrices" and the other way round; "-matrix"
    excludes both. In any query a form no paper has is replaced by the other ("optima" is
    "optimum", not corrected to "optimal"). Runs before :func:`correct`. A word being typed (a
    prefix) keeps its prefix and gets the other form as a whole word. A form already there
    is left as it is (the effective query "matrix OR matrices" reads the same when typed
    again)."""
    there = {(t.negated, t.or_group, t.tokens) for t in q.terms}
    short = len(q.positive) <= PLURAL_TERMS
    for term in q.terms:
        if len(term.tokens) != 1:
            continue
        word = term.tokens[0]
        other = _OTHER_NUMBER.get(word)
        if not other or ((term.negated or term.or_group)
                         and (term.negated, term.or_group, (other,)) in there):
            continue
        if known(conn, word, term.prefix) or not known(conn, other):
            if short:
                term.variants = (other,)
        else:
            term.tokens, term.prefix = (other,), False


#: Whole words a prefix also matches as (by document frequency), see :attr:`Term.completions`.
COMPLETIONS = 8


def complete(conn: sqlite3.Connection, q: Query) -> None:
    """Give each one-word prefix of ``q`` the most frequent index words it begins whose stem
    FTS5's stemmed prefix does not begin ("reinforcement" for "reinforcem": the index holds
    "reinforc"; not "adaptively" for "adaptive", which FTS5 searches as "adapt"*). Words the
    prefix matches anyway are left out: a second match would count twice in bm25. An excluded
    prefix gets them too: "-reinforcem*" drops the papers "reinforcem*" finds; and so does the
    last word of a phrase being typed ("multi-objectiv": "objective", stem "object")."""
    from db.search.highlight import stem

    for term in q.terms:
        if term.prefix and term.tokens and not term.variants:
            tok = term.tokens[-1]
            # FTS5 stems the prefix as well: "adaptive"* is "adapt"*, which finds "adaptively"
            # ("adaptive" typed in full counted twice), and "happy"* is "happi"*
            matched = stem(tok)
            words = conn.execute("SELECT term FROM vocab WHERE term > ? AND term < ? "
                                 "ORDER BY df DESC LIMIT ?", (tok, tok + "\U0010ffff", 50))
            stems: set[str] = set()  # one word a stem: each counts in bm25 on its own
            kept = []
            for (w,) in words:
                s = stem(w)
                if not s.startswith(matched) and s not in stems:
                    stems.add(s)
                    kept.append(w)
            term.completions = tuple(kept[:COMPLETIONS])


#: A compound's other spelling is searched too when it is this common next to the spelling
#: typed: "multitask" (180 papers of the 87k corpus) also finds "multi-task" (1,400), but
#: "understanding" does not find "under standing".
ALTERNATIVE_SHARE = 0.25


def alternatives(conn: sqlite3.Connection, q: Query) -> None:
    """Give a word that is two indexed words run together ("multitask", "nonlinear") the
    hyphenated spelling, and a hyphenated pair ("multi-task") the run-together word, when some
    abstracts write it that way: at least 2 papers and :data:`ALTERNATIVE_SHARE` of the papers
    with the spelling typed, one of them hyphenated (:func:`_hyphenated`: "not able" is no
    spelling of "notable"). Parts are 3 letters or more ("predict in" is not "predictin")."""
    # a spelling already there as a sibling (both excluded, or in one OR group) is not added
    # again: the effective query of "multitask OR "multi task"" reads as typed
    siblings = {(t.negated, t.or_group, " ".join(t.tokens)) for t in q.terms
                if t.negated or t.or_group}
    for term in q.terms:
        if term.variants or term.completions:
            continue
        if len(term.tokens) == 1 and len(term.tokens[0]) >= 6:
            word = term.tokens[0]
            cuts = [(word[:i], word[i:]) for i in range(3, len(word) - 2)]
            wanted = [word, *{p for cut in cuts for p in cut}]
            df = dict(conn.execute(f"SELECT term, df FROM vocab WHERE term IN "
                                   f"({','.join('?' * len(wanted))})", wanted))
            if word not in df:
                continue
            floor = max(2, int(df[word] * ALTERNATIVE_SHARE))
            for a, b in sorted((c for c in cuts if c[0] in df and c[1] in df),
                               key=lambda c: -min(df[c[0]], df[c[1]]))[:2]:
                if (min(df[a], df[b]) >= floor
                        and _papers(conn, f"{a} {b}", term.prefix, floor) >= floor
                        and _hyphenated(conn, a, b, term.prefix)):
                    if (term.negated, term.or_group, f"{a} {b}") not in siblings:
                        term.alternatives = (f"{a} {b}",)
                    break
        elif len(term.tokens) == 2 and min(map(len, term.tokens)) >= 3:
            joined = "".join(term.tokens)
            row = conn.execute("SELECT df FROM vocab WHERE term = ?", (joined,)).fetchone()
            if (row and row[0] >= 2 and (term.negated, term.or_group, joined) not in siblings
                    and row[0] >= ALTERNATIVE_SHARE * _papers(
                        conn, " ".join(term.tokens), term.prefix, int(row[0] / ALTERNATIVE_SHARE))
                    and _hyphenated(conn, *term.tokens, term.prefix)):
                term.alternatives = (joined,)


def _papers(conn: sqlite3.Connection, phrase: str, prefix: bool, enough: int) -> int:
    """Papers with the phrase (its last word a prefix with ``prefix``), counted up to
    ``enough``."""
    return conn.execute("SELECT count(*) FROM (SELECT 1 FROM papers_fts WHERE papers_fts MATCH ? "
                        "LIMIT ?)", (f'"{phrase}"' + ("*" if prefix else ""), enough)).fetchone()[0]


#: Papers with a compound's two words side by side that :func:`_hyphenated` reads for the
#: hyphen: "multi task" is nearly always written "multi-task", so the first few show it.
HYPHEN_SAMPLE = 50


def _hyphenated(conn: sqlite3.Connection, a: str, b: str, prefix: bool) -> bool:
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
