"""Stage 2 of a search: the parsed query rewritten against the index before it runs (typo
corrections and words no paper has, :mod:`db.search.spelling`; compounds written otherwise,
irregular plurals, the words a prefix stands for).

Every function changes the :class:`db.search.query.Query` in place and reads the index (the
``vocab`` table of unstemmed words and the FTS5 index) and the notes' words, never the marks.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from db.search.fields import drop_absent, drop_authorless
from db.search.query import Query
from db.search.spelling import Vocabulary, correct, hyphenated, known, phrase_papers
from db.search.stopwords import mark_stop_words
from db.search.surface import surface_forms
from db.search.terms import Term
from db.seeds.dictionary import is_english_word
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
    cut = drop_absent(conn, q.fields) + drop_authorless(conn, q.authors)
    cut += keep_rarest(conn, q)
    plurals(conn, q)
    corrections, absent = correct(conn, q, vocabulary)
    mark_stop_words(q.terms)  # "thier" corrected is "their"
    complete(conn, q)
    alternatives(conn, q)
    as_typed = {w for w in _WORD_RE.findall(typed) if w == w.lower()}  # (ØRSTED: Ørsted)
    keys = [k for t in q.terms for k in (*t.tokens, *t.variants,
                                         *(w for a in t.alternatives for w in a.split(" ")))]
    keys += [k for _, found, _ in corrections for k in found]
    keys += [k for t in q.authors for k in t.tokens]
    q.spelt = surface_forms(conn, (k for k in keys if k not in as_typed))
    typed_as = _typed_as(typed)
    notices = [_absent_notice([typed_as.get(a, a) for a in absent])] if absent else []
    notices += cut
    if not corrections:
        return notices
    return ["corrected " + ", ".join(
        f"{typed_as.get(a, a)} → {sep.join(q.spelt.get(k, k) for k in found)}"
        for a, found, sep in corrections), *notices]


#: Words of a query searched (each costs a pass over its papers); in a longer query the
#: commonest words are left out, as they carry the least (a question of 60 words keeps its 32
#: rarest), and the same for exclusions past the first 32.
MAX_TERMS = 32


def keep_rarest(conn: sqlite3.Connection, q: Query) -> list[str]:
    """Leave out of ``q`` the commonest of its words past :data:`MAX_TERMS` (a word repeated
    counts once; document frequency from ``vocab``; a phrase counts as its rarest word; a word
    no paper has as the rarest) and the exclusions past the first :data:`MAX_TERMS`. Returns
    the notices saying so."""
    notices = []
    words = list({(t.fts(), t.or_group): t for t in q.positive}.values())
    if len(words) > MAX_TERMS:
        keys = list({k for t in words for k in t.tokens})
        df = dict(conn.execute(f"SELECT term, df FROM vocab WHERE term IN "
                               f"({','.join('?' * len(keys))})", keys))
        kept = sorted(words, key=lambda t: _rarity(t, df))[:MAX_TERMS]
        notices.append(f"only the {MAX_TERMS} rarest of {len(words)} words are used")
    else:
        kept = q.positive
    excluded = q.negative
    if len(excluded) > MAX_TERMS:
        notices.append(f"only the first {MAX_TERMS} exclusions are used")
    keep = {id(t) for t in (*kept, *excluded[:MAX_TERMS])}
    keep |= {id(t) for t in q.terms if t.stop}
    q.terms = [t for t in q.terms if id(t) in keep]
    return notices


def _rarity(term: Term, df: dict[str, int]) -> tuple[bool, int]:
    """How rare a term is, the rarest first: a phrase is as rare as its rarest word; a word no
    paper has is rarest, unless it is an English word (left out by db.search.spelling: it
    comes last, so that it takes no other word's place)."""
    absent = [k for k in term.tokens if k not in df]
    return (bool(absent) and all(map(is_english_word, absent)),
            min((df.get(k, 0) for k in term.tokens), default=0))


def _typed_as(typed: str) -> dict[str, str]:
    """``{folded key: the word as typed, lower case}``: a misspelt or absent word is named as
    typed, found by its key ("нейроные", key "неироные": й folded to и; "βασης", key "βασησ")."""
    out: dict[str, str] = {}
    for word in _WORD_RE.findall(typed.lower()):
        folded = tokens(word)
        if len(folded) == 1:
            out.setdefault(folded[0], word)
    return out


def _absent_notice(words: list[str]) -> str:
    """"no paper has obeyed (searched without it)"."""
    listed = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]
    return f"no paper has {listed} (searched without {'them' if len(words) > 1 else 'it'})"


_WORD_RE = re.compile(r"[^\W_]+")


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
                        and phrase_papers(conn, f"{a} {b}", term.prefix, floor) >= floor
                        and hyphenated(conn, a, b, term.prefix)):
                    if (term.negated, term.or_group, f"{a} {b}") not in siblings:
                        term.alternatives = (f"{a} {b}",)
                    break
        elif len(term.tokens) == 2 and min(map(len, term.tokens)) >= 3:
            joined = "".join(term.tokens)
            row = conn.execute("SELECT df FROM vocab WHERE term = ?", (joined,)).fetchone()
            if (row and row[0] >= 2 and (term.negated, term.or_group, joined) not in siblings
                    and row[0] >= ALTERNATIVE_SHARE * phrase_papers(
                        conn, " ".join(term.tokens), term.prefix, int(row[0] / ALTERNATIVE_SHARE))
                    and hyphenated(conn, *term.tokens, term.prefix)):
                term.alternatives = (joined,)
