"""One paper as read from a seed file (:class:`Entry`), and the fields derived from an abstract.

Every seed format makes its entries with :func:`abstract_entry` (id, name, headline and links
from the abstract) and adds the fields its records carry (title, authors, year, venue, links).
"""

from __future__ import annotations

import ast
import json
import operator
import re
from dataclasses import dataclass, fields

from db.seeds.dictionary import is_english_word
from db.text import paper_id, repair_hyphenation, single_spaced

_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")


class SeedError(Exception):
    """A seed file that yields no papers. ``status`` is "empty" or "error"; str() is the reason."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status = status


@dataclass(frozen=True, slots=True)
class Entry:
    """One abstract as read from a seed file, with its derived fields."""

    id: str
    position: int
    collection: str
    abstract_source: str
    abstract_markup: str
    name: str | None
    title: str | None
    headline: str
    urls: tuple[str, ...]
    code_url: str | None
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None
    #: the venue's decision on the paper, as the record writes it ("Oral", "Spotlight", "Poster")
    decision: str | None = None
    track: str | None = None
    keywords: tuple[str, ...] = ()
    #: the primary area (subject area) the record gives
    area: str | None = None
    #: the links the record itself gives, ``(kind, url)`` in the record's order; kinds are
    #: those of :data:`LINK_KINDS`
    links: tuple[tuple[str, str], ...] = ()
    #: True when the record came from a format with fields (JSON, CSV, BibTeX): its title,
    #: authors, year, venue and links then win over a text seed's for the same paper (db.index.sync)
    rich: bool = False

    def __reduce__(self) -> tuple:
        # pickled as the tuple of its fields (a large sync's worker processes send entries
        # back): the dataclass's own state sets each field in a Python loop on unpickling,
        # which took twice as long
        return (Entry, _entry_fields(self))


_entry_fields = operator.attrgetter(*(f.name for f in fields(Entry)))

#: The kinds of a record's own links, the paper's own page first: the order in which a front
#: end picks "the paper's link" (db.models.Paper.links)
LINK_KINDS = ("paper", "doi", "arxiv", "openreview", "pdf", "code")
#: The fields of an entry that only structured seeds give and that the index keeps together as
#: one JSON object (db.index.rows.details_json)
DETAILS = ("decision", "track", "keywords", "area", "links")


def collection_label(header: str) -> str:
    """The collection a header names: "CONF YEAR" when it names a conference and year, else itself.

    ``ICML 2025 Papers`` and ``ICML 2025 论文列表`` both give ``ICML 2025``; the conference is the
    word before the year when it is an acronym-like word (two or more capitals: ICML, NeurIPS).
    """
    header = " ".join(header.split())
    m = _YEAR_RE.search(header)
    if m:
        before = header[: m.start()].split()
        if before and sum(ch.isupper() for ch in before[-1]) >= 2:
            return f"{before[-1].strip(',:;-')} {m.group(1)}"
    return header


def abstract_entry(abstract: str, position: int, collection: str) -> Entry:
    """The entry of one abstract with its derived fields (name, headline, links); the other
    formats (:mod:`db.seeds.formats`) start from this and add the fields their records carry."""
    # imported here: a command that finds nothing to parse (the usual case) never pays for them
    from db.seeds.derive import code_url, headline, method_name, urls

    source = single_spaced(abstract)
    markup = repair_hyphenation(source, is_english_word)
    links = tuple(urls(source))
    return Entry(
        id=paper_id(source),
        position=position,
        collection=collection,
        abstract_source=source,
        abstract_markup=markup,
        name=method_name(markup, is_english_word),
        title=None,
        headline=headline(markup),
        urls=links,
        code_url=code_url(list(links)),
    )


def listed(text: str) -> list | str:
    """A list written as its literal (``['a', 'b']`` or ``["a", "b"]``: how a CSV file written
    from a data frame holds a list of authors or keywords) as that list of its items; any
    other text (not bracketed, not a literal, or holding more than names) as it is."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")) or len(text) > 100_000:
        return text
    for read in (json.loads, ast.literal_eval):
        try:
            items = read(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(items, list) and all(isinstance(i, str | int | float) for i in items):
            return items
    return text


#: what a URL may not hold as it is: white space, quotes, angle brackets and the like
_UNSAFE_URL_RE = re.compile(r'[\s"<>\\^`{|}]')


def web_address(url: str) -> str:
    """``url`` with the characters a URL may not hold as they are percent-encoded (a DOI with
    a space, a link pasted with a quote): a terminal's hyperlink, a Markdown export's
    ``<…>`` and a web browser each read it as one address."""
    return _UNSAFE_URL_RE.sub(lambda m: f"%{ord(m.group()):02X}", url)
