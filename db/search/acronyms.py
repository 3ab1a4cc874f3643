"""Stage 2b of a search: acronyms and their long forms find each other.

The index knows which acronyms its abstracts define (``acronyms``, mined at sync time by
:mod:`db.index.acronyms`). After the rewrite (:mod:`db.search.rewrite`), :func:`expand`

* gives a word that is a short form (``RLHF``, typed in any case) its long forms as
  :attr:`~db.search.terms.Term.acronyms`, each as all its words but stop-words, as the long
  form typed as words finds: ``rlhf`` runs as ``("rlhf" OR ("reinforcement" AND "learning"
  AND "human" AND "feedback"))``, and ``-RLHF`` excludes both;
* gives each word of a run of words that is a long form (``reinforcement learning from human
  feedback``, typed as words) the short form as an alternative: ``(reinforcement OR rlhf) AND
  (learning OR rlhf) AND …``, which is ``(the words AND-ed) OR rlhf``. The run still finds
  every paper it found before, whose words need not stand together, and every word still
  counts as one word (partial matches, the re-ranking of title-like queries); bm25 counts the
  short form once for each word, so a paper that writes only "RLHF" ranks with those that
  write the words.

Quoting a word or phrase (``"RLHF"``) turns this off for it. Only short forms written in
capitals count (:func:`_in_capitals`): "us" and "it" are defined by some abstracts ("(US)",
"(IT)") but written in lower case by most, and must stay plain words. One indexed lookup of
``acronyms`` per query (two B-tree probes per word and per run: ~0.1 ms), and, when a short
form is found, one of its spelling (:func:`db.search.surface.surface_forms`, ~0.5 ms).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from db.index.acronyms import LONG_TOKENS, singular
from db.search.query import Query
from db.search.stopwords import STOP_WORDS
from db.search.surface import surface_forms
from db.search.terms import Term
from db.text import join_tokens

#: Share of its short form's definitions a long form needs for the long form typed to find the
#: short form too (the pairs kept have 20% at least, :data:`db.index.acronyms.MIN_SHARE`): a
#: short form that means something else in a third of its definitions ("CL": continual,
#: contrastive or curriculum learning) finds papers of the other meaning too, so the long form
#: does not bring it in; the short form typed still finds each of its long forms.
LONG_TO_SHORT_SHARE = 0.5
#: Capital letters a short form's usual spelling has (``RLHF``, ``ViT``, ``mAP``; not ``us``).
MIN_CAPITALS = 2


@dataclass(slots=True)
class _Pair:
    short: str
    long: str  # tokens, space-separated
    shown: str  # the long form's words, one per token
    share: float


def expand(conn: sqlite3.Connection, q: Query) -> list[str]:
    """Give ``q``'s short forms their long forms and its long forms their short form, in
    place (the module's docstring); returns the notices ("also searching RLHF for
    reinforcement learning from human feedback"), [] when nothing was added. Index words
    added are given their spelling in ``q.spelt``."""
    runs = _runs(q.terms)
    singles = {i: t.tokens[0] for i, t in enumerate(q.terms)
               if len(t.tokens) == 1 and not t.quoted and sum(map(str.isalpha, t.tokens[0])) >= 2}
    shorts = {k for tok in singles.values() for k in _short_keys(tok)}
    if not runs and not shorts:
        return []
    found, by_key = _lookup(conn, shorts, {key for _, _, key in runs})
    if not found and not by_key:
        return []
    spelling = _in_capitals(conn, {p.short for ps in (*found.values(), *by_key.values())
                                   for p in ps})
    searched, taken = _expand_runs(q, runs, by_key, spelling)
    more, excluded = _expand_shorts(q, singles, found, spelling, taken)
    searched = list(dict.fromkeys([*searched, *more]))  # "LLM LLM": said once
    excluded = list(dict.fromkeys(excluded))
    return [*(["also searching " + ", ".join(searched)] if searched else []),
            *(["also excluding " + ", ".join(excluded)] if excluded else [])]


def _lookup(conn: sqlite3.Connection, shorts: set[str], keys: set[str]
            ) -> tuple[dict[str, list[_Pair]], dict[str, list[_Pair]]]:
    """``(by short form, by long form's key)``: the pairs of ``acronyms`` whose short form is
    in ``shorts``, and those whose long form's key is in ``keys`` and that have
    :data:`LONG_TO_SHORT_SHARE` of their short form's definitions; one statement."""
    found: dict[str, list[_Pair]] = {}
    by_key: dict[str, list[_Pair]] = {}
    try:
        rows = conn.execute(
            f"SELECT short, singular, long, shown, share FROM acronyms WHERE short IN "
            f"({','.join('?' * len(shorts))}) OR singular IN ({','.join('?' * len(keys))})",
            [*shorts, *keys]).fetchall()
    except sqlite3.OperationalError:  # (an index being rebuilt has no such table yet)
        return found, by_key
    for short, key, long, shown, share in rows:
        pair = _Pair(short, long, shown, share)
        if short in shorts:
            found.setdefault(short, []).append(pair)
        if key in keys and share >= LONG_TO_SHORT_SHARE:
            by_key.setdefault(key, []).append(pair)
    return found, by_key


def _expand_runs(q: Query, runs: list[tuple[int, int, str]], by_key: dict[str, list[_Pair]],
                 spelling: dict[str, str]) -> tuple[list[str], set[int]]:
    """Give each word of a run that is a long form its short forms, the longest runs first;
    returns the notices and the terms taken (by index in ``q.terms``)."""
    notices: list[str] = []
    taken: set[int] = set()
    for start, end, key in sorted(runs, key=lambda r: (r[0] - r[1], r[0])):
        pairs = [p for p in by_key.get(key, ()) if p.short in spelling]
        if not pairs or taken.intersection(range(start, end)):
            continue
        taken.update(range(start, end))
        for term in q.terms[start:end]:
            term.acronyms += tuple(p.short for p in pairs if p.short not in term.acronyms)
        for p in pairs:
            q.spelt.setdefault(p.short, spelling[p.short])
        typed = join_tokens([q.spelt.get(k, k) for t in q.terms[start:end] for k in t.tokens])
        notices.append(f"{' or '.join(spelling[p.short] for p in pairs)} for {typed}")
    return notices, taken


def _expand_shorts(q: Query, singles: dict[int, str], found: dict[str, list[_Pair]],
                   spelling: dict[str, str], taken: set[int]) -> tuple[list[str], list[str]]:
    """Give each word that is a short form (``singles``: index in ``q.terms`` → token) its
    long forms; returns the notices of words searched and of words excluded."""
    searched: list[str] = []
    excluded: list[str] = []
    siblings = {(t.negated, t.or_group, " ".join(t.tokens)) for t in q.terms
                if t.negated or t.or_group}
    for i, tok in singles.items():
        term = q.terms[i]
        short = next((k for k in _short_keys(tok) if k in found), None)
        if i in taken or short is None or short not in spelling:
            continue
        pairs = [p for p in found[short] if _content(p.long) not in term.acronyms
                 and p.long not in term.alternatives
                 and (term.negated, term.or_group, p.long) not in siblings]
        if not pairs:
            continue
        term.acronyms = tuple(dict.fromkeys((*term.acronyms, *(_content(p.long) for p in pairs))))
        for p in pairs:
            for k, word in zip(p.long.split(" "), p.shown.split(" "), strict=False):
                q.spelt.setdefault(k, word)
        longs = " or ".join(p.shown for p in pairs)
        if term.negated:
            excluded.append(f"{longs} for -{spelling[short]}")
        else:
            searched.append(f"{longs} for {spelling[short]}")
    return searched, excluded


def _content(long: str) -> str:
    """A long form's tokens without its stop-words ("reinforcement learning human feedback"):
    it is searched as all of them, as the long form typed as words is."""
    kept = [w for w in long.split(" ") if w not in STOP_WORDS]
    return " ".join(kept) if kept else long


def _short_keys(token: str) -> tuple[str, ...]:
    """The keys a word may have as a short form: itself, and a plural's singular ("llms")."""
    if len(token) >= 3 and token.endswith("s"):  # "lms" is "lm"
        return token, token[:-1]
    return (token,)


def _runs(terms: list[Term]) -> list[tuple[int, int, str]]:
    """``(start, end, key)`` of every run ``terms[start:end]`` of plain words (not excluded,
    quoted, in an OR group or corrected to a near tie) whose tokens could be a long form
    (:data:`db.index.acronyms.LONG_TOKENS`); ``key`` is their tokens made singular, as
    ``acronyms.singular`` has them (:func:`db.index.acronyms.singular`)."""
    plain = [not (t.negated or t.quoted or t.or_group or t.variants) and bool(t.tokens)
             for t in terms]
    out = []
    for start in range(len(terms)):
        words: list[str] = []
        for end in range(start, len(terms)):
            if not plain[end]:
                break
            words += terms[end].tokens
            if len(words) > LONG_TOKENS[1]:
                break
            if len(words) >= LONG_TOKENS[0]:
                out.append((start, end + 1, " ".join(map(singular, words))))
    return out


def _in_capitals(conn: sqlite3.Connection, shorts: set[str]) -> dict[str, str]:
    """``{short: spelling}`` of the short forms that the abstracts write with
    :data:`MIN_CAPITALS` capital letters at least, as they write them
    (:func:`db.search.surface.surface_forms`; a short form written only as a plural, "LLMs",
    by its plural's spelling)."""
    spelt = surface_forms(conn, shorts)
    missing = [s + "s" for s in shorts if s not in spelt]
    if missing:
        spelt.update(surface_forms(conn, missing))
    out = {}
    for s in shorts:
        written = spelt.get(s) or spelt.get(s + "s", "")
        if sum(map(str.isupper, written)) >= MIN_CAPITALS:
            out[s] = written if s in spelt else written[:-1]
    return out
