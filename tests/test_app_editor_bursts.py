"""The note (``a``) and tag (``#``) editors under bursts of keys, as they come over SSH.

Enter then Esc (or Enter twice) in one burst used to dismiss the editor twice: Textual's
``ScreenStackError`` ended the app. Whatever the keys, the app must stay up, the text typed
before Enter must be saved exactly once, and each key after it must act on the screen that is
on top by then. Every case checks the marks file through :class:`db.Library`: its undo history
holds the steps made, in order, and nothing more.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.command import CommandInput, CommandPalette

from db import Library
from tests.tui_support import (
    PARM,
    app_on,
    burst,
    burst_until_exit,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
    wait_for,
)
from tui.browser import keys
from tui.browser.app import PapertrayApp
from tui.browser.editors import TextPrompt
from tui.browser.reading_screen import ReadingScreen

EDITORS = {"a": "note", "number_sign": "tag"}
#: The two keys of each burst, and whether the text typed before them is saved.
BURSTS = [(("enter", "escape"), True), (("enter", "enter"), True),
          (("escape", "enter"), False)]


def _undo_steps(library: Library) -> list[list[tuple[str, str, str]]]:
    """Undo every step in the marks file, newest first: each as ``(kind, old, new)`` tuples."""
    steps = []
    while changes := library.undo():
        steps.append(sorted((c.kind, c.old, c.new) for c in changes))
        assert len(steps) < 10, "undo never ran out"
    return steps


def _expected_steps(kind: str, saved: bool) -> list[list[tuple[str, str, str]]]:
    """The steps a burst leaves, newest first: the mark ``t`` made, then the note or tags."""
    steps = [[("mark", "to-read", "new")]]  # undoing the mark puts back new
    if saved and kind == "note":
        steps.append([("note", "moe rl", "")])
    elif saved:
        steps.append([("tag", "moe", ""), ("tag", "rl", "")])  # undo takes both tags off
    return steps


async def _open_editor(pilot, key: str, text: str = "") -> None:
    """Press ``key`` (``a`` or ``number_sign``), wait for its editor to take keys, type
    ``text`` into it (if any) and wait until the input holds it."""
    app = pilot.app
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt)
                   and not app.screen.holds_keys, "the editor to open")
    if text:
        await type_text(pilot, text)
        await wait_for(pilot, lambda: app.screen.input.value == text, "the text typed")


async def _check_after(app: PapertrayApp, seeds: Path, data: Path, kind: str,
                       saved: bool, moved: bool = True) -> None:
    assert app.is_running and app.screen is app.main_screen
    assert app.focused is app.table
    # "t" marked PARM and went on to the next paper (in the reading view it stays on PARM)
    assert (app.table.current_id != PARM) is moved
    with Library([seeds], data) as library:
        paper = library.get(PARM)
        assert paper.status == "to-read"
        assert paper.note == ("moe rl" if saved and kind == "note" else "")
        assert list(paper.tags) == (["moe", "rl"] if saved and kind == "tag" else [])
        assert _undo_steps(library) == _expected_steps(kind, saved)


@pytest.mark.parametrize(("keys", "saved"), BURSTS, ids=["-".join(k) for k, _ in BURSTS])
@pytest.mark.parametrize("editor", sorted(EDITORS))
async def test_two_keys_in_one_burst_close_the_open_editor_once(
        tmp_path: Path, editor: str, keys: tuple[str, str], saved: bool) -> None:
    """The editor is open with text typed; its closing key and another come in one burst,
    and the next key (``t``) marks the paper on the main screen."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _open_editor(pilot, editor, "moe rl")
        burst(app, keys)
        await settle(pilot)
        if keys[-1] == "enter":  # the second key acts on the table: Enter reads the paper
            assert isinstance(app.screen, ReadingScreen)
            await pilot.press("escape")
            await settle(pilot)
        assert app.is_running and app.screen is app.main_screen
        await pilot.press("t")
        await settle(pilot)
        await _check_after(app, seeds, data, EDITORS[editor], saved)


@pytest.mark.parametrize(("keys", "saved"), BURSTS, ids=["-".join(k) for k, _ in BURSTS])
@pytest.mark.parametrize("editor", sorted(EDITORS))
async def test_opening_typing_closing_and_marking_in_one_burst(
        tmp_path: Path, editor: str, keys: tuple[str, str], saved: bool) -> None:
    """The key that opens the editor, the text, two closing keys and ``t`` all arrive before
    the editor has even opened: the text still goes into the editor and ``t`` to the table."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, [editor, *"moe", "space", *"rl", *keys, "t"])
        await settle(pilot)
        reading = keys[-1] == "enter"  # Enter on the table reads the paper: t marks it there
        if reading:
            assert isinstance(app.screen, ReadingScreen)
            await pilot.press("escape")
            await settle(pilot)
        await _check_after(app, seeds, data, EDITORS[editor], saved, moved=not reading)


async def test_editing_keys_in_a_burst_act_before_enter_saves(tmp_path: Path) -> None:
    """Keys act in the order typed: ``moex``, Backspace, Left, ``r``, Enter saves ``more``
    (Backspace and Left are the input's bindings, which Textual would run only once the key
    had bubbled back up to the app, after Enter had read the text)."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["a", *"moex", "backspace", "left", "r", "enter", "escape", "j"])
        await settle(pilot)
        assert app.screen is app.main_screen and app.table.current_id != PARM
        with Library([seeds], data) as library:
            assert library.get(PARM).note == "more"


async def test_an_editor_opened_right_after_a_save_shows_what_was_saved(tmp_path: Path) -> None:
    """``a`` typed right after Enter saved a note opens the editor on that note, and ``#``
    right after tags were saved shows them as the paper's tags: the key waits until the note
    is written and the paper read anew (it used to open on the note before, and saving that
    again would have put the old note back)."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["a", *"moe", "enter", "a"])
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt)
                       and not app.screen.holds_keys and not app.keys_waiting,
                       "the editor to open again")
        assert app.screen.input.value == "moe"
        burst(app, ["space", *"rl", "enter", "number_sign", *"moe", "enter", "number_sign"])
        # (the first "#" opens a tag editor too, with the keys behind it still on their way)
        await wait_for(pilot, lambda: isinstance(app.screen, TextPrompt)
                       and not app.screen.holds_keys and app.screen.title_text == "Tags for"
                       and not app.keys_waiting,
                       "the tag editor to open again")
        hint = str(app.screen.query_one("#prompt-hint").render())
        assert hint.startswith("now: #moe ")
        await pilot.press("escape")
        await settle(pilot)
    with Library([seeds], data) as library:
        assert library.get(PARM).note == "moe rl"
        assert _undo_steps(library) == [[("tag", "moe", "")], [("note", "moe rl", "moe")],
                                        [("note", "moe", "")]]


def _five_tagged(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """A copy of the shipped seeds synced, its first 5 papers (in list order) tagged ``moe``:
    ``(seeds, data, their ids)``."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    with Library([seeds], data) as library:
        library.sync()
        ids = [h.id for h in library.search("", None, 10, 0).hits][:5]
        library.tag(ids, ["moe"])
    return seeds, data, ids


async def test_a_paper_that_leaves_the_results_with_its_tag_leaves_the_cursor_in_place(
        tmp_path: Path) -> None:
    """Under ``tag:moe``, removing the tag from the third paper takes it out of the results:
    the cursor stays on the third row (the paper after it), as a mark moves on, and a ``t``
    typed in the same burst marks that paper. The rows read anew after the save went to the
    first row: the ``t`` marked the first paper instead."""
    seeds, data, ids = _five_tagged(tmp_path)
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"tag:moe", "enter", "j", "j"])
        await settle(pilot)
        assert app.table.current_id == ids[2]
        burst(app, ["number_sign", *"-moe", "enter", "t"])
        await settle(pilot)
        assert app.table.total == 4 and app.table.hit(ids[2]) is None
        assert app.table.current_id == ids[4]  # "t" marked ids[3] and moved on
    with Library([seeds], data) as library:
        assert [library.get(i).status for i in ids] == ["new", "new", "new", "to-read", "new"]
        assert library.get(ids[2]).tags == ()


@pytest.mark.parametrize("ascii_only", [False, True], ids=["unicode", "ascii"])
async def test_a_key_typed_right_after_esc_closes_the_palette_acts_on_the_table(
        tmp_path: Path, ascii_only: bool) -> None:
    """Esc then ``t`` in one burst (one read over SSH) closes the command palette and marks
    the cursor paper: the ``t`` reached the palette before it was taken down, and was lost."""
    app, seeds, data = shipped_app(tmp_path, ascii_only=ascii_only)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                       and app.screen.query_one(CommandInput).has_focus, "the palette to open")
        burst(app, ["escape", "t"])
        await wait_for(pilot, lambda: app.screen is app.main_screen, "the palette to close")
        await settle(pilot)
        assert app.table.current_id != PARM  # "t" marked PARM and moved on
    with Library([seeds], data) as library:
        assert library.get(PARM).status == "to-read"


async def test_keys_after_esc_go_on_when_the_palette_does_not_close(
        tmp_path: Path, monkeypatch) -> None:
    """Keys typed after Esc wait for the palette to close, :data:`WAIT_LIMIT_S` at most:
    should it stay open (here its Esc does nothing) they go to it after the wait, not never."""
    monkeypatch.setattr(keys, "WAIT_LIMIT_S", 0.2)
    monkeypatch.setattr(CommandPalette, "_action_escape", lambda self: None)
    app = shipped_app(tmp_path)[0]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                       and app.screen.query_one(CommandInput).has_focus, "the palette to open")
        burst(app, ["escape", *"the"])
        await wait_for(pilot, lambda: app.screen.query_one(CommandInput).value == "the",
                       "the keys typed after Esc")
        assert isinstance(app.screen, CommandPalette)
        assert not app.keys_waiting


@pytest.mark.parametrize("key", ["a", "number_sign"])
async def test_an_editor_opened_right_after_a_move_edits_the_paper_moved_to(
        tmp_path: Path, key: str) -> None:
    """``j`` then ``a`` (or ``#``), the text and Enter in one burst write the note (or tags)
    on the second paper. The editor refused to open while that paper was still loading into
    the panel ("try again"), and the text went to the table as keys: ``x`` marked, ``e``
    exported, ``s`` searched for similar papers."""
    app, seeds, data = shipped_app(tmp_path)
    with Library([seeds], data) as library:
        library.sync()
        second = library.search("", None, 10, 0).hits[1].id
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["j", key, *"sex", "enter", "k", key, *"tex", "enter"])
        await settle(pilot)
        assert app.screen is app.main_screen and app._query == ""
        assert app.table.current_id == PARM
    with Library([seeds], data) as library:
        if key == "a":
            assert (library.get(second).note, library.get(PARM).note) == ("sex", "tex")
        else:
            assert (library.get(second).tags, library.get(PARM).tags) == (("sex",), ("tex",))
        assert library.get(second).status == library.get(PARM).status == "new"
    assert not (data / "exports").exists()


async def test_keys_waiting_for_a_paper_that_never_loads_go_on_after_the_wait(
        tmp_path: Path, monkeypatch) -> None:
    """``j a j`` while the second paper never reaches the panel: ``a`` waits for it
    :data:`WAIT_LIMIT_S`, then says it is still loading (no editor opens on a paper not
    shown), and the ``j`` behind it moves on: no key waits for ever."""
    monkeypatch.setattr(keys, "WAIT_LIMIT_S", 0.2)
    app = shipped_app(tmp_path)[0]
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.load_paper = lambda paper_id: None  # the paper moved to never comes
        third = app.table.paper_ids[2]
        burst(app, ["j", "a", "j"])
        await wait_for(pilot, lambda: app.table.current_id == third, "the last j")
        assert app.screen is app.main_screen
        assert notes == ["the paper is still loading; try again"]
        assert not app.keys_waiting


async def test_undoing_a_tag_brings_the_paper_back_under_the_cursor(tmp_path: Path) -> None:
    """Under ``tag:moe``, ``#`` ``-moe`` takes the third paper out of the results; ``u`` puts
    the tag back, and the cursor goes to that paper again (as an undone mark does), so the
    ``t`` typed after ``u`` marks it, not the paper that followed it."""
    seeds, data, ids = _five_tagged(tmp_path)
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["slash", *"tag:moe", "enter", "j", "j", "number_sign", *"-moe", "enter"])
        await settle(pilot)
        assert app.table.total == 4 and app.table.current_id == ids[3]
        burst(app, ["u", "t"])
        await settle(pilot)
        assert app.table.total == 5 and app.table.current_id == ids[3]  # "t" moved on
    with Library([seeds], data) as library:
        assert [library.get(i).status for i in ids] == ["new", "new", "to-read", "new", "new"]
        assert library.get(ids[2]).tags == ("moe",)


@pytest.mark.parametrize(("key", "text"), [("a", "a note typed in a hurry"),
                                           ("number_sign", "foo bar baz qux")])
async def test_ctrl_q_right_after_enter_in_an_editor_quits_after_the_save(
        tmp_path: Path, monkeypatch, key: str, text: str) -> None:
    """A note, ⏎ and ctrl+q typed in the note (or tags) editor: Enter's save waits for the
    input to take the keys typed before it, and ctrl+q, with no key held, quit at once, before
    the save (most of the time; always, here, where the input takes 50 ms over them): the note
    was lost. A prompt that closes holds ctrl+q too, until its answer is written."""
    dismiss = TextPrompt._dismiss
    monkeypatch.setattr(TextPrompt, "_dismiss", lambda prompt, save: prompt.set_timer(
        0.05, lambda: dismiss(prompt, save)))
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _open_editor(pilot, key)
        burst(app, [*(k if k != " " else "space" for k in text), "enter", "ctrl+q", "t"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        paper = library.get(PARM)
        expected = (text, ()) if key == "a" else ("", tuple(sorted(text.split())))
        assert (paper.note, paper.tags) == expected
        assert library.counts()["to-read"] == 0  # the t typed after ctrl+q did not act


@pytest.mark.parametrize("key", ["a", "number_sign"])
async def test_ctrl_q_in_an_editor_saves_what_was_typed(tmp_path: Path, key: str) -> None:
    """ctrl+q while a note (or tags) is being written saves it, as Enter would, then quits:
    the quit dropped it, silently and for good; Esc is the key that drops it (and a note
    saved by mistake is one ``u`` away from gone). Typed at leisure, or ``a``, the note and
    ctrl+q in one burst."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _open_editor(pilot, key, "slow")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, ["j", key, *"fast", "ctrl+q", "t"])
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    with Library([seeds], data) as library:
        second = library.search("", None, 10, 0).hits[1].id
        papers = library.get(PARM), library.get(second)
        if key == "a":
            assert [p.note for p in papers] == ["slow", "fast"]
        else:
            assert [p.tags for p in papers] == [("slow",), ("fast",)]
        assert library.counts()["to-read"] == 0  # the t typed after ctrl+q did not act


async def test_ctrl_q_after_esc_in_an_editor_saves_nothing(tmp_path: Path) -> None:
    """Esc drops the note typed, ctrl+q right behind it does not save it after all."""
    seeds, data = await burst_until_exit(tmp_path, ["a", *"gone", "escape", "ctrl+q"])
    with Library([seeds], data) as library:
        assert library.get(PARM).note == ""
