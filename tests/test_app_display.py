"""What the browser shows: markup-like text kept literal, --ascii, and NO_COLOR."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.geometry import Region
from textual.widgets import Static

from tests.tui_support import (
    ODD_SEEDS,
    _notice_text,
    _panel_text,
    app_on,
    copy_files,
    settle,
    shipped_copy,
    type_text,
    wait_for,
)


async def test_markup_like_text_shows_literally(tmp_path: Path) -> None:
    """Abstracts, file names and queries with [/INST], [CLS], [bold] and escapes stay text."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    abstract = ("We prompt with [INST] and [/INST] tags, pool the [CLS] token, and print "
                "[bold]not bold[/bold] and [link=https://x.invalid]a link[/link] "
                "\x1b[2J literally.")
    (seeds / "[red]tricky[b].txt").write_text(f"Markup Workshop\n\n{abstract}\n",
                                                 encoding="utf-8")
    copy_files(seeds, [ODD_SEEDS / "brackets.txt"])
    app = app_on(seeds, tmp_path / "data")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_text(pilot, "inst")
        await pilot.press("enter")
        await settle(pilot)
        shown = _panel_text(app)
        for literal in ("[INST] and [/INST]", "[CLS]", "[bold]not bold[/bold]",
                        "[link=https://x.invalid]a link[/link]", "[red]tricky[b].txt:1"):
            assert literal in shown
        assert "\x1b" not in shown
        assert "[2J literally" in shown
        markup_paper = app.table.current_id
        cells = [cell.plain for cell in app.table.get_row(markup_paper)]
        assert "[INST]" in cells[2]
        await pilot.press("slash", "ctrl+u")
        await type_text(pilot, "[bold]x[/bold] [CLS]")
        await settle(pilot)
        assert app.search_bar.value == "[bold]x[/bold] [CLS]"
        assert markup_paper in app.table.paper_ids
        status = app.query_one("#search-status", Static).content
        assert isinstance(status, Text) and status.plain.startswith("1/")


async def test_query_markup_in_the_empty_message_is_literal(tmp_path: Path) -> None:
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_text(pilot, "[bold]zzqq[/bold]")
        await settle(pilot)
        assert _notice_text(app) == "no papers match [bold]zzqq[/bold]"


async def test_no_color_keeps_marks_and_cursor_readable(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_on(shipped_copy(tmp_path), tmp_path / "data", ascii_only=None)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.has_class("-no-color")
        first = app.table.current_id
        await pilot.press("t")
        await settle(pilot)
        mark = app.table.get_row(first)[0]
        assert mark.plain == ">"
        assert "> to-read" in app.query_one("#counts", Static).content.plain


async def test_ascii_search_notices_are_ascii(tmp_path: Path) -> None:
    """``--ascii``: the search bar's notices ("corrected reinforcment → reinforcement", "papers
    like X (by a, b…)") come from the library in Unicode; the browser shows them in ASCII."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data", ascii_only=True)
    status = None
    async with app.run_test(size=(200, 24)) as pilot:
        await settle(pilot)
        status = app.query_one("#search-status", Static)
        await pilot.press("slash")
        await type_text(pilot, "reinforcment lerning ")
        await wait_for(pilot, lambda: "corrected" in status.content.plain, "the correction")
        shown = status.content.plain
        assert "corrected reinforcment -> reinforcement, lerning -> learning" in shown
        assert shown.isascii()
        await pilot.press("escape", "s")
        await wait_for(pilot, lambda: "papers like" in status.content.plain, "similar papers")
        await settle(pilot)
        assert status.content.plain.isascii(), status.content.plain


async def test_ascii_shows_latex_it_cannot_render_in_ascii_as_its_source(tmp_path: Path) -> None:
    """``--ascii``: "$\\mathcal{G}$ over $\\mathbb{R}^n$" renders to "𝒢 over ℝⁿ", which the
    console that wanted ASCII cannot show: the table and the panel keep such LaTeX as written
    (a span whose rendering is ASCII, like "\\textit{in vivo}", is still rendered)."""
    seeds = copy_files(tmp_path / "seeds", [ODD_SEEDS / "latex.txt"])
    app = app_on(seeds, tmp_path / "data", ascii_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        body = app.query_one("#abstract-body", Static)
        await wait_for(pilot, lambda: "graph" in body.content.plain, "the abstract")
        shown = body.content.plain
        assert shown.isascii(), shown
        assert "On a graph $\\mathcal{G}$ over $\\mathbb{R}^n$ we prove" in shown
        assert "in vivo and in silico" in shown
        cells = app.table.get_row(app.table.current_id)
        assert all(cell.plain.isascii() for cell in cells), cells
    unicode_app = app_on(seeds, tmp_path / "data", ascii_only=False)
    async with unicode_app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        body = unicode_app.query_one("#abstract-body", Static)
        await wait_for(pilot, lambda: "graph" in body.content.plain, "the abstract")
        assert "On a graph 𝒢 over ℝⁿ" in body.content.plain


def _drawn(widget: Static) -> str:
    """The first line of ``widget`` as drawn."""
    return widget.render_lines(Region(0, 0, widget.region.width, 1))[0].text


async def test_ascii_cut_header_and_status_end_with_three_dots(tmp_path: Path) -> None:
    """``--ascii`` in 48 and 64 columns: the header's collections and the search bar's notice,
    too long for their room, end with ``...`` (Textual's ellipsis is ``…``, not ASCII); the
    filter tabs there name the active filter's status only."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data", ascii_only=True)
    async with app.run_test(size=(48, 24)) as pilot:
        await settle(pilot)
        collections = app.query_one("#collections", Static)
        assert _drawn(collections) == " ICML... "
        assert _drawn(app.query_one("#counts", Static)) == (
            " 1 all 35  2 . 35  3 > 0  4 x 0  5 - 0 ")
        await pilot.resize_terminal(64, 24)
        await settle(pilot)
        assert _drawn(collections) == " papertray | ICML 2025   "
        await pilot.press("slash")
        await type_text(pilot, "reinforcment lerning ")
        status = app.query_one("#search-status", Static)
        await wait_for(pilot, lambda: "corrected" in status.content.plain, "the correction")
        assert _drawn(status) == " 1/8  corrected reinforcment -> re... "
