"""The table's pages: windows that slide, moves and marks that cross them, rows not redrawn."""

from __future__ import annotations

from pathlib import Path

from db import Library
from tests.tui_support import (
    _ids,
    app_on,
    burst,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
)


async def test_pages_slide_and_never_exceed_the_page_size(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, page_size=10)
    with Library([seeds], data) as library:
        library.sync()
        every = _ids(library, "", limit=100)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.table
        assert table.paper_ids == every[:10]
        for step in range(1, 13):
            await pilot.press("j")
            await settle(pilot)
            assert table.row_count <= 10
            assert table.current_id == every[step]
        assert table.window_offset > 0
        await pilot.press("G")
        await settle(pilot)
        assert table.current_id == every[-1] and table.window_offset == 25
        await pilot.press("g")
        await settle(pilot)
        assert table.current_id == every[0] and table.window_offset == 0
        assert app.panel.paper is not None and app.panel.paper.id == every[0]
        burst(app, ["j"] * 31)  # keys typed ahead while windows load are not lost
        await settle(pilot)
        assert table.current_id == every[31] and table.row_count <= 10
        burst(app, ["k"] * 29)
        await settle(pilot)
        assert table.current_id == every[2] and table.row_count <= 10
        screen_rows = table.scrollable_content_region.height
        burst(app, ["pagedown", "pagedown"])
        await settle(pilot)
        assert table.current_id == every[2 + 2 * screen_rows]


async def test_next_new_paper_crosses_pages(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        every = _ids(library, "", limit=100)
        library.set_status(every[1:30], "read")
    app = app_on(seeds, data, page_size=10)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert app.table.current_id == every[30]
        assert app.table.row_count <= 10
        await pilot.press("N")
        await settle(pilot)
        assert app.table.current_id == every[0]
        notes = record_notifications(app)
        await pilot.press("N")
        await settle(pilot)
        assert notes == ["no new paper above"]


async def test_a_page_with_the_same_rows_is_not_drawn_again(tmp_path: Path, monkeypatch) -> None:
    """A page that shows the rows already shown (as after a key that changes no hit) leaves the
    rows as they are, only the cursor is placed; any change in a row fills the table anew."""
    import dataclasses

    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        table = app.table
        hits = [table.hit(pid) for pid in table.paper_ids]
        added: list[str] = []
        add_row = table.add_row

        def counting(*cells, key=None, **kwargs):
            added.append(key)
            return add_row(*cells, key=key, **kwargs)

        monkeypatch.setattr(table, "add_row", counting)
        rescored = [dataclasses.replace(h, score=h.score + 1) for h in hits]  # not shown
        table.show_hits(rescored, 0, len(hits), focus=3)
        assert added == [] and table.cursor_row == 3
        assert table.paper_ids == [h.id for h in hits]
        changed = [dataclasses.replace(hits[0], headline="Another first sentence."), *hits[1:]]
        table.show_hits(changed, 0, len(hits))
        assert added == [h.id for h in hits] and table.cursor_row == 0
        assert table.get_row(hits[0].id)[2].plain == "Another first sentence."


async def test_a_mark_typed_right_after_a_jump_to_another_window_marks_its_target(
        tmp_path: Path) -> None:
    """``G t``, ``g r`` and ``j``×31 ``t`` in one burst: the mark waits for the window that holds
    the cursor's target, instead of marking the row the cursor had before the jump."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        every = _ids(library, "", limit=100)
    app = app_on(seeds, data, page_size=10)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["G", "t"])
        await settle(pilot)
        burst(app, ["g", "r"])
        await settle(pilot)
        burst(app, ["j"] * 30 + ["t"])
        await settle(pilot)
    with Library([seeds], data) as library:
        assert _ids(library, "is:to-read") == [every[31], every[-1]]
        assert _ids(library, "is:read") == [every[0]]
