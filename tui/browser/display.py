"""Rich ``Text`` built from untrusted data: mark glyphs, table cells, the abstract and its header.

Abstracts, file names and queries come from files the reader did not write, so nothing here
ever parses markup: every string goes through ``Text(...)``/``Text.append`` with an explicit style,
after :func:`db.text.clean` has removed control and escape bytes. ``[/INST]`` stays ``[/INST]``.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.measure import Measurement
from rich.style import Style
from rich.text import Text

from db.models import Hit, Paper
from db.search.highlight import match_spans
from db.seeds.render import render_plain, render_segments
from db.text import clean, one_line
from tui.glyphs import ASCII_GLYPHS

_SEGMENT_STYLES = {"": "", "b": "bold", "i": "italic", "bi": "bold italic"}

#: The library's own punctuation in its notices ("corrected a → b", "by x, y…"), in ASCII.
_ASCII_PUNCTUATION = str.maketrans({"→": "->", "…": "...", "—": "-", "–": "-", "·": "|",
                                    "«": '"', "»": '"', "‘": "'", "’": "'", "“": '"', "”": '"'})


def said(text: str, ascii_only: bool) -> str:
    """A message of the library or the browser as shown: in an ASCII-only browser its arrows,
    ellipses and dashes in ASCII (``->``, ``...``, ``-``)."""
    return text.translate(_ASCII_PUNCTUATION) if ascii_only else text


def ascii_headline(headline: str) -> str:
    """A headline (rendered by the library, LaTeX and all) for an ASCII-only browser: math
    letters as letters ("𝒢" is "G", "ℝ" is "R") and the library's punctuation in ASCII."""
    return said(unicodedata.normalize("NFKC", headline), True)


def plain(text: str | None, style: str | Style = "", ascii_only: bool = False) -> Text:
    """One line of untrusted text as ``Text`` (whitespace folded, controls removed, no wrap;
    cut with "…"; with ``ascii_only`` cropped, as Rich's ellipsis is not ASCII, and ended with
    ``...`` by :func:`cut` where the width is known)."""
    return Text(one_line(text or ""), style=style, no_wrap=True,
                overflow="crop" if ascii_only else "ellipsis", end="")


def cut(line: Text, width: int, more: str) -> Text:
    """``line`` as it fits in ``width`` cells: itself when it fits, else cut and ended with
    ``more`` (``...`` in an ASCII-only browser, where Rich's and Textual's ``…`` cannot be
    shown)."""
    if line.cell_len <= width:
        return line
    out = line.copy()
    out.truncate(max(0, width - len(more)), overflow="crop")
    out.append(more[:width], line.style)
    return out


class CutText:
    """A Rich renderable: ``line`` as :func:`cut` fits it to the width it is drawn in; it
    measures as the whole line, so that a widget of ``width: auto`` is as wide as it allows."""

    def __init__(self, line: Text, more: str) -> None:
        self.line, self.more = line, more

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = cut(self.line, options.max_width, self.more).copy()
        line.end = "\n"  # one line: Textual counts the line ends to know a renderable's height
        yield line

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        width = min(self.line.cell_len, options.max_width)
        return Measurement(width, width)


#: Characters that must never sit in the search bar: C0/C1 controls (ESC, CR, LF, TAB...), DEL,
#: the Unicode line and paragraph separators, and the bidi overrides that reorder a line.
_QUERY_UNSAFE_RE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
#: Line breaks (and the controls around them) in pasted text: each run becomes one space.
_PASTED_BREAK_RE = re.compile("[\r\n\t\v\f\x85\u2028\u2029]+")


def query_safe(text: str) -> str:
    """``text`` with each character unsafe in the search bar replaced by one space.

    Same length as ``text``, so that the input's cursor stays where it was; the search bar
    applies it to every value it gets, whatever the way in (keys, paste, clipboard, code).
    """
    return _QUERY_UNSAFE_RE.sub(" ", text)


def pasted_query(text: str) -> str:
    """Pasted text as search text: one line, line breaks and tabs made spaces, other control
    and escape characters dropped (``ESC[2J`` becomes ``[2J``). ``"a\r\nb"`` → ``"a b"``."""
    return clean(_PASTED_BREAK_RE.sub(" ", text))


def status_text(status: str, glyphs: Mapping[str, str], style: str | Style = "") -> Text:
    """``» to-read``: the glyph and the word, so a status never depends on colour."""
    return Text(f"{glyphs[status]} {status}", style=style, end="")


# -- highlighting ----------------------------------------------------------------------------

def highlighted(text: str, style: str | Style, terms: Sequence[str],
                highlight: str | Style) -> Text:
    """``text`` in ``style`` with every word that matches ``terms`` in ``style + highlight``."""
    base = _as_style(style)
    out = Text(end="")
    if not terms:
        out.append(text, base)
        return out
    marked = base + _as_style(highlight)
    pos = 0
    # the index's own idea of a match (db.search.highlight)
    for start, end in match_spans(text, terms):
        out.append(text[pos:start], base)
        out.append(text[start:end], marked)
        pos = end
    out.append(text[pos:], base)
    return out


def _as_style(style: str | Style) -> Style:
    return Style.parse(style) if isinstance(style, str) else style


#: Characters of an abstract the panel renders (a real abstract has 1,000-3,000; a 20 MB
#: "abstract" would freeze the terminal for many seconds).
MAX_SHOWN_CHARS = 20_000


def abstract_text(markup: str, terms: Sequence[str], highlight: str | Style,
                  math: str | Style, more: str = "…", ascii_only: bool = False) -> Text:
    """The abstract rendered by :func:`db.seeds.render.render_segments`, with matched words
    highlighted.

    Markdown emphasis becomes bold/italic, LaTeX becomes Unicode (in ``math`` style); paragraph
    breaks are kept, other line breaks become spaces. With ``ascii_only``, LaTeX whose Unicode
    is not ASCII stays as written (:func:`db.seeds.render.render_segments`).
    """
    out = Text(end="")
    cut = len(markup) > MAX_SHOWN_CHARS
    for chunk, code in render_segments(markup[:MAX_SHOWN_CHARS] if cut else markup, ascii_only):
        base = _as_style(math) if code == "m" else _as_style(_SEGMENT_STYLES.get(code, ""))
        out.append_text(highlighted(clean(chunk), base, terms, highlight))
    if cut:
        out.append(f" {more} [{len(markup) - MAX_SHOWN_CHARS:,} more characters: "
                   "`papertray show ID` prints them all]", style="italic")
    return out


def byline(hit: Hit, with_venue: bool = False) -> str:
    """The results table's byline of ``hit``: its first author's last name ("et al." when
    there are more), its year, and with ``with_venue`` its venue ("Vedaldi et al. 2024",
    "Smith NeurIPS 2023"); "" for a paper with none of them (a text seed's)."""
    parts = []
    if hit.authors:
        last = hit.authors[0].split(",")[0] if "," in hit.authors[0] else \
            (hit.authors[0].split() or [""])[-1]
        parts.append(last + (" et al." if len(hit.authors) > 1 else ""))
    if with_venue and hit.venue:
        parts.append(hit.venue)
    if hit.year:
        parts.append(str(hit.year))
    return one_line(" ".join(parts))


# -- whole panels ----------------------------------------------------------------------------

def paper_text(paper: Paper, terms: Sequence[str], glyphs: Mapping[str, str],
               styles: Mapping[str, str | Style]) -> Text:
    """The abstract panel's content: label and status, collection and sources, code, tags,
    note, abstract.

    ``styles`` maps ``label``, ``meta``, ``highlight``, ``math``, ``tag``, ``note`` and each
    status to a style. The reader's tags and note come under the links, above the abstract.
    """
    out = Text(end="")
    ascii_only = glyphs is ASCII_GLYPHS
    label = render_plain(paper.title, ascii_only) if paper.title else paper.name or paper.short_id
    out.append_text(plain(label, styles["label"], ascii_only=ascii_only))
    out.append("  ")
    out.append_text(status_text(paper.status, glyphs, styles.get(paper.status, "")))
    if paper.title and paper.name:
        out.append("\n")
        out.append_text(plain(paper.name, styles["label"], ascii_only=ascii_only))
    if paper.authors:
        out.append("\n")
        out.append_text(plain(", ".join(paper.authors), ascii_only=ascii_only))
    venue = " ".join(str(v) for v in (paper.venue, paper.year) if v)
    sources = ", ".join(f"{s.file}:{s.position}" for s in paper.sources)
    meta = glyphs["sep"].join(part for part in (venue if venue != paper.collection else "",
                                        paper.collection, sources, paper.short_id) if part)
    out.append("\n")
    out.append_text(plain(meta, styles["meta"], ascii_only=ascii_only))
    details = glyphs["sep"].join(filter(None, (
        paper.decision, paper.track and f"{paper.track} track", paper.area)))
    if details:
        out.append("\n")
        out.append_text(plain(details, styles["meta"], ascii_only=ascii_only))
    if paper.keywords:
        out.append("\nkeywords ", styles["meta"])
        out.append_text(plain("; ".join(paper.keywords), ascii_only=ascii_only))
    if paper.code_url:
        out.append("\ncode ", styles["meta"])
        out.append_text(link_text(paper.code_url, ascii_only))
    if paper.tags:
        out.append("\ntags ", styles["meta"])
        out.append_text(plain(" ".join("#" + tag for tag in paper.tags), styles.get("tag", ""),
                              ascii_only=ascii_only))
    if paper.note:
        out.append("\nnote ", styles["meta"])
        out.append_text(plain(paper.note, styles.get("note", ""), ascii_only=ascii_only))
    out.append("\n\n")
    if paper.abstract_markup:
        out.append_text(abstract_text(paper.abstract_markup, terms, styles["highlight"],
                                      styles["math"], glyphs["more"], ascii_only))
    else:
        out.append("(no abstract in the seed files)", styles["meta"])
    others = [(kind, url) for kind, url in paper.links if kind not in ("code", "search")]
    if others:
        out.append("\n")
        for kind, url in others:
            out.append(f"\n{kind} ", styles["meta"])
            out.append_text(link_text(url, ascii_only))
    return out


def link_text(url: str, ascii_only: bool = False) -> Text:
    """A URL as a link the terminal can open (OSC 8, where it supports them; others show the
    text alone), except on an ASCII-only screen (the Linux console), where it is text."""
    return plain(url, "" if ascii_only else Style(link=one_line(url)), ascii_only=ascii_only)
