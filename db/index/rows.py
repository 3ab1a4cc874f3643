"""A seed entry as the index stores it: its row of ``papers``, the words it adds to the
vocabulary, and the fields a structured seed gives it (kept in ``sources.meta``).
"""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from itertools import chain

from db.index.acronyms import of_paper
from db.seeds.entry import DETAILS, Entry
from db.text import NOT_WORD_BYTES, WORD_RE, fold, non_ascii_pieces, search_form


def terms_of(text: str) -> set[str]:
    """The distinct words of ``text`` as the vocabulary stores them (folded, unstemmed)."""
    if text.isascii():  # WORD_RE.findall's words, a third faster: non-words to spaces, split
        words = set(text.lower().encode().translate(NOT_WORD_BYTES).decode().split())
        return {w for w in words if "_" not in w} if "_" in text else words
    # the same with text that is not ASCII (a fifth of abstracts: a dash, a quote, an accent):
    # ASCII non-words to spaces in the UTF-8 bytes (the bytes of other characters are >= 128),
    # and only the space-separated pieces that hold another character go through WORD_RE
    # (a regex scan of the whole text: 44 µs instead of 33); tests/test_parse_fast_paths.py
    # compares
    spaced = unicodedata.normalize("NFKC", text).casefold().encode().translate(
        NOT_WORD_BYTES).decode()
    ascii_parts, words = [], []
    for piece, other in non_ascii_pieces(spaced):
        if other:
            words += WORD_RE.findall(piece)
        else:
            ascii_parts.append(piece)
    terms = set(" ".join(ascii_parts).split())
    if "_" in spaced:
        terms = {w for w in terms if "_" not in w}
    terms.update(w if w.isascii() else fold(w) for w in words if "_" not in w)
    return terms


#: The columns of ``papers`` that a seed entry fills, in the order of :func:`paper_row`.
#: ``derived_name`` is the entry's name too: db.index.names hides ``name`` where it is shared.
PAPER_COLUMNS = ("id", "name", "title", "headline", "abstract_source", "abstract", "body",
                  "urls", "code_url", "authors", "year", "venue", "details", "derived_name")


def prepare(e: Entry) -> tuple:
    """What the index needs of an entry: its :func:`paper_row`."""
    return paper_row(e)


#: What the index needs of a file's entries (:func:`prepare_file`): ``(rows, vocab, extras)``,
#: the :func:`paper_row` of each entry, term → papers of the file that have it, and for each
#: entry ``(meta, acronyms)``: its :func:`meta_json` and :func:`db.index.acronyms.of_paper`.
Prepared = tuple[list[tuple], Counter[str], list[tuple[str | None, set[tuple[str, str, str]]]]]


def prepare_file(entries: list[Entry]) -> Prepared:
    """:func:`prepare` of each entry, the file's vocabulary (term → papers of this file that
    have it; a paper twice in the file counts once), and each entry's sources JSON and acronym
    definitions (:data:`Prepared`).

    Runs where the entries were parsed (a worker process on a large sync, see db.seeds.parallel),
    so that the calling process, which writes every paper, adds up ~50 counters (~25,000 words
    each) instead of counting every paper's ~110 words (12 µs a paper), and neither encodes a
    record's fields nor mines its acronyms.
    """
    rows = [paper_row(e) for e in entries]
    seen: set[str] = set()

    def terms() -> Iterator[set[str]]:  # (one paper's words at a time: ~10 kB each)
        for e, row in zip(entries, rows, strict=True):
            if e.id not in seen:
                seen.add(e.id)
                yield entry_terms(e, row[6])

    vocab: Counter[str] = Counter()
    vocab.update(chain.from_iterable(terms()))  # (one call: counted in C)
    # (PAPER_COLUMNS' order: title, then abstract as the index stores it)
    extras = [(meta_json(e), of_paper(row[2], row[5]))
              for e, row in zip(entries, rows, strict=True)]
    return rows, vocab, extras


def join_prepared(parts: list[tuple[list[Entry], Prepared]]) -> Prepared:
    """:func:`prepare_file` of a whole file from that of its parts (``(entries, prepared)``
    each, in order; db.seeds.chunks): the rows and extras one after the other, the
    vocabularies summed, and a paper found in two parts counted once, as :func:`prepare_file`
    counts it."""
    rows: list[tuple] = []
    vocab: Counter[str] = Counter()
    extras: list = []
    seen: set[str] = set()
    for entries, (part_rows, part_vocab, part_extras) in parts:
        vocab.update(part_vocab)
        in_part: set[str] = set()
        for e, row in zip(entries, part_rows, strict=True):
            if e.id in seen and e.id not in in_part:
                vocab.subtract(entry_terms(e, row[6]))
            in_part.add(e.id)
        seen |= in_part
        rows += part_rows
        extras += part_extras
    return rows, +vocab, extras


def paper_row(e: Entry) -> tuple:
    """An entry as the values of :data:`PAPER_COLUMNS`: the one place an Entry becomes a row.

    body: the abstract as the FTS indexes it (CJK characters split, db.text.search_form), NULL
    when that is the abstract itself; the vocabulary is taken from the same form, so that
    "BERT" inside Chinese text is a known word.
    """
    return (e.id, e.name, e.title, e.headline, source_text(e), e.abstract_markup,
            search_body(e.abstract_markup), json.dumps(list(e.urls)) if e.urls else "[]",
            e.code_url, authors_text(e), e.year, e.venue, details_json(e), e.name)


def details_json(e: Entry) -> str | None:
    """The :data:`~db.seeds.entry.DETAILS` an entry has, as one JSON object (only those it has;
    None when it has none, as every text seed's paper): ``{"decision": "Oral", "track": "main",
    "keywords": ["a", "b"], "area": "…", "links": [["paper", "https://…"], …]}``."""
    found = _details(e)
    return json.dumps(found, ensure_ascii=False) if found else None


def _details(e: Entry) -> dict:
    """The :data:`~db.seeds.entry.DETAILS` an entry has (none for a text seed's: at once)."""
    if not (e.decision or e.track or e.keywords or e.area or e.links):
        return {}
    return {name: getattr(e, name) for name in DETAILS if getattr(e, name)}


def details_of(text: str | dict | None) -> dict:
    """The keyword arguments of :func:`details_json`'s JSON (or of its object) for an Entry or
    a Paper."""
    found = json.loads(text) if isinstance(text, str) else text or {}
    return {"decision": found.get("decision"), "track": found.get("track"),
            "keywords": tuple(found.get("keywords", ())), "area": found.get("area"),
            "links": tuple(tuple(link) for link in found.get("links", ()))}


def collection_of(e: Entry, file_collection: str) -> str:
    """A record's own venue (and year) is its collection (one JSON file may hold many venues);
    else its first seed file's."""
    return f"{e.venue} {e.year or ''}".strip() if e.venue else file_collection


def search_body(markup: str) -> str | None:
    """The FTS text of an abstract when it differs from the abstract (CJK, non-ASCII), else None."""
    form = search_form(markup)
    return None if form == markup else form


def source_text(entry: Entry) -> str | None:
    """The abstract as in the seed file, stored only where it differs from the repaired text
    (a few per cent of abstracts): storing it twice would nearly double the index."""
    return None if entry.abstract_source == entry.abstract_markup else entry.abstract_source


def meta_json(entry: Entry) -> str | None:
    """The fields a structured seed's record gives its paper, as JSON (None for a text seed)."""
    if not entry.rich:
        return None
    return json.dumps({"title": entry.title, "authors": list(entry.authors), "year": entry.year,
                       "venue": entry.venue, "urls": list(entry.urls),
                       "code_url": entry.code_url, "details": _details(entry)},
                      ensure_ascii=False)


def fields_of(conn: sqlite3.Connection, only: set[str] | None = None) -> dict[str, dict]:
    """Paper id → the fields (:func:`meta_json`'s, decoded) of its first structured source
    (file path, position), for the papers in ``temp.affected``, or with ``only`` for those ids
    (a first build: the papers with more than one source, 500 ids a query)."""
    if only is None:
        return _first_meta(conn.execute(
            "SELECT paper_id, meta FROM sources WHERE meta IS NOT NULL AND paper_id IN "
            "(SELECT id FROM temp.affected) ORDER BY file, position"))
    ids, found = sorted(only), {}
    for at in range(0, len(ids), 500):
        chunk = ids[at:at + 500]
        found.update(_first_meta(conn.execute(
            "SELECT paper_id, meta FROM sources WHERE meta IS NOT NULL AND paper_id IN "
            f"({','.join('?' * len(chunk))}) ORDER BY file, position", chunk)))
    return found


def _first_meta(rows) -> dict[str, dict]:
    """The first ``meta`` of each paper among ``(paper_id, meta)`` rows, decoded."""
    found: dict[str, str] = {}
    for paper_id, meta in rows:
        found.setdefault(paper_id, meta)
    return {k: json.loads(v) for k, v in found.items()}


def with_fields(entry: Entry, fields: dict | None) -> Entry:
    """``entry`` with a structured source's fields, or with none (as its abstract alone gives)."""
    if fields is None:
        # a title-only paper (no abstract) always has a structured source
        if not entry.rich or not entry.abstract_source:
            return entry
        from db.seeds.entry import abstract_entry

        return abstract_entry(entry.abstract_source, entry.position, entry.collection)
    return replace(entry, title=fields["title"], authors=tuple(fields["authors"]),
                   year=fields["year"], venue=fields["venue"], urls=tuple(fields["urls"]),
                   code_url=fields["code_url"], rich=True, **details_of(fields.get("details")))


def entries_of(conn: sqlite3.Connection, ids: list[str]) -> list[Entry]:
    """Entries rebuilt from the index's rows of existing papers (no seed file is read)."""
    out = []
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for row in conn.execute(
                "SELECT id, derived_name, title, headline, coalesce(abstract_source, abstract), "
                "abstract, urls, code_url, authors, year, venue, details FROM papers WHERE id IN "
                f"({','.join('?' * len(chunk))})", chunk):
            out.append(Entry(
                id=row[0], position=0, collection="", abstract_source=row[4],
                abstract_markup=row[5], name=row[1], title=row[2], headline=row[3],
                urls=tuple(json.loads(row[6])), code_url=row[7],
                authors=tuple(row[8].split("; ")) if row[8] else (), year=row[9], venue=row[10],
                rich=bool(row[2] or row[8] or row[9] or row[10] or row[11]),
                **details_of(row[11])))
    return out


def entry_terms(entry: Entry, body: str | None = "") -> set[str]:
    """The vocabulary words of a paper: name, title, abstract as the FTS sees it, authors."""
    body = search_body(entry.abstract_markup) if body == "" else body
    return terms_of(" ".join(filter(None, (entry.name, entry.title,
                                           body or entry.abstract_markup, authors_text(entry)))))


def authors_text(entry: Entry) -> str | None:
    return "; ".join(entry.authors) or None
