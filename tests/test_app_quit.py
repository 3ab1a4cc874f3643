"""Quitting: q, ctrl+q and signals after the keys still waiting, and answers late at exit."""

from __future__ import annotations

import asyncio
from pathlib import Path

from db import Library
from tests.tui_support import app_on, burst, settle, shipped_app, shipped_copy, wait_for
from tui.browser.messages import PageLoaded, PaperLoaded


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


async def test_a_quit_while_the_palette_still_searches_its_commands_ends_cleanly(
        tmp_path: Path, monkeypatch) -> None:
    """ctrl+q while the command palette's search of commands is still under way: the browser
    exits 0. The search, resuming after the palette's widgets were taken down, looked up its
    list of commands and ended the browser with ``NoMatches``."""
    from textual.command import CommandList

    from tui.browser.commands import TriageCommands

    search = TriageCommands.search
    started, ended = asyncio.Event(), asyncio.Event()

    async def slow_search(self, query: str):
        started.set()
        try:
            while self.screen.query(CommandList):  # a provider slower than the quit: it
                await asyncio.sleep(0.01)          # answers once the palette is taken down
            async for hit in search(self, query):
                yield hit
        finally:
            ended.set()  # resumed to the end, or cancelled

    monkeypatch.setattr(TriageCommands, "search", slow_search)
    app, _seeds, _data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["ctrl+p", "m"])
        await wait_for(pilot, started.is_set, "the palette to search its commands")
        burst(app, ["ctrl+q"])
        await wait_for(pilot, ended.is_set, "the palette's search to end")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0


async def test_an_exit_as_the_tag_editor_opens_ends_cleanly(tmp_path: Path) -> None:
    """The app exits while the tag editor it was asked for is still being built: the editor
    finds its widgets gone and the exit ends without an error, at every step of the opening
    (how far it got depends on the event loop's turns, so each of the first turns is tried)."""
    for turns in range(12):
        app = shipped_app(tmp_path / str(turns))[0]
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            burst(app, ["number_sign"])
            for _turn in range(turns):
                await asyncio.sleep(0)
            app.exit()
            await wait_for(pilot, lambda app=app: not app.is_running, "the app to exit")
