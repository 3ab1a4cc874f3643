"""Which words of a text a query matched, as the index sees them: for highlights, snippets and
the re-ranking of partial matches.

The index stems English words with FTS5's ``porter`` tokenizer; :func:`stem` is the same Porter
algorithm (snowballstemmer's ``porter``), so ``learning`` matches ``learned`` here exactly when it
does in the index. CJK characters are one token each, as in the index (:func:`db.text.split_cjk`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import lru_cache

from db.text import CJK_CLASS, fold

# a word, with the combining accents of a decomposed letter ("cafe\u0301") kept in it
_TOKEN_RE = re.compile(f"{CJK_CLASS}|(?:(?!{CJK_CLASS})[^\\W_])(?:(?!{CJK_CLASS})[^\\W_]"
                       "|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff])*")
SNIPPET_CHARS = 200  # about two lines of a terminal: enough to see a hit in its sentence


@lru_cache(maxsize=1)
def _porter():
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


_STEMS: dict[str, str] = {}


def stem(token: str) -> str:
    """The index's stem of a folded token: Porter for ASCII letters, the token itself otherwise."""
    found = _STEMS.get(token)
    if found is None:
        found = _porter().stemWord(token) if token.isascii() and token.isalpha() else token
        if len(_STEMS) < 500_000:  # a bound on memory for a process that reads every abstract
            _STEMS[token] = found
    return found


def _spans(text: str) -> Iterator[tuple[int, int, str]]:
    for m in _TOKEN_RE.finditer(text):
        word = m.group()
        yield m.start(), m.end(), fold(word) if not word.isascii() else word.lower()


def _matcher(terms: Sequence[str]):
    """``term`` matches a token with the same stem; ``term*`` any token starting with term, or
    whose stem starts with term's stem (FTS5 stems a prefix too: "adaptive"* is "adapt"*,
    which finds "adaptation")."""
    terms = [fold(t) for t in terms]
    stems = {stem(t) for t in terms if t and not t.endswith("*")}
    prefixes = tuple(t[:-1] for t in terms if t.endswith("*") and len(t) > 1)
    stemmed = tuple({stem(p) for p in prefixes})

    def matches(tok: str) -> bool:
        found = stem(tok)
        return found in stems or (bool(prefixes) and (
            tok.startswith(prefixes) or found.startswith(stemmed)))

    return matches


def match_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of the words of ``text`` that ``terms`` match.

    ``terms`` are folded query tokens as in :attr:`db.models.SearchResult.terms` (``word*`` for a
    prefix). Offsets index ``text`` itself, ascending; no text makes it raise.
    """
    if not terms or not text:
        return []
    matches = _matcher(terms)
    return [(a, b) for a, b, tok in _spans(text) if matches(tok)]


def snippet(text: str, terms: Sequence[str], marks: tuple[str, str] = ("**", "**"),
            width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``text`` (one line) around its densest run of matches,
    each match wrapped in ``marks``; "…" where text was cut. No match: the start of ``text``."""
    text = " ".join(text.split())
    spans: list[tuple[int, int]] = []
    for a, b in match_spans(text, terms):  # "**C-3PO**", not "**C**-**3PO**"
        if spans and not text[spans[-1][1]:a].strip(" -"):
            spans[-1] = (spans[-1][0], b)
        else:
            spans.append((a, b))
    best_start, best_count = 0, 0
    for i, (a, _) in enumerate(spans):
        count = sum(1 for s, e in spans[i:] if e - a <= width)
        if count > best_count:
            best_start, best_count = a, count
    start = max(0, best_start - width // 5) if spans else 0
    if start:
        start = text.rfind(" ", 0, start) + 1
    end = min(len(text), start + width)
    if end < len(text):
        end = max(text.rfind(" ", start, end), start + width // 2)
    out, pos = [], start
    for a, b in spans:
        if a >= start and b <= end:
            out += [text[pos:a], marks[0], text[a:b], marks[1]]
            pos = b
    out.append(text[pos:end])
    return ("… " if start else "") + "".join(out) + (" …" if end < len(text) else "")
