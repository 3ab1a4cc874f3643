"""Seed files with fields: JSON, JSON Lines, CSV/TSV and BibTeX (:mod:`db.seeds.bibtex`), read into
the same entries as text.

Field names are those of public paper lists (paperlists, OpenReview and arXiv dumps, reference
managers): ``title``, ``abstract``, ``author``/``authors`` (a string or a list), ``url``/``site``/
``pdf``/``doi``/``eprint``, ``github``/``code``, ``venue``/``booktitle``/``journal``, ``year``.
Names are matched case-insensitively; other fields are ignored.

A record with an abstract gets the id of its abstract (:func:`db.text.paper_id`), so the same
abstract in a text seed and here is one paper. A record with a title and no abstract gets
:func:`title_id`. A record with neither is left out and named in the sync report.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections import Counter
from collections.abc import Iterator

from db.seeds.bibtex import bib_records, unbrace
from db.seeds.entry import (
    LINK_KINDS,
    Entry,
    SeedError,
    abstract_entry,
    collection_label,
    listed,
    web_address,
)
from db.text import normalize, one_line

_BIB_START_RE = re.compile(r"\s*(%[^\n]*\n\s*)*@[A-Za-z]+\s*[{(]")
_LIST_KEYS = ("papers", "hits", "data", "items", "records", "entries", "results", "notes")


def kind_of(name: str, text: str) -> str:
    """``json``, ``jsonl``, ``csv``, ``tsv``, ``bib`` or ``text`` for a file called ``name``
    (lower case, without ``.gz``): by its ending, and for any other ending by its content."""
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".json"):
        return "json"
    for kind in ("csv", "tsv", "bib"):
        if name.endswith("." + kind):
            return kind
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head in "[{" and head and _looks_like_json(text):
        return "json"
    if head in "@%" and head and _BIB_START_RE.match(text.lstrip("\ufeff")):
        return "bib"
    return "text"


def _looks_like_json(text: str) -> bool:
    """Whether ``text`` is JSON, or JSON Lines (its first line is a JSON object)."""
    for candidate in (text, text.lstrip().split("\n", 1)[0]):
        try:
            _json(candidate)
            return True
        except ValueError:
            continue
    return False


def title_id(title: str) -> str:
    """Id of a paper known only by its title: SHA-256 of ``"title\\n"`` + the normalized,
    rendered title (first 16 hex digits). A normalized abstract has no line break, so this can
    never equal an abstract's id; rendering first makes ``{BERT}`` and ``BERT``, ``Q\\&A`` and
    ``Q&A`` one title (a BibTeX export and its JSON source give the same id)."""
    from db.seeds.render import render_plain

    key = "title\n" + normalize(render_plain(unbrace(title)))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


def parse(kind: str, text: str, fallback_label: str,
          skipped: list[str]) -> tuple[str, list[Entry]]:
    """Parse a structured seed file into ``(collection, entries)``.

    The collection is the commonest ``VENUE YEAR`` of the records, else ``fallback_label``.
    Records that are no paper are counted in ``skipped``, one line per reason
    ("1 record(s) with no title or abstract left out: 4").
    Raises :class:`SeedError` when the file cannot be read as ``kind`` or holds no paper.
    """
    if kind == "jsonl":
        unit, records = "line", list(_json_lines(text))
    elif kind == "json":
        unit, records = _json_records(text)
    elif kind == "bib":
        unit, records = "entry", bib_records(text, skipped)
    else:
        unit, records = "line", _csv_records(text, "\t" if kind == "tsv" else None)
    entries: list[Entry] = []
    bad: dict[str, list[int]] = {"invalid JSON": [], "no title or abstract": []}
    for number, record in records:
        entry = _entry(record, len(entries) + 1) if record is not None else None
        if entry is None:
            # (a null in a JSON list is valid JSON: a record with nothing in it)
            invalid = record is None and unit == "line" and kind in ("jsonl", "json")
            bad["invalid JSON" if invalid else "no title or abstract"].append(number)
        else:
            entries.append(entry)
    for what, numbers in bad.items():
        if numbers:
            shown = ", ".join(str(n) for n in numbers[:5]) + (" …" if len(numbers) > 5 else "")
            skipped.append(f"{len(numbers)} {unit}(s) with {what} left out: {shown}")
    if not entries:
        raise SeedError("empty", "no record with a title or an abstract")
    collection = file_collection(entries, fallback_label)
    for e in entries:  # (made here and held by no one else: set in place, not copied)
        object.__setattr__(e, "collection", collection)
    return collection, entries


def file_collection(entries: list[Entry], fallback_label: str) -> str:
    """The collection of a file with fields: the commonest ``VENUE YEAR`` of its records
    (:func:`collection_label`), else ``fallback_label`` (the file's name)."""
    venues = Counter(" ".join(str(v) for v in (e.venue, e.year) if v) for e in entries)
    venues.pop("", None)
    return collection_label(venues.most_common(1)[0][0]) if venues else fallback_label


# -- reading each format into (record number, {field: value}) -----------------------------------

def _json(text: str) -> object:
    """``json.loads`` for files from anywhere: a number too long for ``int`` (Python refuses
    more than 4,300 digits) stays text, and ``NaN``/``Infinity`` are null, so that one odd
    value in a field papertray ignores does not reject the file; a raw TAB or other control
    character inside a string (scraped data has them) is read, and dropped later by
    :func:`db.text.clean`."""
    return json.loads(text, parse_int=lambda s: int(s) if len(s) < 100 else s,
                      parse_constant=lambda _: None, strict=False)


def _json_records(text: str) -> tuple[str, list[tuple[int, object]]]:
    """A JSON list of objects, an object holding one, one paper object, or JSON Lines; returns
    what the numbers count ("record" or "line") and the numbered records."""
    try:
        data = _json(text)
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise SeedError("error", f"not valid JSON: {exc}") from None
        return "line", list(_json_lines(text))
    except RecursionError:  # nested deeper than Python parses
        raise SeedError("error", "not valid JSON: nested too deeply") from None
    if isinstance(data, dict):
        listed = [data[k] for k in _LIST_KEYS if isinstance(data.get(k), list)]
        listed += [v for v in data.values() if isinstance(v, list) and v
                   and all(isinstance(x, dict) for x in v)]
        data = listed[0] if listed else [data]
    if not isinstance(data, list):
        raise SeedError("error", "JSON holds no list of papers")
    return "record", list(enumerate(data, start=1))


def _json_lines(text: str) -> Iterator[tuple[int, object]]:
    """JSON Lines; a line that is not valid JSON gives ``None`` (left out, and reported)."""
    first_error = ""
    good = 0
    # split on "\n" only: str.splitlines() would also split inside strings at U+2028 and U+0085
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = _json(line)
        except json.JSONDecodeError as exc:
            first_error = first_error or f"line {number}: {exc.msg}"
            record = None
        except RecursionError:  # nested deeper than Python parses: that line only is bad
            first_error = first_error or f"line {number}: nested too deeply"
            record = None
        good += record is not None
        yield number, record
    if not good:
        raise SeedError("error", f"not valid JSON Lines ({first_error})")


def _csv_records(text: str, delimiter: str | None) -> list[tuple[int, dict]]:
    """Rows of a CSV (delimiter sniffed among , ; tab) or TSV file with a header row."""
    if delimiter is None:
        delimiter = _header_delimiter(text)
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:8192], delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    # an abstract can be longer than the csv module's default field limit (128 KiB)
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as exc:
        raise SeedError("error", f"not valid CSV (line {reader.line_num}): {exc}") from None
    header = {(k or "").strip().lower() for k in reader.fieldnames or ()}
    if not header & {"title", "abstract"}:
        raise SeedError("error", "the header row has no 'title' or 'abstract' column")
    return rows


def _header_delimiter(text: str) -> str | None:
    """The one of , ; tab that splits the header row into a 'title' or 'abstract' column, or
    None when not exactly one does (then it is sniffed from the text: abstracts with commas
    made a semicolon-separated file look comma-separated)."""
    header = text[:text.find("\n")] if "\n" in text else text
    fits = [d for d in (",", ";", "\t")
            if {f.strip().lower() for f in next(csv.reader([header], delimiter=d), [])}
            & {"title", "abstract"}]
    return fits[0] if len(fits) == 1 else None


# -- one record to an entry -------------------------------------------------------------------

def _field(record: dict, *names: str) -> object | None:
    """The first value of ``names`` the record gives (each as written, Capitalized or in
    CAPITALS, in that order) that is not null, empty text or an empty list."""
    spellings = _SPELLINGS.get(names)
    if spellings is None:
        keys = tuple(k for n in names for k in (n, n.capitalize(), n.upper()))
        spellings = _SPELLINGS[names] = (frozenset(keys), keys)
    if spellings[0].isdisjoint(record):  # (most fields asked for are not in a record)
        return None
    for key in spellings[1]:
        value = record.get(key)
        if value not in (None, "", []):
            return value
    return None


#: field names asked for together → the set and the sequence of the keys :func:`_field` looks
#: up (made once per call site: a record is asked for ~25 fields)
_SPELLINGS: dict[tuple[str, ...], tuple[frozenset[str], tuple[str, ...]]] = {}


def _text(value: object | None) -> str:
    """A field's value as one line of clean text ("" for null, an object or a list)."""
    if value is None or isinstance(value, dict | list):
        return ""
    return one_line(str(value))


def _entry(record: object, position: int) -> Entry | None:
    if not isinstance(record, dict):
        return None
    record = {str(k).strip(): v for k, v in record.items()}
    # papertray's own JSON export carries the abstract as written in its seed file too
    abstract = _text(_field(record, "abstract_source", "abstract", "summary"))
    title = _text(_field(record, "title"))
    if not abstract and not title:
        return None
    if abstract:
        entry = abstract_entry(abstract, position, "")
    else:
        entry = Entry(id=title_id(title), position=position, collection="", abstract_source="",
                      abstract_markup="", name=None, title=None, headline="", urls=(),
                      code_url=None)
    own = tuple(dict.fromkeys((kind, web_address(url)) for kind, url in _links(record)))
    links = [url for _kind, url in own if _kind != "code"] + list(entry.urls)
    code = next((url for kind, url in own if kind == "code"), None)
    venue = _text(_field(record, "venue", "booktitle", "journal", "conference")) or None
    year = _year(_field(record, "year"))
    if not venue and "short_id" in record:  # papertray's JSON export: its collection label
        venue, year = _venue_year(_text(record.get("collection")), year)
    fields = dict(title=title or None, authors=tuple(_names(_field(record, "authors", "author"))),
                  year=year, venue=venue, urls=tuple(dict.fromkeys(links)),
                  code_url=code or entry.code_url, rich=True, **_details(record), links=own)
    for name, value in fields.items():  # (the entry is made here: set in place, not copied)
        object.__setattr__(entry, name, value)
    return entry


def _details(record: dict) -> dict:
    """The decision, track, keywords and area a record gives (db.seeds.entry.DETAILS). In
    papertray's own exports ``status`` is the reader's mark (new, to-read...; the JSON's
    records have a ``short_id``), not the venue's decision."""
    decision = _text(_field(record, "decision", "presentation", "presentation_type"))
    status = "" if "short_id" in record else _text(_field(record, "status"))
    decision = decision or ("" if status.lower() in _MARKS else status)
    return {"decision": decision or None, "track": _text(_field(record, "track")) or None,
            "keywords": tuple(_names(_field(record, "keywords", "keyword"), authors=False)),
            "area": _text(_field(record, "primary_area", "area", "subject_area")) or None}


#: the statuses of papertray's marks, which its exports' ``status`` gives
_MARKS = frozenset({"new", "to-read", "read", "dismissed"})


def _venue_year(label: str, year: int | None) -> tuple[str | None, int | None]:
    """A collection label's venue and year ("ICML 2025" → "ICML", 2025; "notes" → "notes"),
    as exports write them (db.library.export.venue_year)."""
    found = re.fullmatch(r"(.*?)\s*\b((?:19|20)\d\d)", label)
    if found:
        return found.group(1) or None, year or int(found.group(2))
    return label or None, year


def _names(value: object | None, authors: bool = True) -> list[str]:
    """A list of names (authors, keywords), its literal (:func:`listed`), or one string of
    them separated by ``;``, `` and `` (authors only) or ``,``; each once, in their order."""
    value = listed(value) if isinstance(value, str) else value
    if isinstance(value, list):
        names = [_text(v.get("name") if isinstance(v, dict) else v) for v in value]
    else:
        text = _text(value)
        sep = ";" if ";" in text else " and " if authors and " and " in text else ","
        names = text.split(sep)
    return list(dict.fromkeys(n for n in (" ".join(n.split()) for n in names) if n))


def _year(value: object | None) -> int | None:
    match = re.search(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)", _text(value))
    return int(match.group(1)) if match else None


#: a record's link fields by kind (db.seeds.entry.LINK_KINDS), in the order they are looked at
_LINK_FIELDS = (("paper", ("url", "site", "link", "html_url", "forum_url")),
                ("openreview", ("openreview", "forum")), ("pdf", ("pdf", "pdf_url")),
                ("code", ("github", "code", "code_url")))
_ARXIV_RE = re.compile(r"\d{4}\.\d{4,5}(v\d+)?|[a-z\-]+(\.[A-Z]{2})?/\d{7}")
#: what paper lists write before a DOI or an arXiv id ("doi:10.1000/x", "doi.org/10.1000/x",
#: "arXiv:2101.00001"), dropped before the id becomes its resolver's URL
_DOI_PREFIX_RE = re.compile(r"^(?:doi:\s*|(?:dx\.)?doi\.org/)", re.I)
_ARXIV_PREFIX_RE = re.compile(r"^arxiv:\s*", re.I)


def _links(record: dict) -> Iterator[tuple[str, str]]:
    """``(kind, url)`` of each link the record gives: web links as they are, a DOI and an
    arXiv id (``doi:``, ``doi.org/`` and ``arXiv:`` before them dropped) as their resolver's
    URL, an arXiv field that holds a URL as that link; papertray's own JSON export lists its
    ``links``."""
    for kind, names in _LINK_FIELDS:
        for name in names:
            value = _text(_field(record, name))
            if value.startswith(("http://", "https://")):
                yield _kind_of(value, kind), value
    listed = record.get("links")  # papertray's own JSON export
    if isinstance(listed, list):
        for item in listed:
            if isinstance(item, dict) and item.get("kind") in LINK_KINDS:
                url = _text(item.get("url"))
                if url.startswith(("http://", "https://")):
                    yield item["kind"], url
    doi = _text(_field(record, "doi"))
    if doi:
        yield "doi", doi if doi.startswith(("http://", "https://")) else (
            "https://doi.org/" + _DOI_PREFIX_RE.sub("", doi))
    eprint = _text(_field(record, "eprint", "arxiv", "arxiv_id"))
    if eprint.startswith(("http://", "https://")):
        yield _kind_of(eprint, "paper"), eprint
    else:
        eprint = _ARXIV_PREFIX_RE.sub("", eprint)
        if _ARXIV_RE.fullmatch(eprint):
            yield "arxiv", "https://arxiv.org/abs/" + eprint


def _kind_of(url: str, kind: str) -> str:
    """The kind of a link given as the paper's page (``url``, ``site``): what its host says it
    is (arXiv, OpenReview, a DOI), else ``paper``; a link of any other field keeps its kind."""
    if kind != "paper":
        return kind
    host = url.split("/")[2].lower() if url.count("/") >= 2 else ""
    for known, name in (("arxiv.org", "arxiv"), ("openreview.net", "openreview"),
                        ("doi.org", "doi")):
        if host == known or host.endswith("." + known):
            return name
    return kind
