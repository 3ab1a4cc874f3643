"""Rewriting a parsed query against the index before it runs: typo corrections, method names
typed without their punctuation, compounds written otherwise, irregular plurals, and the words a
prefix stands for.

Every function changes the :class:`db.search.query.Query` in place and reads the index (the
``vocab``
table of unstemmed words and the FTS5 index), never the marks.
"""

from __future__ import annotations

import re
import sqlite3

from db.search.notes import in_a_note
from db.search.query import Query
from db.search.spelling import Vocabulary


def known(conn: sqlite3.Connection, token: str, prefix: bool = False) -> bool:
    """Whether ``token`` is in the vocabulary (with ``prefix``, whether a word starts with it)."""
    if prefix:
        return conn.execute("SELECT 1 FROM vocab WHERE term >= ? AND term < ? LIMIT 1",
                            (token, token + "\U0010ffff")).fetchone() is not None
    return conn.execute("SELECT 1 FROM vocab WHERE term = ?", (token,)).fetchone() is not None


def correct(conn: sqlite3.Connection, q: Query, vocabulary) -> list[tuple[str, str]]:
    """Replace unknown words of ``q``'s terms in place; returns ``(typed, corrected)`` pairs."""
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
                corrections.append((tok, "-".join(parts)))
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
            corrections.append((tok, " or ".join(spellings)))
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
