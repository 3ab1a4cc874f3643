"""The browser's text building (tui.browser.display): marks without colour, highlights, no
markup."""

from __future__ import annotations

import pytest
from rich.style import Style

from db.models import Paper, Source
from tui.browser.display import abstract_text, paper_text, plain
from tui.glyphs import ASCII_GLYPHS, GLYPHS, wants_ascii

HIGHLIGHT = Style(bold=True, underline=True)
MATH = Style(italic=True)


@pytest.mark.parametrize(("environ", "ascii_only"), [
    ({"LANG": "en_US.UTF-8", "TERM": "xterm-256color"}, False),
    ({"LANG": "C.utf8", "TERM": "screen-256color"}, False),
    ({}, False),
    ({"LANG": "en_US.UTF-8", "NO_COLOR": "1"}, True),
    ({"LANG": "en_US.UTF-8", "TERM": "linux"}, True),
    ({"LANG": "C"}, True),
    ({"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, True),
    ({"LC_ALL": "de_DE.UTF-8", "LANG": "C"}, False),
    ({"LC_CTYPE": "en_US.ISO-8859-1"}, True),
])
def test_ascii_marks_where_unicode_may_not_show(environ, ascii_only):
    assert wants_ascii(environ) is ascii_only


def test_glyph_tables_cover_every_status_with_distinct_shapes():
    statuses = ("new", "to-read", "read", "dismissed")
    for table in (GLYPHS, ASCII_GLYPHS):
        assert set(table) == {*statuses, "sep", "more", "none"}
        assert len({table[s] for s in statuses}) == 4
    assert all(g.isascii() for g in ASCII_GLYPHS.values())


def test_abstract_markup_and_brackets_are_literal_text():
    text = abstract_text("We use [CLS], [/INST] and [bold]x[/bold] with **PARM** and *single*.",
                         (), HIGHLIGHT, MATH)
    assert text.plain == "We use [CLS], [/INST] and [bold]x[/bold] with PARM and single."
    styles = {text.plain[s.start:s.end]: s.style for s in text.spans}
    assert styles["PARM"] == Style(bold=True)
    assert styles["single"] == Style(italic=True)


def test_matched_words_get_the_highlight_style_on_top_of_their_own():
    text = abstract_text("Graph **graphs** and $\\mathcal{G}$ graphing", ("graph",), HIGHLIGHT,
                         MATH)
    assert text.plain == "Graph graphs and 𝒢 graphing"
    styled = [(text.plain[s.start:s.end], s.style) for s in text.spans]
    assert ("Graph", HIGHLIGHT) in styled
    assert ("graphs", Style(bold=True) + HIGHLIGHT) in styled
    assert ("graphing", HIGHLIGHT) in styled
    assert ("𝒢", MATH) in styled


def test_escape_bytes_never_reach_the_text():
    assert plain("a\x1b[2Jb\x07c\nd").plain == "a[2Jbc d"
    assert "\x1b" not in abstract_text("x \x1b[31m red", (), HIGHLIGHT, MATH).plain


def test_the_panel_text_has_label_status_sources_code_and_abstract():
    paper = Paper(id="0412d482992496cb", name="PARM", title=None, headline="h", status="to-read",
                  score=0.0, collection="ICML [2025]", code_url="https://x.invalid/[red]",
                  sources=(Source("a[b].txt", 3), Source("c.txt", 1)),
                  abstract_source="", abstract_markup="An *abstract*.",
                  urls=("https://x.invalid/[red]", "https://y.invalid"))
    styles = {"label": "bold", "meta": "dim", "highlight": HIGHLIGHT, "math": MATH,
              "new": "", "to-read": "bold", "read": ""}
    text = paper_text(paper, (), GLYPHS, styles)
    assert text.plain == ("PARM  » to-read\n"
                          "ICML [2025] · a[b].txt:3, c.txt:1 · 0412d482\n"
                          "code https://x.invalid/[red]\n\n"
                          "An abstract.\n\n"
                          "project https://y.invalid")


def test_the_panels_links_are_terminal_links_except_on_an_ascii_screen():
    """Each link of the panel carries an OSC 8 link (Rich's ``link`` style) to its own URL;
    the Linux console's ASCII screen gets the text alone."""
    paper = Paper(id="0412d482992496cb", name="PARM", title=None, headline="h", status="new",
                  score=0.0, collection="", code_url="https://x.invalid/code",
                  abstract_source="", abstract_markup="An abstract.",
                  urls=("https://x.invalid/code", "https://y.invalid/page"),
                  decision="Oral", track="main", keywords=("rl", "moe"),
                  own_links=(("doi", "https://doi.org/10.1/x"),))
    styles = {"label": "", "meta": "", "highlight": HIGHLIGHT, "math": MATH, "new": ""}
    text = paper_text(paper, (), GLYPHS, styles)
    assert "\nOral · main track\nkeywords rl; moe\n" in text.plain
    linked = {text.plain[span.start:span.end]: span.style.link for span in text.spans
              if isinstance(span.style, Style) and span.style.link}
    assert linked == {url: url for url in ("https://x.invalid/code", "https://doi.org/10.1/x",
                                           "https://y.invalid/page")}
    ascii_text = paper_text(paper, (), ASCII_GLYPHS, styles)
    assert not [s for s in ascii_text.spans if isinstance(s.style, Style) and s.style.link]


def test_a_huge_abstract_is_cut_for_the_panel():
    from tui.browser.display import MAX_SHOWN_CHARS, abstract_text

    text = abstract_text("word " * 50_000, (), "reverse", "italic")
    assert len(text.plain) < MAX_SHOWN_CHARS + 100
    assert text.plain.endswith(f"[{250_000 - MAX_SHOWN_CHARS:,} more characters: "
                               "`papertray show ID` prints them all]")
