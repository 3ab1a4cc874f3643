"""The results table draws exactly what Textual's DataTable draws.

``tui.browser.widgets.results.ResultsTable`` replaces DataTable's per-cell drawing (Rich's render
pipeline) and its row measuring with cheaper code for its one-line ``Text`` cells; these tests
draw the same rows both ways, on the shipped seeds, and compare every segment (text, colours,
attributes and the row/column metadata that mouse clicks read).
"""

from __future__ import annotations

import gc
from pathlib import Path
from unittest import mock

import pytest
from rich.segment import Segment
from textual.geometry import Region
from textual.widgets import DataTable

from tests.tui_support import settle, shipped_app, type_text, wait_for
from tui.browser.app import PapertrayApp
from tui.browser.widgets.results import ResultsTable


def _drawn(table: ResultsTable) -> list[list[tuple[str, object]]]:
    """Every line of the table's visible region: (text, style) runs, adjacent equal styles
    joined (how they reach the terminal)."""
    table._clear_caches()
    table._update_count += 1
    strips = table.render_lines(Region(0, 0, table.size.width, table.size.height))
    return [[(seg.text, seg.style) for seg in Segment.simplify(strip)] for strip in strips]


def _drawn_by_datatable(table: ResultsTable) -> list[list[tuple[str, object]]]:
    with mock.patch.multiple(ResultsTable, _render_cell=DataTable._render_cell,
                             _render_line_in_row=DataTable._render_line_in_row,
                             render_lines=DataTable.render_lines,
                             rich_style=DataTable.rich_style):
        return _drawn(table)


async def _marked_and_tagged(app: PapertrayApp, pilot) -> None:
    await settle(pilot)
    await pilot.press("t", "r")  # a to-read and a read paper, the cursor on the third
    await settle(pilot)
    await pilot.press("number_sign")
    await type_text(pilot, "moe")
    await pilot.press("enter")  # a tags column
    await settle(pilot)


@pytest.mark.parametrize(("size", "ascii_only"), [((80, 24), False), ((130, 30), False),
                                                  ((100, 30), True)])
async def test_rows_are_drawn_as_datatable_draws_them(tmp_path: Path, size, ascii_only) -> None:
    app = shipped_app(tmp_path, ascii_only=ascii_only)[0]
    async with app.run_test(size=size) as pilot:
        await _marked_and_tagged(app, pilot)
        table = app.table
        assert [c.key.value for c in table.columns.values()] == [
            "mark", "name", "tags", "headline"]
        cut_mark = table.cut_mark
        table.cut_mark = None  # DataTable has no "..." of its own: compared without it
        ours = _drawn(table)
        theirs = _drawn_by_datatable(table)
        assert len(ours) == table.size.height and any(len(line) > 2 for line in ours)
        assert ours == theirs
        # the cursor row, a cut headline and the marks are among the lines compared
        texts = ["".join(text for text, _ in line) for line in ours]
        glyphs = ("»", "x", "…") if not ascii_only else (">", "x")
        assert all(any(g in t for t in texts) for g in glyphs), texts
        table.cut_mark = cut_mark
        if ascii_only:  # a cut headline ends with "...", in as many cells as it was cut to
            marked = ["".join(text for text, _ in line) for line in _drawn(table)]
            assert [len(t) for t in marked] == [len(t) for t in texts]
            assert sum(t.rstrip().endswith("...") for t in marked) > 5, marked
        cursor = table.cursor_row - table.scroll_offset.y
        assert ours[cursor][0][1] != ours[cursor + 1][0][1]  # the cursor row stands out


async def test_a_narrowed_table_cuts_cells_as_datatable_does(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await pilot.resize_terminal(61, 30)
        await settle(pilot)
        ours = _drawn(app.table)
        assert ours == _drawn_by_datatable(app.table)
        # 61 columns less the scroll bar: mark 1, name 12, headline 41, each padded by 1
        assert [c.width for c in app.table.ordered_columns] == [1, 12, 41]
        texts = ["".join(text for text, _ in line) for line in ours]
        assert sum(t.rstrip().endswith("…") for t in texts) > 10  # headlines cut to fit


async def test_refilling_the_table_leaves_no_cyclic_garbage(tmp_path: Path) -> None:
    """The table's caches are freed when a query refills it, not left for the cyclic garbage
    collector (whose full collections paused keystrokes for 50-60 ms at 87k papers)."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.table
        queries = [app.lib.search(q, None, app.page_size, 0) for q in ("learning", "model")]
        gc.collect()
        gc.disable()
        try:
            for i in range(10):
                result = queries[i % 2]
                table.show_hits(result.hits, 0, result.total)
                assert _drawn(table)
            found = gc.collect()
        finally:
            gc.enable()
        # DataTable's own clear() leaves each cached row and cell in a cycle: thousands here
        assert found < 1000, found


async def test_a_new_theme_recolours_the_rows_shown(tmp_path: Path) -> None:
    """The rows' styles are in their cells (composed when a page is shown): a theme chosen
    while a page is shown draws them in the new theme's colours at once, not at the next page."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("t")  # a to-read mark: its own colour, above the cursor row
        await settle(pilot)
        table = app.table
        old = _drawn(table)[0][1][1].color
        app.theme = "gruvbox"
        await wait_for(pilot, lambda: table._style("to-read").color != old, "the new theme")
        want = table._style("to-read").color
        await wait_for(pilot, lambda: _drawn(table)[0][1][1].color == want,
                       "the mark drawn in the new theme's colour",
                       state=lambda: str(_drawn(table)[0][1]))
        assert _drawn(table)[0][1][0] == "»"
