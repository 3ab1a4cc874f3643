"""The triage flow in the browser: dismissing a paper, a mark key that keeps a status, the key
back to new, space at the end of an abstract, what an undo says, the hits a status filter
hides, and clearing the query with one key."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Static

from db import Library
from tests.tmux_support import TMUX, Terminal
from tests.tui_support import (
    PARM,
    _ids,
    _panel_text,
    burst,
    papertray_command,
    papertray_json,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
)
from tui.glyphs import ASCII_GLYPHS, GLYPHS


def _search_status(app) -> str:
    content = app.query_one("#search-status", Static).content
    return content.plain if isinstance(content, Text) else str(content)


async def test_d_dismisses_the_paper_and_5_shows_the_dismissed(tmp_path: Path) -> None:
    """``d``: the row's glyph, the panel, the header's count (not new any more), the marks file;
    ``5`` lists the dismissed papers alone, and the filter is in the header."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.table.current_id == PARM
        await pilot.press("d")
        await settle(pilot)
        assert app.table.current_id == app.table.paper_ids[1]  # on to the next paper
        assert app.table.get_row(PARM)[0].plain == GLYPHS["dismissed"] == "×"
        assert app.header.counts == {"all": 35, "new": 34, "to-read": 0, "read": 0,
                                     "dismissed": 1}
        header = app.header.query_one("#counts", Static).content.plain
        assert header.endswith(" 5 × dismissed 1 ")
        await pilot.press("5")
        await settle(pilot)
        assert app.table.paper_ids == [PARM]
        assert app.header.status_filter == "dismissed"
        assert _panel_text(app).startswith("PARM  × dismissed\n")
    with Library([seeds], data) as library:
        assert library.get(PARM).status == "dismissed"
        assert library.counts()["new"] == 34
        assert [h.id for h in library.search("is:dismissed").hits] == [PARM]


async def test_a_mark_key_on_a_paper_with_that_status_keeps_it_and_says_so(
        tmp_path: Path) -> None:
    """``t`` on a to-read paper keeps it to-read (it no longer toggles back to new), says so and
    moves on; ``x`` is the key back to new."""
    app, seeds, data = shipped_app(tmp_path)
    said = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        second = app.table.paper_ids[1]
        await pilot.press("t", "k", "t")
        await settle(pilot)
        assert app.table.hit(PARM).status == "to-read"
        assert app.table.current_id == second
        assert said == ["PARM is to-read already: kept"]
        for key in ("r", "d"):  # the same for read and dismissed
            await pilot.press("k", key, "k", key)
            await settle(pilot)
            assert app.table.hit(PARM).status == {"r": "read", "d": "dismissed"}[key]
        assert said[1:] == ["PARM is read already: kept", "PARM is dismissed already: kept"]
        await pilot.press("k", "x")
        await settle(pilot)
        assert app.table.hit(PARM).status == "new"
        assert app.header.counts["new"] == 35
    with Library([seeds], data) as library:
        assert library.get(PARM).status == "new"
        # one undoable step per change; the keys that kept a status wrote none
        changes = [library.undo() for _ in range(5)]
    assert [[(c.old, c.new) for c in step] for step in changes] == [
        [("new", "dismissed")], [("dismissed", "read")], [("read", "to-read")],
        [("to-read", "new")], []]


async def test_u_says_which_paper_it_changed_and_how(tmp_path: Path) -> None:
    app, _seeds, _data = shipped_app(tmp_path)
    said = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        second = app.table.hit(app.table.paper_ids[1])
        burst(app, ["d", "t"])
        await settle(pilot)
        await pilot.press("u")
        await settle(pilot)
        assert said == [f"undid: {second.label} to-read → new"]
        assert app.table.current_id == second.id  # the cursor goes to the paper undone
        await pilot.press("u", "u")
        await settle(pilot)
        assert said[1:] == ["undid: PARM dismissed → new", "nothing to undo"]
        assert app.header.counts["new"] == 35


async def test_space_at_the_end_of_the_abstract_goes_to_the_next_paper(tmp_path: Path) -> None:
    """Space pages down PARM's abstract (longer than the panel at 80x24); once its end is
    shown, the next space shows the next paper, from its top."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        second = app.table.paper_ids[1]
        panel = app.panel
        assert panel.max_scroll_y > 0
        seen = []
        for _ in range(10):
            await pilot.press("space")
            await settle(pilot)
            seen.append((app.table.current_id, panel.scroll_y, panel.max_scroll_y))
            if app.table.current_id != PARM:
                break
        *on_parm, (moved_to, top, _) = seen
        assert moved_to == second and top == 0
        assert on_parm and all(paper == PARM for paper, _, _ in on_parm)
        assert on_parm[0][1] > 0  # the first space scrolled, it did not move on
        assert on_parm[-1][1] == on_parm[-1][2]  # the end was shown before it moved on
        # a burst of spaces waits for each paper: three papers' ends, not three skips
        burst(app, ["space"] * 3)
        await settle(pilot)
        assert app.table.current_id in app.table.paper_ids[1:3]


async def test_the_notice_counts_the_hits_the_filter_hides(tmp_path: Path) -> None:
    """With the to-read filter, a search and ``similar`` say how many papers they found that the
    filter leaves out; Backspace on the table clears the query in one key."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        with Library([seeds], data) as library:
            learning = _ids(library, "learning")
        await pilot.press("slash")
        await type_text(pilot, "learning")
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("t", "3")
        await settle(pilot)
        assert app.table.paper_ids == [learning[0]]
        hidden = len(learning) - 1
        assert _search_status(app) == (f"1/1  {hidden} hidden by the filter (1: all)")
        await pilot.press("s")  # papers like it, among the to-read: none but itself
        await settle(pilot)
        with Library([seeds], data) as library:
            like = library.similar(learning[0])
        assert app.search_bar.value == f"like:{learning[0][:8]}"
        assert _search_status(app).startswith(f"0/0  {like.total} hidden by the filter (1: all); "
                                              "papers like ")
        assert _panel_text(app) == ("press / to change the query, backspace to clear it, or 1 "
                                    "to show all papers")
        await pilot.press("backspace")
        await settle(pilot)
        assert app.search_bar.value == ""
        assert app.table.paper_ids == [learning[0]]  # the filter stays
        assert _search_status(app) == "1/1"
        await pilot.press("1")
        await settle(pilot)
        assert app.table.row_count == 35


async def test_dismissed_is_a_shape_in_ascii_too(tmp_path: Path) -> None:
    """Under ``--ascii`` (and NO_COLOR) a dismissed paper's glyph is ``-``, in the row, the panel
    and the header."""
    app = shipped_app(tmp_path, ascii_only=True)[0]
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("d", "k")
        await settle(pilot)
        assert app.table.get_row(PARM)[0].plain == ASCII_GLYPHS["dismissed"] == "-"
        assert _panel_text(app).startswith("PARM  - dismissed\n")
        header = app.header.query_one("#counts", Static).content.plain
        assert " 5 - dismissed 1 " in header
        assert header.isascii()


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed: this test drives the real "
                    "command in tmux (.ci/run installs it)")
@pytest.mark.parametrize("colour", ["unicode", "NO_COLOR"])
def test_triage_in_a_real_terminal(tmp_path: Path, colour: str) -> None:
    """At 80x24 in tmux: ``d`` dismisses PARM (its glyph in the row and the header, ``-`` under
    NO_COLOR), ``5`` lists it alone, ``u`` names it, a search with the to-read filter says
    how many hits the filter hides, Backspace clears the query; the mark is on disk."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    ascii_only = colour == "NO_COLOR"
    environment = ["env", "-u", "LC_ALL", "-u", "LC_CTYPE", *([] if ascii_only else
                                                              ["-u", "NO_COLOR"]),
                   "TERM=xterm-256color", "LANG=C.UTF-8", *(["NO_COLOR=1"] if ascii_only else [])]
    glyph = "-" if ascii_only else "×"
    terminal = Terminal([*environment, *papertray_command(), *where])
    try:
        terminal.wait_for("1/35", "d dismiss")
        terminal.keys("d")
        terminal.wait_for(f"5 {glyph} dismissed 1", f" {glyph}  PARM ", "2/35")
        terminal.keys("5")
        terminal.wait_for("1/1", f"PARM  {glyph} dismissed")
        terminal.keys("u")
        terminal.wait_for("undid: PARM dismissed", f"5 {glyph} dismissed 0")
        terminal.keys("1")
        terminal.wait_for("/35")
        terminal.keys("/")
        terminal.keys("learning", literal=True)
        terminal.wait_for("1/21")
        terminal.keys("Enter")
        terminal.wait_for("d dismiss")  # the table has the keyboard: its keys in the footer
        terminal.keys("d")
        terminal.wait_for(f"5 {glyph} dismissed 1", "2/21")
        terminal.keys("5")
        terminal.wait_for("1/1  20 hidden by the filter (1: all)")
        terminal.keys("BSpace")
        terminal.wait_for("search: words", "1/1", absent=("hidden by",))
        terminal.keys("q")
        terminal.wait_for("[papertray exited 0]")
    finally:
        terminal.close()
    hits = papertray_json(where, "list", "--status", "dismissed")["hits"]
    with Library([seeds], data) as library:
        first = _ids(library, "learning")[0]
    assert [(h["id"], h["status"]) for h in hits] == [(first, "dismissed")]
