"""Reading one seed file: its bytes decoded (any encoding, gzip), its format told (plain text,
JSON, JSON Lines, CSV/TSV, BibTeX) and parsed into entries.
"""

from __future__ import annotations

from pathlib import Path

from db.seeds import formats, gz
from db.seeds.decode import DecodeError, decode
from db.seeds.entry import Entry, SeedError
from db.seeds.plain import parse_text
from db.text import clean


def parse_file(path: Path, data: bytes,
               skipped: list[str] | None = None) -> tuple[str, list[Entry]]:
    """Parse one seed file's bytes: plain text, or JSON, JSON Lines, CSV/TSV or BibTeX (told
    by the ending, else by the content; gzip-compressed too; see :mod:`db.seeds.formats`).

    Raises :class:`SeedError` (status and one-line reason). Records of a structured file that
    cannot be a paper (no title and no abstract) are left out and described in ``skipped``.
    """
    name = path.name.lower()
    skipped = skipped if skipped is not None else []
    if name.endswith(".gz"):
        name = name[:-3]
        data, note = gz.gunzip(data, lines=name.endswith((".jsonl", ".ndjson")))
        skipped += [note] if note else []
    if not data.strip():
        raise SeedError("empty", "empty file")
    try:
        text = decode(data, raw=True)
    except DecodeError as exc:
        raise SeedError("error", str(exc)) from None
    kind = formats.kind_of(name, text)
    if kind == "text":
        return parse_text(clean(text), path.stem)
    return formats.parse(kind, text, path.name.split(".")[0] or path.name, skipped)


