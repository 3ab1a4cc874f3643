"""BibTeX seed files (bibtexparser) read into records of ``{field: value}``, with LaTeX accents
and case-protecting braces resolved; :mod:`db.seeds.formats` makes the entries.
"""

from __future__ import annotations

import logging
import re
from collections import Counter

from db.seeds.entry import SeedError
from db.seeds.render import accented
from db.text import one_line

#: BibTeX written by :mod:`db.library.export` marks a title it made up from name and headline with
#: ``titlesource = {derived}``, so that loading the file back gives the paper no title.
DERIVED_TITLE_FIELD = "titlesource"


#: ... and lists the braces without a partner it had to leave out of a title or abstract
#: (``abstract:12o,40c``: index in the one-line text, open or close), to be put back on loading.
BRACES_FIELD = "papertraybraces"


_BIB_ENTRY_RE = re.compile(r"^[ \t]*@[ \t]*([A-Za-z]+)[ \t]*[{(][ \t]*([^,\s{}()]*)", re.M)


def bib_records(text: str, skipped: list[str]) -> list[tuple[int, dict]]:
    """``(number, record)`` for each entry of a BibTeX file, numbered from 1; a record is the
    entry's fields with ``author`` turned into ``authors`` (a list of plain-text names), LaTeX
    accents resolved and case-protecting braces dropped. Entries the parser had to leave out
    are named in ``skipped``. Raises :class:`SeedError` when the text is no BibTeX or holds no
    entry that can be read."""
    entries = _parse(text)
    _say_lost(text, entries, skipped)
    if not entries:
        raise SeedError("error", "no BibTeX entry could be read")
    return [(number, _record(fields)) for number, fields in enumerate(entries, start=1)]


def _parse(text: str) -> list[dict]:
    """The entries bibtexparser reads in ``text`` (their fields, with ``ID`` and
    ``ENTRYTYPE``). Raises :class:`SeedError` when it cannot parse the text."""
    from bibtexparser import loads
    from bibtexparser.bibdatabase import UndefinedString
    from bibtexparser.bparser import BibTexParser

    # its warnings ("Overwriting existing string") are no business of the person syncing
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    # an @string defined in another file (``journal = jmlr``) stands for its own name
    undefined: list[str] = []
    while True:
        parser = BibTexParser(common_strings=True, interpolate_strings=True)
        parser.ignore_nonstandard_types = False
        parser.bib_database.strings.update((name, name) for name in undefined)
        try:
            return loads(text, parser=parser).entries
        except UndefinedString as exc:
            name = str(exc.args[0]) if exc.args else ""
            if not name or name in undefined or len(undefined) >= 100:
                raise SeedError("error", f"not valid BibTeX: @string {one_line(name)[:40]} "
                                "cannot be expanded") from None
            undefined.append(name)
        except Exception as exc:  # the parser (pyparsing) raises many kinds on broken input
            raise SeedError("error", f"not valid BibTeX: {exc}") from None


def _say_lost(text: str, entries: list[dict], skipped: list[str]) -> None:
    """Name in ``skipped`` the entries begun in ``text`` that are not among ``entries``: the
    parser drops an entry it cannot read (an unbalanced brace) without a word."""
    started = [key for kind, key in _BIB_ENTRY_RE.findall(text)
               if kind.lower() not in ("string", "comment", "preamble")]
    read = Counter(str(e.get("ID", "")) for e in entries)
    lost = []
    for key in started:
        if read[key] > 0:
            read[key] -= 1
        else:
            lost.append(key or "?")
    if lost and len(started) > len(entries):
        shown = ", ".join(one_line(k)[:40] for k in lost[:5]) + (" …" if len(lost) > 5 else "")
        skipped.append(f"{len(lost)} entry(ies) that could not be read (unbalanced braces?) "
                       f"left out: {shown}")


def _record(fields: dict) -> dict:
    """One entry's record: braces put back where the export left them out, a derived title
    dropped, LaTeX accents resolved, case-protecting braces dropped, and ``author`` made
    ``authors``."""
    record = dict(fields)
    _put_back_braces(record, record.pop(BRACES_FIELD, ""))
    if record.get(DERIVED_TITLE_FIELD, "").strip() == "derived":
        record.pop("title", None)
    for key in ("title", "abstract", "booktitle", "journal", "author"):
        if isinstance(record.get(key), str):
            record[key] = accented(record[key])
    for key in ("title", "booktitle", "journal"):
        if key in record:
            record[key] = unbrace(record[key])
    record["authors"] = [_latex_text(a) for a in _bib_names(record.pop("author", ""))]
    return record


def _put_back_braces(record: dict, spots: str) -> None:
    """Put the braces :data:`BRACES_FIELD` lists back into the record's title and abstract."""
    for part in spots.split(";"):
        name, _, where = part.strip().partition(":")
        value = record.get(name)
        if name not in ("title", "abstract") or not isinstance(value, str):
            continue
        # the spots count in the text as written (white space as it is: dropping a brace
        # between two spaces leaves both, and collapsing them would shift every spot after)
        for spot in where.split(","):
            match = re.fullmatch(r"\s*(\d+)([oc])\s*", spot)
            if match and int(match.group(1)) <= len(value):
                i = int(match.group(1))
                value = value[:i] + ("{" if match.group(2) == "o" else "}") + value[i:]
        record[name] = value


def unbrace(value: str) -> str:
    """BibTeX's case-protecting braces dropped (``{BERT} for {NLP}`` → ``BERT for NLP``); the
    braces of a LaTeX command's argument (``\\emph{x}``, ``x^{2}``) are kept."""
    out: list[str] = []
    kept: list[bool] = []
    for i, ch in enumerate(value):
        if ch == "{" and (i == 0 or value[i - 1] != "\\"):
            before = value[:i].rstrip()
            keep = bool(re.search(r"(\\[A-Za-z]+|\\[^A-Za-z\s{}]|[\^_])$", before))
            kept.append(keep)
            if keep:
                out.append(ch)
        elif ch == "}" and (i == 0 or value[i - 1] != "\\") and kept:
            if kept.pop():
                out.append(ch)
        else:
            out.append(ch)
    return "".join(out)


def _bib_names(value: str) -> list[str]:
    """BibTeX ``A and Last, First`` → ``["A", "First Last"]``."""
    names = []
    for name in re.split(r"\s+and\s+", " ".join(value.split())):
        last, comma, first = name.partition(",")
        names.append(f"{first.strip()} {last.strip()}".strip() if comma else name.strip())
    return [n for n in names if n]


def _latex_text(value: str) -> str:
    from db.seeds.render import render_plain

    return render_plain(value).replace("{", "").replace("}", "")
