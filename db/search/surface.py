"""Words of the index as the abstracts write them: what a search shows of a word it took from
the index (a correction, a plural, a compound's other spelling, the words of ``like:``).

The index and its vocabulary hold folded keys (:func:`db.text.tokens`: NFKC, case-folded,
diacritics removed): "сетей" is ``сетеи``, "Müller" ``muller``, "Straße" ``strasse``, "λόγος"
``λογοσ``, "Işık" ``isık``. Shown to a reader, a key is a word no one wrote; its surface form is
the spelling the papers that have the word use most (NFKC, so a ligature reads as its letters),
in the case it has within a sentence (a capital at a sentence's start does not count, unless
the word is never written otherwise).
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterable

from db.text import tokens

#: Papers read for a word's spellings: the first the full-text index gives (0.4-0.8 ms a word
#: on the shipped seeds).
SAMPLE = 20
#: A letter or digit outside ASCII.
_OTHER_LETTER_RE = re.compile(r"[^\x00-\x7f\W]")
#: What ends a sentence: a word right after it (and a space) may be capitalized for that alone.
_SENTENCE_END = ".!?:;\n"


def surface_forms(conn: sqlite3.Connection, words: Iterable[str]) -> dict[str, str]:
    """``{key: spelling}`` of index words (folded keys) as the abstracts, titles and author
    lists that have them write them most (see the module's docstring); a key no paper spells
    as one word (a CJK character) is left out: the caller shows the key."""
    found: dict[str, str] = {}
    for key in dict.fromkeys(words):
        if not key or key in found:
            continue
        try:
            rows = conn.execute(
                "SELECT title, coalesce(abstract_source, abstract), authors FROM papers WHERE "
                "rowid IN "
                "(SELECT rowid FROM papers_fts WHERE papers_fts MATCH ? LIMIT ?)",
                (f'"{key}"', SAMPLE)).fetchall()
        except sqlite3.OperationalError:  # (a key is letters and digits; never expected)
            continue
        spelling = _most_written(key, (text for row in rows for text in row if text))
        if spelling:
            found[key] = spelling
    return found


def _most_written(key: str, texts: Iterable[str]) -> str | None:
    within: Counter[str] = Counter()  # spellings inside a sentence
    starting: Counter[str] = Counter()  # spellings at a sentence's start
    keys: dict[str, tuple[str, ...]] = {}
    for text in texts:
        if not text.isascii():
            text = unicodedata.normalize("NFKC", text)
        # an ASCII spelling of the key is the key in any case; a word with other letters is
        # folded to see whether it is the key (Müller, Straße, сетей)
        spans = _plain_spans(key, text) if key.isascii() else []
        if not text.isascii():
            for span in _other_words(text):
                word = text[span[0]:span[1]]
                if word not in keys:
                    keys[word] = tokens(word)
                if keys[word] == (key,):
                    spans.append(span)
        for start, end in spans:
            at = start - 1
            while at >= 0 and text[at] == " ":
                at -= 1
            (starting if at < 0 or text[at] in _SENTENCE_END else within)[text[start:end]] += 1
    counts = within or starting
    if not counts:
        return None
    # the most written; a tie goes to the lower-case spelling, then the first in code order
    return min(counts, key=lambda w: (-counts[w], w != w.lower(), w))


def _plain_spans(key: str, text: str) -> list[tuple[int, int]]:
    """Where ``text`` has the ASCII word ``key`` in any case, as a whole word (``str.find``
    in the lower-cased text: 20 abstracts in ~0.1 ms, a regular expression took 2 ms)."""
    low = text.lower()
    if len(low) != len(text):  # (a letter whose lower case is longer: İ)
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    spans, at, n = [], low.find(key), len(key)
    while at >= 0:
        end = at + n
        if not (at and _is_word(text[at - 1])) and not (end < len(text) and _is_word(text[end])):
            spans.append((at, end))
        at = low.find(key, end)
    return spans


def _is_word(ch: str) -> bool:
    return ch.isalnum()


def _other_words(text: str) -> list[tuple[int, int]]:
    """Where ``text`` has a word with a letter or digit outside ASCII: found by that letter
    (a scan for one character class), then widened to the whole word."""
    spans: list[tuple[int, int]] = []
    for m in _OTHER_LETTER_RE.finditer(text):
        if spans and m.start() < spans[-1][1]:
            continue  # (in the word found last)
        start, end = m.start(), m.end()
        while start and _is_word(text[start - 1]):
            start -= 1
        while end < len(text) and _is_word(text[end]):
            end += 1
        spans.append((start, end))
    return spans
