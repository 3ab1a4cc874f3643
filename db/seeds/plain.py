"""The plain-text seed format (DESIGN.md): line 1 is a header naming the collection, then one
abstract per paragraph, paragraphs separated by blank lines. No titles, authors or ids.
"""

from __future__ import annotations

import re

from db.seeds.entry import Entry, SeedError, abstract_entry, collection_label

#: A blank line ends an abstract: a line with nothing but white space on it (spaces, tabs, NBSP,
#: a form feed, U+2029...). Nothing else does: a form feed or a paragraph separator (U+2029)
#: inside a line is a space between two words of the same abstract (PDF text has them mid-
#: sentence: a page break, a line break converted badly).
_PARAGRAPH_RE = re.compile(r"\n[^\S\n]*\n\s*")


_MAX_HEADER = 160  # characters: a longer first paragraph is an abstract, not a header


def parse_text(text: str, fallback_label: str) -> tuple[str, list[Entry]]:
    """Parse decoded seed text into ``(collection, entries)``.

    The first paragraph is the header when it is one short line; otherwise the file has no header
    and ``fallback_label`` (the file's name) is the collection. Raises :class:`SeedError` with
    status "empty" when there is no abstract.
    """
    paragraphs = [p.strip() for p in _PARAGRAPH_RE.split(text.strip())]
    paragraphs = [p for p in paragraphs if p]
    if not paragraphs:
        raise SeedError("empty", "empty file")
    first_lines = paragraphs[0].split("\n")
    if is_header(first_lines[0]):
        collection = collection_label(first_lines[0])
        rest = "\n".join(first_lines[1:]).strip()
        paragraphs = ([rest] if rest else []) + paragraphs[1:]
    else:
        collection = fallback_label
    if not paragraphs:
        raise SeedError("empty", "header only, no abstracts")
    return collection, [abstract_entry(para, position, collection)
                        for position, para in enumerate(paragraphs, start=1)]


def is_header(line: str) -> bool:
    """Whether ``line``, the first line of a text seed file, is its header: at most
    160 characters and not ending a sentence (a longer or finished line is an abstract)."""
    return len(line) <= _MAX_HEADER and not line.rstrip().endswith(".")
