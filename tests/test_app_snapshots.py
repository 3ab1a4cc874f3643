"""Snapshots of the browser (pytest-textual-snapshot); baselines in ``__snapshots__/``.

Deterministic by construction: seeds and data dir in tmp, Unicode marks fixed, no clock, no
cursor blink, no animation, and every screenshot waits until the app has settled.
Regenerate with ``pytest tests/test_app_snapshots.py --snapshot-update`` and look at the .svg files.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot

from tests.tui_support import ODD_SEEDS, app_on, copy_files, settle, shipped_copy, type_text


def _after(*steps: str) -> Callable[[Pilot], Awaitable[None]]:
    """A run_before that settles, then presses each step (text after "type:" is typed)."""

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        for step in steps:
            if step.startswith("type:"):
                await type_text(pilot, step[5:])
            else:
                await pilot.press(step)
            await settle(pilot)

    return run_before


def test_main_screen_80x24(snap_compare, tmp_path: Path) -> None:
    """Stacked layout at 80x24: one paper to-read, one read, the cursor on the third."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("t", "r"))


def test_main_screen_160x45(snap_compare, tmp_path: Path) -> None:
    """Side by side at 160x45, with a query and its words highlighted in the abstract."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(160, 45),
                        run_before=_after("slash", "type:preference align", "enter"))


def test_help(snap_compare, tmp_path: Path) -> None:
    """The help screen, generated from the bindings, at 80x24."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("question_mark"))


def test_empty_result(snap_compare, tmp_path: Path) -> None:
    """A query that matches nothing says "no papers match" and leaves the panel empty."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24),
                        run_before=_after("slash", "type:zzzzqqq", "escape"))


def _odd_app(tmp_path: Path):
    seeds = copy_files(tmp_path / "seeds", [ODD_SEEDS / "brackets.txt", ODD_SEEDS / "latex.txt"])
    return app_on(seeds, tmp_path / "data")


def test_abstract_with_brackets(snap_compare, tmp_path: Path) -> None:
    """``[1]``, ``[CLS]`` and ``[0, 1)`` in an abstract show as written (not markup)."""
    assert snap_compare(_odd_app(tmp_path), terminal_size=(80, 24), run_before=_after())


def test_abstract_with_latex(snap_compare, tmp_path: Path) -> None:
    """LaTeX (``$\\mathcal{G}$``, ``\\textit{in vivo}``, ``15%``) rendered as Unicode text."""
    assert snap_compare(_odd_app(tmp_path), terminal_size=(80, 24),
                        run_before=_after("j", "j"))


def test_similar_papers(snap_compare, tmp_path: Path) -> None:
    """``s`` on PARM: the query like:0412d482, its notice, and BATI (the nearest) under the
    cursor."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("s"))


def test_note_and_tags(snap_compare, tmp_path: Path) -> None:
    """Tags ``#moe #rl`` in their column and the panel, the note under them."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after(
        "number_sign", "type:moe rl", "enter", "a", "type:compare with GenARM", "enter"))


def test_note_editor(snap_compare, tmp_path: Path) -> None:
    """The note editor over the browser, with the text typed so far and its keys."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("a", "type:draft"))


def test_ascii_without_colour(snap_compare, tmp_path: Path, monkeypatch) -> None:
    """``--ascii`` (NO_COLOR): ASCII marks ``.`` ``>`` ``x``, the reverse-video cursor row and
    cut rows ended with ``...`` (screenshots are taken before the filter that takes the colour
    out; test_app_no_color checks the bytes written)."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = app_on(shipped_copy(tmp_path), tmp_path / "data", ascii_only=True)
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after("t", "r"))


def test_reading_view_80x24(snap_compare, tmp_path: Path) -> None:
    """Enter on a row, then ``j`` and ``t`` in the reading view: WUDI-Merging full screen,
    marked to-read, with its place in the list, its tags and note, and the view's keys."""
    app = app_on(shipped_copy(tmp_path), tmp_path / "data")
    assert snap_compare(app, terminal_size=(80, 24), run_before=_after(
        "j", "number_sign", "type:merging", "enter", "a", "type:data-free [baseline]", "enter",
        "k", "enter", "j", "t"))
