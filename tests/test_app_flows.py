"""Whole triage flows through the real browser (App.run_test) on real seed files.

Every test builds its library in tmp and waits on conditions (``settle``), never on the clock.
"""

from __future__ import annotations

import asyncio
import os
import random
from pathlib import Path

from rich.text import Text
from textual import events
from textual.command import CommandList
from textual.widgets import Static

from db import Library
from tests.tui_support import (
    ODD_SEEDS,
    app_on,
    burst,
    copy_files,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
    wait_for,
)
from tui.browser.app import PapertrayApp
from tui.browser.messages import PageLoaded, PaperLoaded
from tui.browser.screens import HelpScreen
from tui.browser.widgets import SearchBar
from tui.glyphs import GLYPHS


def _ids(library: Library, query: str, status: str | None = None, limit: int = 200) -> list[str]:
    return [h.id for h in library.search(query, status, limit, typing=True).hits]


def _panel_text(app: PapertrayApp) -> str:
    content = app.panel.query_one("#abstract-body", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def _notice_text(app: PapertrayApp) -> str:
    notice = app.query_one("#no-results", Static)
    content = notice.content
    return (content.plain if isinstance(content, Text) else str(content)) if notice.display else ""


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
            "all": 35, "new": 33, "to-read": 1, "read": 1}

        await pilot.press("3")
        await settle(pilot)
        assert app.table.paper_ids == [first]
        await pilot.press("u")  # undoes the latest step: `second` is new again
        await settle(pilot)
        assert app.query_one("StatusHeader").counts == {
            "all": 35, "new": 34, "to-read": 1, "read": 0}
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


async def test_pressing_a_mark_again_toggles_it_back_to_new(tmp_path: Path) -> None:
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        await pilot.press("t")  # shown at once, before the worker has written it
        assert app.table.hit(first).status == "to-read"
        assert app.header.counts["to-read"] == 1
        assert app.table.current_id == app.table.paper_ids[1]
        await pilot.press("k", "t")  # come back, press it again
        await settle(pilot)
        assert app.table.hit(first).status == "new"
        await pilot.press("k", "r", "k", "x")  # read, come back, clear
        await settle(pilot)
        assert app.table.hit(first).status == "new"
        assert app.table.current_id == app.table.paper_ids[1]
    with Library([seeds], data) as library:
        assert library.counts()["new"] == 35


async def test_fast_typing_leaves_the_table_equal_to_the_last_query(tmp_path: Path) -> None:
    """Type then delete a query 50 times as fast as keys come; stale answers never win."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, debounce_seconds=0.0)  # no debounce: every key searches
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        burst(app, [*"graph", *["backspace"] * 5] * 50)
        await settle(pilot)
        assert app.query_one(SearchBar).value == ""
        with Library([seeds], data) as library:
            assert app.table.paper_ids == _ids(library, "")
            burst(app, "learn")
            await settle(pilot)
            assert app.table.paper_ids == _ids(library, "learn")
            assert app.table.row_count == 21


async def test_keys_typed_ahead_go_where_they_were_meant(tmp_path: Path) -> None:
    """Over SSH keys arrive in bursts: "/wudi", Enter, "t" must search, then mark."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter", "t"])
        await settle(pilot)
        assert app.query_one(SearchBar).value == "wudi"
        assert app.focused is app.table
        burst(app, ["slash", "ctrl+u", *"graph", "down", "j", "r", "3", "k", "2"])
        await settle(pilot)
        assert app.status_filter == "new"
    with Library([seeds], data) as library:
        assert [h.name for h in library.search("", "to-read").hits] == ["WUDI-Merging"]
        assert [h.name for h in library.search("", "read").hits] == ["ELoRA"]


async def test_keys_typed_after_slash_edit_the_query_in_order(tmp_path: Path) -> None:
    """Editing keys (ctrl+u, Backspace, Left) in a burst with letters act where they were typed,
    not after the letters behind them."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter"])
        await settle(pilot)
        burst(app, ["slash", "ctrl+u", *"graph"])
        await settle(pilot)
        assert app.search_bar.value == "graph"
        assert app.table.row_count == 2
        burst(app, ["escape", "slash", "backspace", *"xyz"])  # "/" selects the query: replaced
        await settle(pilot)
        assert app.search_bar.value == "xyz"
        burst(app, ["backspace", "backspace", *"ab", "left", "left", "backspace", "c", "end", "d"])
        await settle(pilot)
        assert app.search_bar.value == "cabd"
        # Enter moves the focus at once; the keys typed before it still edit the query
        burst(app, ["ctrl+u", *"graphx", "backspace", "enter", "t"])
        await settle(pilot)
        assert app.search_bar.value == "graph"
        assert app.focused is app.table
        with Library([seeds], data) as library:
            assert library.get(_ids(library, "graph")[0]).status == "to-read"


async def test_a_paste_is_only_ever_search_text(tmp_path: Path) -> None:
    """A paste with an escape sequence and line breaks becomes one clean line of query; it never
    leaves the search bar nor marks a paper. Pasted on the table, it goes to the search bar,
    and keys typed after it follow it there."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        app.post_message(events.Paste("model \x1b[2J x\r\nrrr ttt\x00\u202e"))
        await settle(pilot)
        assert app.search_bar.value == "model [2J x rrr ttt"
        assert app.focused is app.search_bar.input
        app.search_bar.input.value = "a\x1b[2Jb\tc"  # whatever way text gets in, it is clean
        assert app.search_bar.value == "a [2Jb c"
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is app.table
        app.post_message(events.Paste("graph\nneural\x1b"))
        burst(app, ["space", *"net", "enter", "r"])
        await settle(pilot)
        assert app.search_bar.value == "graph neural net"
        assert app.focused is app.table
        with Library([seeds], data) as library:
            hits = _ids(library, "graph neural net")
            assert library.counts()["read"] == 1
            assert library.get(hits[0]).status == "read"


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
    """30 random bursts of r/t/x/u/j/k/g: after each, every row's glyph, the panel's status and
    the header counts are what the marks file says."""
    app, seeds, data = shipped_app(tmp_path)
    rng = random.Random(20250611)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        with Library([seeds], data) as library:
            for _ in range(30):
                keys = rng.choices("rtxujkg", weights=[4, 4, 2, 3, 3, 2, 1],
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
        assert _panel_text(app) == "press / to change the query, or 1 to show all papers"
        await pilot.press("slash", "ctrl+u", "escape", "4")
        await settle(pilot)
        assert _notice_text(app) == "no read papers"


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


async def test_seed_changes_are_picked_up_while_running(tmp_path: Path) -> None:
    """A seed file added while the app runs is synced in the background; the cursor stays on
    its paper; a file that cannot be read is named in a notification."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("j", "j", "j")
        await settle(pilot)
        here = app.table.current_id
        copy_files(seeds, [ODD_SEEDS / "latex.txt"])
        (seeds / "junk.txt").write_bytes(bytes(range(256)) * 8)
        header = app.query_one("StatusHeader")
        await wait_for(pilot, lambda: header.counts.get("all") == 37, "the new papers")
        await settle(pilot)
        assert app.table.current_id == here
        assert app.table.row_count == 37
        assert any("junk.txt" in note and "not loaded" in note for note in notes)


async def test_the_browser_builds_a_library_large_enough_for_parse_workers(
        tmp_path: Path, monkeypatch) -> None:
    """A sync that parses in worker processes works inside the browser, where Textual's
    captured stderr has no file descriptor (-1): multiprocessing's resource tracker, started by
    the first pool of a process, passed it on and every such sync failed ("bad value(s) in
    fds_to_keep"), the first build of a large library included."""
    import multiprocessing.resource_tracker as tracker

    import db.seeds.parallel

    monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    # as in a fresh process: no resource tracker running yet (another test may have started
    # one in this process; it is put back afterwards)
    fresh = tracker.ResourceTracker()
    for name in ("ensure_running", "register", "unregister", "getfd"):
        monkeypatch.setattr(tracker, name, getattr(fresh, name))
    monkeypatch.setattr(tracker, "_resource_tracker", fresh)
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    notes = record_notifications(app)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            header = app.query_one("StatusHeader")
            await wait_for(pilot, lambda: header.counts.get("all") == 35 or bool(notes),
                           "the first build")
            assert header.counts.get("all") == 35, notes
            await settle(pilot)
            assert app.table.row_count == 35
            (seeds / "more.txt").write_text("More\n\nWe propose ZebraNet, a model of stripes.\n")
            await wait_for(pilot, lambda: header.counts.get("all") == 36 or bool(notes),
                           "a sync of a changed seed folder")
            assert header.counts.get("all") == 36, notes
    finally:
        if fresh._fd is not None:  # the tracker this test started ends with its pipe
            os.close(fresh._fd)
            os.waitpid(fresh._pid, 0)


async def test_answers_arriving_while_the_app_closes_are_dropped(tmp_path: Path) -> None:
    """A worker's answer that arrives after the screens were taken down, while the app's own
    queue still runs (a sync's search finishing as the app exits), is dropped: it used to look
    for the results pane and end the run with ``NoMatches``."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    queued: list[bool] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        result, prune = app._result, app._prune

        async def prune_then_answer(*nodes, **options):
            await prune(*nodes, **options)
            assert not app.is_running
            queued.append(app.post_message(PageLoaded(app._request, 0, result, None)))
            queued.append(app.post_message(PaperLoaded(result.hits[0].id, None)))
            await asyncio.sleep(0.05)  # the app's queue runs meanwhile

        app._prune = prune_then_answer
    assert queued and all(queued)


async def test_keys_typed_after_q_do_nothing(tmp_path: Path) -> None:
    """``t`` then ``question`` in one burst (a mark, then q and the rest of a word meant for
    the shell): the app quits with the mark made. The exit waited behind the keys typed after
    ``q``, and ``u`` undid the mark on the way out (``e`` exported, ``t`` marked again...)."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter", "t", *"question"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        marked = {h.name: h.status for h in library.search("", None, 50, 0).hits
                  if h.status != "new"}
        assert marked == {"WUDI-Merging": "to-read"}
    assert not (data / "exports").exists()


async def test_ctrl_q_typed_behind_waiting_keys_quits_after_them(tmp_path: Path) -> None:
    """``/wudi⏎ t ctrl+q`` in one burst: the ``t`` waits for the hits of "wudi", and ctrl+q,
    which quit at once, quit before it: the mark was lost. ctrl+q now waits behind keys that
    wait (for :data:`WAIT_LIMIT_S` at most); with nothing waiting it quits at once."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter", "t", "a", *"hi", "enter", "ctrl+q", "u"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        marked = {h.name: (h.status, library.get(h.id).note)
                  for h in library.search("", None, 50, 0).hits if h.status != "new"}
    assert marked == {"WUDI-Merging": ("to-read", "hi")}


async def test_ctrl_q_typed_behind_keys_that_close_the_help_quits_after_them(
        tmp_path: Path) -> None:
    """``? Esc j t ctrl+q`` in one burst (a look at the keys, then a mark and out): the help
    screen closes after Esc, and the keys behind it went to the help screen's queue, to reach
    the table later; ctrl+q, with no key held, quit at once, before them: no mark made. Keys
    typed while the help closes now wait for it, as for the palette, and ctrl+q behind them."""
    for keys in (["question_mark", "escape", "j", "t"], ["question_mark", "q", "j", "t"]):
        app, seeds, data = shipped_app(tmp_path / keys[1])
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            second = app.table.paper_ids[1]
            burst(app, [*keys, "ctrl+q"])
            await wait_for(pilot, lambda app=app: not app.is_running, "the app to exit")
        with Library([seeds], data) as library:
            assert [(h.id, h.status) for h in library.search("", None, 50, 0).hits
                    if h.status != "new"] == [(second, "to-read")], keys


async def test_ctrl_q_quits_when_the_keys_before_it_wait_too_long(tmp_path: Path,
                                                                  monkeypatch) -> None:
    """A key that waits for ever (here: for a search bar that never catches up) does not keep
    ctrl+q from quitting: it quits after :data:`WAIT_LIMIT_S`."""
    monkeypatch.setattr("tui.browser.keys.WAIT_LIMIT_S", 0.2)
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app._awaiting_input = True  # the search bar that never catches up
        app.table.focus()
        burst(app, ["t", "ctrl+q"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        assert library.counts()["to-read"] == 0


async def test_keys_typed_before_a_signal_act_and_those_after_it_do_not(tmp_path: Path) -> None:
    """SIGTERM, SIGHUP or the terminal going away (:meth:`exit_in_turn`) while ``t t`` wait in
    the app's queue: both papers are marked, as if ``q`` had been typed after them; the ``u``
    that arrives after it does nothing. The exit came at once and dropped the two keys."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["t", "t"])
        app.exit_in_turn()
        burst(app, ["u"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        statuses = [h.status for h in library.search("", None, 50, 0).hits]
    assert statuses[:3] == ["to-read", "to-read", "new"]


async def test_a_signal_keeps_held_keys_and_the_note_being_written(tmp_path: Path) -> None:
    """SIGTERM, SIGHUP or the terminal going away (:meth:`exit_in_turn`) right after
    ``/wudi⏎ t a hi``: the ``t`` held back for the hits of "wudi" marks, the note typed is
    saved (as ctrl+q does), then the browser quits. Both were dropped."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"wudi", "enter", "t", "k", "a", *"hi"])
        app.exit_in_turn()
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        marked = {h.name: (h.status, library.get(h.id).note)
                  for h in library.search("", None, 50, 0).hits if h.status != "new"}
    assert marked == {"WUDI-Merging": ("to-read", "hi")}


async def test_a_broken_seed_file_is_reported_at_start(tmp_path: Path) -> None:
    seeds = copy_files(tmp_path / "seeds", [ODD_SEEDS / "brackets.txt", ODD_SEEDS / "empty.txt"])
    app = app_on(seeds, tmp_path / "data")
    notes = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.table.row_count == 2
        assert notes == ["seed file empty.txt not loaded: empty file"]


async def test_layout_follows_the_width_and_survives_tiny_terminals(tmp_path: Path) -> None:
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.screen.has_class("-narrow") and not app.screen.has_class("-wide")
        await pilot.resize_terminal(200, 50)
        await wait_for(pilot, lambda: app.screen.has_class("-wide"), "the wide layout")
        for width, height in [(20, 6), (200, 50), (33, 7), (120, 40), (119, 10), (20, 6)] * 2:
            await pilot.resize_terminal(width, height)
            await pilot.pause()
        await pilot.press("j", "t", "slash")
        await type_text(pilot, "graph")
        await settle(pilot)
        assert app.table.row_count == 2
        assert app.screen.has_class("-narrow")


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


async def test_help_is_built_from_the_bindings(tmp_path: Path) -> None:
    """The help lists every binding; the app keeps working under it (a sync lands meanwhile)."""
    seeds = shipped_copy(tmp_path)
    app = app_on(seeds, tmp_path / "data", poll_seconds=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("slash", "f1")  # from the search bar too
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
        copy_files(seeds, [ODD_SEEDS / "latex.txt"])
        await wait_for(pilot, lambda: app.header.counts.get("all") == 37, "a sync under the help")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        lines = app.screen.lines
        described = {line.description for line in lines}
        for binding in PapertrayApp.BINDINGS:
            if binding.action not in ("command_palette", "leave_search"):
                assert binding.tooltip in described
        pairs = [(line.keys, line.description) for line in lines]
        assert ("↓ j", "Move to the next paper") in pairs
        assert any(line.keys == "q ^q" for line in lines)
        (undo_keys, note), = app.screen.marks  # noqa: RUF100 - one row, from the bindings
        assert undo_keys == "u" and "shares one undo history" in note
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen), "help to close")
        assert app.focused is app.table


async def test_command_palette_runs_triage_commands(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        await pilot.press("ctrl+p")
        await type_text(pilot, "mark the paper to-read")
        await wait_for(pilot, lambda: app.screen.query_one(CommandList).option_count > 0,
                       "palette hits")
        await pilot.press("enter")
        await settle(pilot)
        assert app.table.hit(first).status == "to-read"


async def test_keys_typed_after_enter_in_the_palette_act_after_its_command(
        tmp_path: Path) -> None:
    """``ctrl+p``, a command, then ``⏎ t`` (and ``ctrl+q``) in one burst: the ``t`` went to the
    palette's input as the palette was closing and was lost; ctrl+q behind it quit before the
    palette's command ran. Keys typed after Enter wait for the palette to close, as after Esc."""
    for keys in (["enter", "t"], ["enter", "t", "ctrl+q"]):
        app, seeds, data = shipped_app(tmp_path / str(len(keys)))
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot)
            first, second = app.table.paper_ids[:2]
            await pilot.press("ctrl+p")
            await type_text(pilot, "mark the paper to-read")
            await wait_for(pilot, lambda app=app: app.screen.query_one(
                CommandList).option_count > 0, "palette hits")
            burst(app, keys)
            if "ctrl+q" in keys:
                await wait_for(pilot, lambda app=app: not app.is_running, "the app to exit")
            else:
                await wait_for(pilot, lambda app=app, second=second: app.table.hit(
                    second).status != "new", "the second mark")
                await settle(pilot)
        with Library([seeds], data) as library:
            assert [(h.id, h.status) for h in library.search("", None, 50, 0).hits
                    if h.status != "new"] == [(first, "to-read"), (second, "to-read")], keys


async def test_ctrl_z_suspends_over_every_screen(tmp_path: Path) -> None:
    """ctrl+z (suspend to the shell) did nothing while the note or tags editor, the help or the
    command palette was open: a screen over the main one took the key and the app's binding was
    never asked (and ``fg`` typed next went into the note). It suspends on every screen, and the
    screen, with what was typed, is there when the browser comes back."""
    app = shipped_app(tmp_path)[0]
    suspended: list[str] = []
    app.action_suspend_process = lambda: suspended.append(type(app.screen).__name__)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for opening in ("a", "number_sign", "question_mark", "ctrl+p"):
            await pilot.press(opening)
            await wait_for(pilot, lambda: len(app.screen_stack) == 2, f"the screen of {opening}")
            if opening in ("a", "number_sign"):
                await type_text(pilot, "hi")
            await pilot.press("ctrl+z")
            await settle(pilot)
            if opening in ("a", "number_sign"):
                assert app.screen.input.value == "hi"
            await pilot.press("escape")
            await wait_for(pilot, lambda: len(app.screen_stack) == 1, "the screen to close")
        await pilot.press("ctrl+z")
    assert suspended == ["TextPrompt", "TextPrompt", "HelpScreen", "CommandPalette",
                         "Screen"]


async def test_a_taller_terminal_fills_the_table_at_the_end_of_the_list(
        tmp_path: Path, monkeypatch) -> None:
    """``G`` in a short terminal, then the window made taller (a tmux pane zoomed, 30x8 to
    250x70 at 87k papers): the table kept the short terminal's page of rows, the last paper at
    its end and the rest of the screen blank, with more papers above. It loads a page for the
    new height at once, the cursor still on the last paper."""
    monkeypatch.setattr("tui.browser.app.PAGE_SIZE", 10)  # the shipped library has 35 papers
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 8)) as pilot:
        await settle(pilot)
        assert app.table.page_size == 16 and app.table.total == 35
        await pilot.press("G")
        await settle(pilot)
        last = app.table.current_id
        assert (app.table.window_offset, app.table.row_count) == (19, 16)
        await pilot.resize_terminal(100, 40)
        await wait_for(pilot, lambda: app.table.row_count == 35, "a page for the new height",
                       state=lambda: f"{app.table.window_offset}+{app.table.row_count}")
        await settle(pilot)
        assert app.table.current_id == last


async def test_an_unusable_data_dir_is_a_message_not_a_crash(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be\n", encoding="utf-8")
    app = app_on(shipped_copy(tmp_path), not_a_folder)
    notes = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(notes), "a notification")
        assert notes[0].startswith("open: cannot create the data folder")
        assert _panel_text(app).startswith("cannot open the library: cannot create the data")
        await pilot.press("j", "t", "slash", "x", "escape", "u", "2")
        await pilot.press("q")
    assert app.return_code == 0


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
    """``--ascii``: "$\\mathcal{G}$ over $\\mathbb{R}^n$" renders to "𝒢 over ℝ^n", which the
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
        assert "On a graph 𝒢 over ℝ^n" in body.content.plain


async def test_a_superseded_answer_is_never_shown_and_the_newest_query_runs_when_it_comes(
        tmp_path: Path, monkeypatch) -> None:
    """While "grap" is searched, "h" is typed: the answer for "grap" arrives superseded and is
    dropped unseen, and "graph" is searched the moment it arrives, not after the debounce
    (an hour here: the test would time out)."""
    import threading

    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, debounce_seconds=3600.0)
    started, gate = threading.Event(), threading.Event()
    search = Library.search

    def slow(library, query="", *args, **kwargs):
        if query == "grap":
            started.set()
            gate.wait(10)
        return search(library, query, *args, **kwargs)

    shown: list[str] = []
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        show_hits = app.table.show_hits

        def spy(*args, **kwargs):
            shown.append(app._result.query)
            show_hits(*args, **kwargs)

        monkeypatch.setattr(app.table, "show_hits", spy)
        monkeypatch.setattr(Library, "search", slow)
        await pilot.press("slash")
        burst(app, "grap")
        await wait_for(pilot, started.is_set, 'the search for "grap" to start')
        burst(app, "h")
        await wait_for(pilot, lambda: app.search_bar.value == "graph", '"graph" in the bar')
        assert app._search_timer is not None  # "graph" waits: a search is on its way
        gate.set()
        await settle(pilot)
        assert shown == ["graph"]
        with Library([seeds], data) as library:
            assert app.table.paper_ids == _ids(library, "graph")


async def test_the_cursor_paper_comes_with_the_hits(tmp_path: Path, monkeypatch) -> None:
    """A search reads the paper its cursor lands on with the hits, so the panel is drawn with
    the table: no second worker is started for it."""
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        loads: list[str] = []
        load_paper = app.load_paper

        def counting(paper_id: str):
            loads.append(paper_id)
            return load_paper(paper_id)

        monkeypatch.setattr(app, "load_paper", counting)
        await pilot.press("slash")
        await type_text(pilot, "learning")
        await settle(pilot)
        assert app._result.query == "learning"
        assert app.panel.paper is not None and app.panel.paper.id == app.table.current_id
        assert loads == []
        await pilot.press("down", "j")  # back to the table, next paper: loaded by itself
        await settle(pilot)
        assert loads == [app.table.current_id] == [app.panel.paper.id]


async def test_the_page_follows_the_terminal_height(tmp_path: Path) -> None:
    """The table gets a page of PAGE_SIZE hits, or of twice the terminal's height when that is
    more, so a tall terminal never shows the table ending early; a page size given is kept."""
    from tui.browser.app import PAGE_SIZE

    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        assert app.page_size == app.table.page_size == PAGE_SIZE
        await pilot.resize_terminal(100, 50)
        await wait_for(pilot, lambda: app.table.page_size == 100, "a page of 100 rows")
        assert app.page_size == 100
    app = app_on(seeds, data, page_size=10)
    async with app.run_test(size=(100, 50)) as pilot:
        await settle(pilot)
        assert app.page_size == app.table.page_size == 10
        assert app.table.row_count == 10


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
