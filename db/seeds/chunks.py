"""One large seed file parsed in parts: cut where a record ends, the parts' entries joined again.

A large sync parses its seed files in worker processes (:mod:`db.seeds.parallel`); a library
that is one big file would keep one worker busy while the others wait. So a JSON Lines file
(gzip too) or a plain-text file with a header line, larger than :data:`PART_BYTES`, is cut into
parts at line ends (JSON Lines) or blank lines (text); each part is parsed as a file of its
own, and :func:`join` makes them one file's result again: the positions counted on across the
parts, the collection that of the whole file, the line numbers of skipped records those of the
file. A gzip JSON Lines file is cut as it is expanded, each part handed to the workers as soon
as it is cut: the first is parsed while the rest is expanded (expanding and cutting the 87k
corpus's 120 MB first took 0.8 s, with the workers idle).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path

from db.seeds import formats, gz
from db.seeds.entry import Entry, SeedError
from db.seeds.plain import is_header
from db.text import clean

#: Bytes of seed text in one part (~1,000 abstracts, ~0.2 s of parsing on one core).
PART_BYTES = 1_000_000

#: A blank line of plain text, in bytes: two line ends with nothing but ASCII spaces, tabs and
#: carriage returns between them (any paragraph break this finds, the text parser finds too).
_BLANK_LINE_RE = re.compile(rb"\n[ \t\r]*\n")


class Parts:
    """A seed file cut into parts: ``name`` (the path to parse them as: a ``.gz`` ending
    dropped, they are expanded already), ``parts`` (bytes of each), ``shares`` (how many of
    the file's own bytes each part stands for, summing to its size: for progress), ``kind``
    ("jsonl" or "text"), ``note`` (said of the file whatever its parts give: a gzip file
    cut short) and ``handed`` (whether each part was given to :func:`split`'s ``on_cut`` as it
    was cut)."""

    __slots__ = ("handed", "kind", "name", "note", "parts", "shares")

    def __init__(self, name: Path, kind: str, parts: list[bytes], shares: list[int],
                 note: str, handed: bool = False) -> None:
        self.name, self.kind, self.parts, self.shares, self.note = name, kind, parts, shares, note
        self.handed = handed


#: Called as ``on_cut(name, part)`` with each part of a gzip JSON Lines file as soon as it is
#: cut, while the rest is expanded: ``name`` the path to parse it as (``.gz`` dropped).
OnCut = Callable[[Path, bytes], None]


def split(path: Path, data: bytes, on_cut: OnCut | None = None) -> Parts | None:
    """``data`` (the bytes of seed file ``path``) cut into parts of about :data:`PART_BYTES`,
    or None when it is read whole: small, another format, UTF-16 (its line ends are two bytes
    each), a text file without a header line, or a damaged gzip file (reported as usual).

    With ``on_cut``, a gzip JSON Lines file is expanded block by block and each part given to
    ``on_cut`` as soon as it is cut (the result's ``handed`` is true then); parts it was given
    before the file turned out damaged or too large are not the result's (``handed`` false:
    the file is expanded whole and cut again, or read whole)."""
    name, note, expanded = path.name.lower(), "", data
    if name.endswith((".jsonl.gz", ".ndjson.gz")) and len(data) * 10 > PART_BYTES:
        if on_cut is not None and gz.head_ok(data):
            with contextlib.suppress(gz.Unusual):
                return _streamed_parts(path.with_name(path.name[:-3]), data, on_cut)
        try:  # (text compresses 3-10 times: a smaller file expands to less than a part)
            expanded, note = gz.gunzip(data, lines=True)
        except SeedError:
            return None
        path, name = path.with_name(path.name[:-3]), name[:-3]
    if len(expanded) <= PART_BYTES or _utf16(expanded):
        return None
    if name.endswith((".jsonl", ".ndjson")):
        cut = list(_jsonl_parts(expanded))
        kind = "jsonl"
    elif name.endswith(".txt"):
        header = _header_line(expanded)
        if header is None:
            return None
        cut = list(_text_parts(expanded, header))
        kind = "text"
    else:
        return None
    if len(cut) < 2:
        return None
    shares = [len(data) * size // len(expanded) for size, _ in cut]  # (of the file's bytes)
    shares[-1] += len(data) - sum(shares)
    return Parts(path, kind, [part for _, part in cut], shares, note)


def join(parts: Parts, results: list[tuple[str, list[Entry], str, str]]
         ) -> tuple[str, list[Entry], str, str]:
    """The ``(collection, entries, status, reason)`` of the whole file from those of its parts
    (in order, their positions counted on already: :func:`count_on`): the entries of every
    part that loaded; the reasons of all, after the file's note. A file none of whose parts
    loaded has the first part's status.
    """
    loaded = [r for r in results if r[2] == "loaded"]
    reasons = [parts.note] if parts.note else []
    reasons += [r[3] for r in results if r[3]]
    if not loaded:
        return "", [], results[0][2], "; ".join(reasons)
    entries: list[Entry] = []
    for _collection, part, _status, _reason in loaded:
        entries += part
    if parts.kind == "text":
        collection = loaded[0][0]
    else:  # the commonest venue and year of the whole file's records, as formats.parse says
        collection = formats.file_collection(entries, parts.name.name.split(".")[0])
        for e in entries:
            if e.collection != collection:
                _set(e, "collection", collection)
    return collection, entries, "loaded", "; ".join(reasons)


def count_on(entries: list[Entry], offset: int) -> None:
    """Number the entries of a part on from ``offset``, the entries of the parts before it."""
    if offset:
        for e in entries:
            _set(e, "position", e.position + offset)


def _set(entry: Entry, field: str, value: object) -> None:
    # the entries of a part are new (unpickled from a worker, or just parsed here) and no one
    # else holds them yet: set in place, 87k dataclasses.replace() calls took ~0.3 s
    object.__setattr__(entry, field, value)


def _utf16(data: bytes) -> bool:
    return data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:65536]


def _streamed_parts(name: Path, data: bytes, on_cut: OnCut) -> Parts | None:
    """:func:`split` of a gzip JSON Lines file as it is expanded (:func:`gz.blocks`): the
    parts of :func:`_jsonl_parts`, each given to ``on_cut`` once the bytes after it are there
    (the last at the end), none before the first 64 KiB expanded are known not to be UTF-16.
    Raises :class:`gz.Unusual` where :func:`gz.gunzip` would say something of the file."""
    cut: list[tuple[int, bytes]] = []
    # pending grows in place and is searched from where the last search stopped: a line
    # longer than a part (or line ends of CR alone) is not copied and searched again at every
    # block (62 MiB of CR-ended lines: 1.3 s, against 0.1 for LF)
    pending, searched, total, lines, checked = bytearray(), 0, 0, 0, False
    for block in gz.blocks(data):
        pending += block
        total += len(block)
        if not checked and total >= 65536:
            if _utf16(pending):
                return None
            checked = True
        while checked:
            end = pending.find(b"\n", max(PART_BYTES, searched))
            if end + 1 in (0, len(pending)):  # none, or the last byte: cut with what follows
                searched = len(pending) if end < 0 else end
                break
            part, searched = bytes(pending[:end + 1]), 0
            del pending[:end + 1]
            cut.append((len(part), b"\n" * lines + part))
            lines += part.count(b"\n")
            on_cut(name, cut[-1][1])
    rest = list(_jsonl_parts(bytes(pending), lines))
    if len(cut) + len(rest) < 2 or (not checked and _utf16(pending)):
        return None  # (small, or UTF-16: read whole, as split() says; nothing was handed)
    for at in range(len(rest)):
        cut.append(rest[at])
        on_cut(name, rest[at][1])
    shares = [len(data) * size // total for size, _ in cut]  # (of the file's bytes)
    shares[-1] += len(data) - sum(shares)
    return Parts(name, "jsonl", [part for _, part in cut], shares, "", handed=True)


def _jsonl_parts(data: bytes, lines: int = 0) -> Iterator[tuple[int, bytes]]:
    """``(bytes of data, part)``: parts ending at a line end; each but the first starts with as
    many empty lines as came before it, so that a skipped line is named by its number in the
    file (``lines``: the lines of the file before ``data``)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + PART_BYTES)
        end = len(data) if end < 0 else end + 1
        yield end - start, b"\n" * lines + data[start:end]
        lines += data.count(b"\n", start, end)
        start = end


def _text_parts(data: bytes, header: bytes) -> Iterator[tuple[int, bytes]]:
    """``(bytes of data, part)``: parts ending at a blank line; each but the first starts with
    the file's header line."""
    start = 0
    while start < len(data):
        m = _BLANK_LINE_RE.search(data, start + PART_BYTES)
        end = m.end() if m else len(data)
        yield end - start, (header + b"\n\n" if start else b"") + data[start:end]
        start = end


def _header_line(data: bytes) -> bytes | None:
    """The first line of a text file when the text parser takes it for the header (and the
    file starts with it), else None."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    line = data[:data.find(b"\n")] if b"\n" in data else data
    if not line.strip() or line[:1].isspace():
        return None
    try:
        text = clean(line.decode("utf-8"))
    except UnicodeDecodeError:
        return None
    return line if is_header(text) else None

