"""Export papers: a Markdown checklist, CSV, JSON or BibTeX, from one query's papers.

JSON and BibTeX load back as seed files (:mod:`db.seeds.formats`) into the same papers: the
abstract is
written as it stands in the seed file (``abstract_source``), so its id is the same, and a paper
known by its title alone keeps its title, whose id it is. A title that BibTeX needs but the paper
does not have (name and headline) is marked ``titlesource = {derived}`` and left out on loading.
"""

from __future__ import annotations

import csv
import json
import re
import unicodedata
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from db.marks.history import now
from db.models import Paper

#: Export formats and their file endings.
FORMATS = {"md": ".md", "csv": ".csv", "json": ".json", "bib": ".bib"}
CSV_COLUMNS = ("id", "title", "name", "headline", "authors", "year", "venue", "collection",
               "status", "url", "code_url", "decision", "track", "keywords", "area", "tags",
               "note", "abstract")
#: A Markdown checklist's box per status: done when read, struck (``[-]``, as Obsidian and
#: Logseq write a cancelled task) when dismissed.
_CHECKBOX = {"new": "[ ]", "to-read": "[ ]", "read": "[x]", "dismissed": "[-]"}
_VENUE_YEAR_RE = re.compile(r"^(.*?)\s*\b((?:19|20)\d\d)$")


def write(papers: Iterable[Paper], fmt: str, out: TextIO, query: str = "") -> int:
    """Write ``papers`` to ``out`` in ``fmt`` (a key of :data:`FORMATS`); returns how many.

    ``query`` is named in the Markdown heading and the JSON ``query`` key. Raises ValueError for
    an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}: use {', '.join(FORMATS)}")
    return {"md": _markdown, "csv": _csv, "json": _json, "bib": _bibtex}[fmt](papers, out, query)


def venue_year(paper: Paper) -> tuple[str | None, int | None]:
    """The paper's venue and year, else both read from its collection label (``ICML 2025``)."""
    if paper.venue or paper.year:
        return paper.venue, paper.year
    m = _VENUE_YEAR_RE.match(paper.collection or "")
    return (m.group(1) or None, int(m.group(2))) if m else (paper.collection or None, None)


def paper_link(paper: Paper) -> str:
    """The link a file of papers gives a paper: its first link that is neither its code nor a
    search for it (:attr:`db.models.Paper.links`), else ""."""
    return next((url for kind, url in paper.links if kind not in ("code", "search")), "")


def _label(paper: Paper) -> str:
    from db.seeds.render import render_plain

    return render_plain(paper.title) if paper.title else paper.name or paper.headline


def _markdown(papers: Iterable[Paper], out: TextIO, query: str) -> int:
    """A checklist: one item per paper (its box, label, collection, authors, decision, short id
    and status), and under it the paper's link, code, tags and note, indented, so that the item
    holds them in every Markdown reader."""
    items = []
    for p in papers:
        text = f"**{_md(_label(p))}**"
        if not p.title and p.name and p.headline:
            text += f" — {_md(p.headline)}"
        details = [p.collection, ", ".join(p.authors[:3]) + (" et al." if len(p.authors) > 3
                                                               else ""), p.decision or "",
                   f"`{p.short_id}`", p.status]
        lines = [f"- {_CHECKBOX[p.status]} {text} · " + " · ".join(d for d in details if d)]
        kind, url = p.links[0]
        lines.append(f"  - {kind}: <{url}>")
        if p.code_url and kind != "code":
            lines.append(f"  - code: <{p.code_url}>")
        if p.tags:
            lines.append("  - tags: " + " ".join(f"#{t}" for t in p.tags))
        if p.note:
            lines.append(f"  - note: {_md(p.note)}")
        items.append("".join(f"{line}\n" for line in lines))
    title = f"papers matching `{query}`" if query else "papers"
    out.write(f"# papertray: {len(items)} {title}\n\n" + "".join(items))
    return len(items)


def _md(text: str) -> str:
    """Markdown's emphasis and link characters escaped, so a title reads as written."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", " ".join(text.split()))


def _csv(papers: Iterable[Paper], out: TextIO, query: str) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for p in papers:
        venue, year = venue_year(p)
        writer.writerow([p.id, p.title or "", p.name or "", p.headline, "; ".join(p.authors),
                         year or "", venue or "", p.collection, p.status, paper_link(p),
                         p.code_url or "", p.decision or "", p.track or "",
                         "; ".join(p.keywords), p.area or "", " ".join(p.tags), p.note,
                         p.abstract_source])
        n += 1
    return n


def _json(papers: Iterable[Paper], out: TextIO, query: str) -> int:
    hits = [p.to_json() for p in papers]
    json.dump({"query": query, "exported_at": now(), "total": len(hits), "hits": hits}, out,
              ensure_ascii=False, indent=2)
    out.write("\n")
    return len(hits)


def _bibtex(papers: Iterable[Paper], out: TextIO, query: str) -> int:
    n = 0
    for p in papers:
        out.write(bibtex_entry(p) + "\n")
        n += 1
    return n


def bibtex_entry(p: Paper, with_abstract: bool = True) -> str:
    """One BibTeX entry (text ending in a newline): ``@inproceedings`` when the venue is known,
    else ``@misc``; key from :func:`bib_key`. Loads back as the same paper (:mod:`db.seeds.formats`)
    when ``with_abstract``; the browser's copied citation leaves the abstract out."""
    from db.seeds.bibtex import BRACES_FIELD, DERIVED_TITLE_FIELD  # BibTeX's reader: its names

    venue, year = venue_year(p)
    own = dict(reversed(p.own_links))  # (the record's first link of each kind)
    fields = [("title", p.title or (f"{p.name}: {p.headline}" if p.name else p.headline))]
    if not p.title:
        fields.append((DERIVED_TITLE_FIELD, "derived"))
    fields += [("author", " and ".join(p.authors)), ("booktitle", venue or ""),
               ("year", str(year or "")), ("url", paper_link(p)),
               ("doi", own.get("doi", "").removeprefix("https://doi.org/")),
               ("pdf", own.get("pdf", "")), ("code", p.code_url or ""),
               ("decision", p.decision or ""), ("track", p.track or ""),
               ("keywords", ", ".join(p.keywords)), ("area", p.area or "")]
    if with_abstract:
        fields += [("abstract", p.abstract_source), ("tags", " ".join(p.tags)),
                   ("note", p.note)]
    fields = [(k, " ".join(v.split())) for k, v in fields]
    # the braces left out (see _braced) are listed, so that loading the file back puts them
    # in again: the same abstract, so the same paper id
    dropped = [f"{k}:{','.join(spots)}" for k, v in fields if k in ("title", "abstract")
               for spots in (_unpaired(v),) if spots]
    if dropped:
        fields.append((BRACES_FIELD, ";".join(dropped)))
    body = "".join(f"  {k} = {{{_braced(v)}}},\n" for k, v in fields if v)
    kind = "inproceedings" if venue else "misc"
    return f"@{kind}{{{bib_key(p)},\n{body}}}\n"


def bib_key(paper: Paper) -> str:
    """A stable BibTeX key: first author's last name, year, first title word, short id
    (``lin2025parm_0412d482``); the short id keeps keys unique and the same at every export."""
    def ascii_word(text: str) -> str:
        plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
        return re.sub(r"[^a-z0-9]", "", plain.lower())

    last = ascii_word(paper.authors[0].split()[-1]) if paper.authors else ""
    words = [ascii_word(w) for w in _label(paper).split()]
    first = next((w for w in words if w), "")
    _, year = venue_year(paper)
    return f"{last}{year or ''}{first[:20]}_{paper.short_id}"


def _unpaired(value: str) -> list[str]:
    """Where ``value`` has a brace without its partner: ``["12o", "40c"]`` (index, open/close)."""
    unmatched: list[int] = []
    opened: list[int] = []
    for i, ch in enumerate(value):
        if ch == "{":
            opened.append(i)
        elif ch == "}" and opened:
            opened.pop()
        elif ch == "}":
            unmatched.append(i)
    return [f"{i}{'o' if value[i] == '{' else 'c'}" for i in sorted(unmatched + opened)]


def _braced(value: str) -> str:
    """``value`` safe inside BibTeX braces: one line, and a brace without its partner left out
    (BibTeX has no escape for one: a headline cut inside ``\\emph{...}`` would break the entry).
    :data:`db.seeds.bibtex.BRACES_FIELD` says where they were in a title or abstract."""
    value = " ".join(value.split())
    drop = {int(spot[:-1]) for spot in _unpaired(value)}
    return "".join(ch for i, ch in enumerate(value) if i not in drop) if drop else value


def format_of(path: Path) -> str:
    """The format a file's ending names (:data:`FORMATS`, in any case), else ``md``."""
    return next((f for f, end in FORMATS.items() if path.suffix.lower() == end), "md")


def new_file(folder: Path, fmt: str) -> Path:
    """A file name not yet taken in ``folder`` (made 0700 if missing):
    ``papertray-<UTC time>.<ending>``, with ``-2``, ``-3``... for two exports in one second."""
    folder.mkdir(mode=0o700, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path, n = folder / f"papertray-{stamp}{FORMATS[fmt]}", 1
    while path.exists():
        n += 1
        path = folder / f"papertray-{stamp}-{n}{FORMATS[fmt]}"
    return path
