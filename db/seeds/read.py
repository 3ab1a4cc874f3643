"""Seed files: finding them, reading them, and parsing them into entries.

The text format (DESIGN.md): line 1 is a header naming the collection, then one abstract per
paragraph, paragraphs separated by blank lines. No titles, authors or ids.
"""

from __future__ import annotations

import contextlib
import operator
import os
import re
import stat
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

from db.store.files import database_of
from db.text import DecodeError, clean, decode, paper_id, repair_hyphenation, single_spaced

#: File endings read as seed files. Other files in a seed folder are ignored (a README, say).
SEED_SUFFIXES = (".txt", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".bib",
                 ".json.gz", ".jsonl.gz", ".ndjson.gz", ".csv.gz", ".tsv.gz")

_YEAR_RE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?!\d)")
#: A blank line ends an abstract: a line with nothing but white space on it (spaces, tabs, NBSP,
#: a form feed, U+2029...). Nothing else does: a form feed or a paragraph separator (U+2029)
#: inside a line is a space between two words of the same abstract (PDF text has them mid-
#: sentence: a page break, a line break converted badly).
_PARAGRAPH_RE = re.compile(r"\n[^\S\n]*\n\s*")
_MAX_HEADER = 160  # characters: a longer first paragraph is an abstract, not a header


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
    #: True when the record came from a format with fields (JSON, CSV, BibTeX): its title,
    #: authors, year, venue and links then win over a text seed's for the same paper (db.index.sync)
    rich: bool = False

    def __reduce__(self) -> tuple:
        # pickled as the tuple of its fields (a large sync's worker processes send entries
        # back): the dataclass's own state sets each field in a Python loop on unpickling,
        # which took twice as long
        return (Entry, _entry_fields(self))


_entry_fields = operator.attrgetter(*(f.name for f in fields(Entry)))


def shipped_seeds() -> Path:
    """The folder of seed files shipped with papertray (inside the wheel, or the checkout's)."""
    package = Path(__file__).resolve().parents[1]  # db/ (pyproject: seeds/ -> db/shipped_seeds)
    packaged = package / "shipped_seeds"
    return packaged if packaged.is_dir() else package.parent / "seeds"


@dataclass(slots=True)
class Discovery:
    """What :func:`discover` found: seed files, problems, and seed paths that are missing."""

    files: list[Path]
    problems: list[tuple[str, str]]  # (path, one-line reason)
    missing_roots: list[Path]  # given seed paths that do not exist (now)


def discover(paths: list[Path]) -> Discovery:
    """Expand seed paths (folders and files) into the seed files to read, sorted, no duplicates.

    Folders are searched recursively for :data:`SEED_SUFFIXES`; hidden files and folders are
    skipped. A file named explicitly is read whatever its ending. Only regular files are read:
    a pipe, socket or device would block or never end, so it is reported as a problem, like a
    broken link and a path that does not exist. Nothing is opened here (stat only).
    """
    files: dict[str, Path] = {}
    found = Discovery([], [], [])
    for given in paths:
        path = Path(os.path.expanduser(given))
        if path.is_dir():
            for root, dirs, names in os.walk(path, followlinks=False):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in names:
                    if not name.startswith(".") and name.lower().endswith(SEED_SUFFIXES):
                        _add(Path(root) / name, files, found)
        elif path.exists() or path.is_symlink():
            _add(path, files, found)
        else:
            found.problems.append((str(path), "no such file or folder"))
            found.missing_roots.append(path.absolute())
    found.files = [files[k] for k in sorted(files)]
    return found


def _add(path: Path, files: dict[str, Path], found: Discovery) -> None:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:  # bytes that are no UTF-8 in the name (a file from another OS)
        shown = str(path).encode("utf-8", "replace").decode("utf-8")
        found.problems.append((shown, "the file name is not UTF-8; rename the file"))
        return
    try:
        mode = path.stat().st_mode
    except OSError:
        found.problems.append((str(path), "broken symbolic link" if path.is_symlink()
                               else "cannot be read"))
        return
    if stat.S_ISREG(mode):
        if database_of(path) is not None:  # (opening it would drop this process's locks)
            found.problems.append((str(path), "papertray's own database file, not a seed file"))
            return
        files.setdefault(str(path.absolute()), path.absolute())
    elif not stat.S_ISDIR(mode):
        found.problems.append((str(path), "not a regular file (a pipe, socket or device)"))


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
    if len(first_lines[0]) <= _MAX_HEADER and not first_lines[0].rstrip().endswith("."):
        collection = collection_label(first_lines[0])
        rest = "\n".join(first_lines[1:]).strip()
        paragraphs = ([rest] if rest else []) + paragraphs[1:]
    else:
        collection = fallback_label
    if not paragraphs:
        raise SeedError("empty", "header only, no abstracts")
    return collection, [abstract_entry(para, position, collection)
                        for position, para in enumerate(paragraphs, start=1)]


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


def parse_file(path: Path, data: bytes,
               skipped: list[str] | None = None) -> tuple[str, list[Entry]]:
    """Parse one seed file's bytes: plain text, or JSON, JSON Lines, CSV/TSV or BibTeX (told
    by the ending, else by the content; gzip-compressed too; see :mod:`db.seeds.formats`).

    Raises :class:`SeedError` (status and one-line reason). Records of a structured file that
    cannot be a paper (no title and no abstract) are left out and described in ``skipped``.
    """
    from db.seeds import formats

    name = path.name.lower()
    skipped = skipped if skipped is not None else []
    if name.endswith(".gz"):
        name = name[:-3]
        data, note = formats.gunzip(data, lines=name.endswith((".jsonl", ".ndjson")))
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


#: Folder where the dictionary is kept as a word list (set by :func:`cache_dictionary_in`).
_dictionary_folder: Path | None = None


def cache_dictionary_in(folder: Path) -> None:
    """Keep a copy of the English dictionary as a plain word list in ``folder`` (1.7 MB).

    Building it from pyspellchecker's gzipped JSON takes 0.3-0.7 s, which a sync that re-parses
    one edited seed file would pay every time; reading the list back takes ~0.03 s.
    """
    global _dictionary_folder
    _dictionary_folder = folder


@lru_cache(maxsize=1)
def _dictionary() -> frozenset[str]:
    import importlib.util

    spec = importlib.util.find_spec("spellchecker")
    source = Path(spec.origin).parent / "resources" / "en.json.gz"  # type: ignore[union-attr]
    copy = None
    if _dictionary_folder is not None:
        try:  # named after the data it was built from: another pyspellchecker, another list
            st = source.stat()
            copy = _dictionary_folder / f"dictionary-{st.st_size}-{st.st_mtime_ns}.txt"
            kept = frozenset(copy.read_text(encoding="utf-8").split("\n"))
            if len(kept) > 10_000:  # anything shorter was damaged: build it again
                return kept
        except (OSError, UnicodeDecodeError):
            pass
    from spellchecker import SpellChecker  # only needed while parsing

    words = frozenset(SpellChecker(distance=1).word_frequency.keys())
    if copy is not None:
        partial = copy.with_suffix(".partial")
        try:  # a cache: a read-only folder only costs time
            partial.write_text("\n".join(sorted(words)), encoding="utf-8")
            os.replace(partial, copy)
        except OSError:  # a full disk: what was written is not left to take the marks' room
            with contextlib.suppress(OSError):
                partial.unlink()
    return words


def warm_up() -> None:
    """Load what parsing needs (the derive module, the dictionary) now rather than at the first
    abstract: worker processes forked afterwards share it."""
    import db.seeds.derive  # noqa: F401

    _dictionary()


def is_english_word(word: str) -> bool:
    """True when ``word`` (lower case) is in pyspellchecker's English dictionary."""
    return word in _dictionary()
