"""Marking in the browser: marks and their toggles, undo, the status filters and the counts."""

from __future__ import annotations

import random
from pathlib import Path

from db import Library
from tests.tui_support import (
    _ids,
    _notice_text,
    _panel_text,
    app_on,
    burst,
    settle,
    shipped_app,
    type_text,
)
from tui.glyphs import GLYPHS


async def test_search_move_mark_filter_undo_and_restart(tmp_path: Path) -> None:
    """search → move → mark to-read (and another read) → filter to-read → undo → restart."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.table.row_count == 35
        await pilot.press("slash")
        await type_text(pilot, "preference")
        await settle(pilot)
        with Library([seeds], data) as library:
            hits = _ids(library, "preference")
        assert app.table.paper_ids == hits and len(hits) == 3
        await pilot.press("enter", "j")
        assert app.focused is app.table
        first, second = hits[1], hits[2]
        assert app.table.current_id == first
        await pilot.press("t")  # to-read, and on to the next paper
        assert app.table.current_id == second
        await pilot.press("r")
        await settle(pilot)
        assert app.table.hit(first).status == "to-read"
        assert app.table.hit(second).status == "read"
        assert app.panel.paper is not None and app.panel.paper.status == "read"
        assert app.query_one("StatusHeader").counts == {
            "all": 35, "new": 33, "to-read": 1, "read": 1, "dismissed": 0}

        await pilot.press("3")
        await settle(pilot)
        assert app.table.paper_ids == [first]
        await pilot.press("u")  # undoes the latest step: `second` is new again
        await settle(pilot)
        assert app.query_one("StatusHeader").counts == {
            "all": 35, "new": 34, "to-read": 1, "read": 0, "dismissed": 0}
        await pilot.press("q")

    again = app_on(seeds, data)
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert again.table.paper_ids == [first]
        assert again.table.hit(first).status == "to-read"
        assert again.panel.paper is not None and again.panel.paper.id == first
    with Library([seeds], data) as library:
        assert library.get(first).status == "to-read"
        assert library.get(second).status == "new"


async def test_pressing_a_mark_again_keeps_it_and_x_clears_it(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        await pilot.press("t")  # shown at once, before the worker has written it
        assert app.table.hit(first).status == "to-read"
        assert app.header.counts["to-read"] == 1
        assert app.table.current_id == app.table.paper_ids[1]
        await pilot.press("k", "t")  # come back, press it again: it stays to-read
        await settle(pilot)
        assert app.table.hit(first).status == "to-read"
        await pilot.press("k", "r", "k", "x")  # read, come back, clear
        await settle(pilot)
        assert app.table.hit(first).status == "new"
        assert app.table.current_id == app.table.paper_ids[1]
    with Library([seeds], data) as library:
        assert library.counts()["new"] == 35


async def test_a_mark_then_undo_in_one_burst_shows_the_marks_file(tmp_path: Path) -> None:
    """``t u``: the row, the panel and the counts say new (as the file does); ``t`` on the row
    then marks it to-read (the toggle sees the true status)."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        burst(app, ["t", "u"])
        await settle(pilot)
        assert app.table.current_id == first  # the undo goes back to its paper
        assert app.table.hit(first).status == "new"
        assert app.panel.paper.status == "new"
        assert app.header.counts["new"] == 35
        burst(app, ["t", "u", "t"])
        await settle(pilot)
        assert app.table.hit(first).status == "to-read"
        with Library([seeds], data) as library:
            assert library.get(first).status == "to-read"


async def test_bursts_of_marks_and_undos_always_show_the_marks_file(tmp_path: Path) -> None:
    """30 random bursts of r/t/d/x/u/j/k/g: after each, every row's glyph, the panel's status and
    the header counts are what the marks file says."""
    app, seeds, data = shipped_app(tmp_path)
    rng = random.Random(20250611)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        with Library([seeds], data) as library:
            for _ in range(30):
                keys = rng.choices("rtdxujkg", weights=[4, 4, 2, 2, 3, 3, 2, 1],
                                   k=rng.randint(1, 12))
                burst(app, keys)
                await settle(pilot)
                for paper_id in app.table.paper_ids:
                    status = library.get(paper_id).status
                    assert app.table.hit(paper_id).status == status, keys
                    assert app.table.get_row(paper_id)[0].plain == GLYPHS[status], keys
                paper = app.panel.paper
                assert paper is not None and paper.status == library.get(paper.id).status, keys
                assert f"{GLYPHS[paper.status]} {paper.status}" in _panel_text(app)
                assert app.header.counts == library.counts(), keys


async def test_an_empty_result_says_so_and_keys_do_no_harm(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_text(pilot, "zzzzqqq")
        await pilot.press("escape")
        await settle(pilot)
        assert app.table.row_count == 0
        assert _notice_text(app) == "no papers match zzzzqqq"
        await pilot.press("j", "k", "g", "G", "pagedown", "t", "r", "x", "n", "N", "space", "J")
        await settle(pilot)
        assert app.table.current_id is None
        assert app.query_one("StatusHeader").counts["new"] == 35
        await pilot.press("2")  # a filter on top of an empty result
        await settle(pilot)
        assert _notice_text(app) == "no papers match zzzzqqq among new papers"
        assert _panel_text(app) == ("press / to change the query, backspace to clear it, or 1 "
                                    "to show all papers")
        await pilot.press("slash", "ctrl+u", "escape", "4")
        await settle(pilot)
        assert _notice_text(app) == "no read papers"
