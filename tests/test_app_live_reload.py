"""The cursor on a live reload: when a sync changes the rows above the cursor and edits the
paper under it in one go, the cursor stays on that paper (its edited version, under its new id),
for the full list and for a query; when the paper is gone, it goes to the nearest paper left.

The seed files are written while the browser's poll is held, so that one sync sees the whole
change, as when an editor saves a file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from db import Library
from tests.db_support import FILE_A, FILE_B
from tests.tui_support import (
    _panel_text,
    app_on,
    papertray_json,
    record_notifications,
    settle,
    shipped_copy,
    type_text,
    wait_for,
)

#: Papers written above the cursor paper: more than the page of 10 rows the tests use, so the
#: cursor paper's row leaves the window the table showed.
INSERTED = [f"We propose Stripe{n}Net, language models of stripes number {n}." for n in range(12)]
MARKER = "freshly-edited"
PAGE = 10


def _paragraphs(path: Path) -> tuple[str, list[str]]:
    header, _, body = path.read_text(encoding="utf-8").partition("\n\n")
    return header, [p for p in body.split("\n\n") if p.strip()]


def _write(path: Path, header: str, paragraphs: list[str]) -> None:
    path.write_text(header + "\n\n" + "\n\n".join(paragraphs) + "\n", encoding="utf-8")


def _edited(paragraph: str) -> str:
    first, rest = paragraph.split(" ", 1)
    return f"{first} {MARKER} {rest}"


def _change(seeds: Path, target: str, kind: str) -> None:
    """Insert :data:`INSERTED` at the top of FILE_A and edit (or move, or remove) ``target``."""
    header, paragraphs = _paragraphs(seeds / FILE_A)
    paragraphs.remove(target)
    if kind == "small edit":
        at = len(paragraphs) // 2
        paragraphs.insert(at, _edited(target))
    elif kind == "moved in the file":
        paragraphs.append(_edited(target))
    elif kind == "moved to another file":
        other_header, others = _paragraphs(seeds / FILE_B)
        _write(seeds / FILE_B, other_header, [_edited(target), *others])
    _write(seeds / FILE_A, header, INSERTED + paragraphs)


def _target(seeds: Path, data: Path, query: str) -> tuple[str, str, int]:
    """``(paragraph, id, row)`` of a paper of FILE_A alone that ``query`` finds at row 8 or
    below: the cursor paper."""
    _, paragraphs = _paragraphs(seeds / FILE_A)
    _, others = _paragraphs(seeds / FILE_B)
    with Library([seeds], data) as lib:
        lib.sync()
        hits = lib.search(query, limit=100, typing=True).hits
        for row, hit in enumerate(hits):
            text = lib.get(hit.id).abstract_source
            mine = [p for p in paragraphs if " ".join(p.split()) == text]
            if row >= 8 and mine and mine[0] not in others and row < PAGE:
                return mine[0], hit.id, row
    raise AssertionError("no paper to put the cursor on")


async def _reload(pilot, app, seeds: Path, target: str, kind: str, papers: int) -> None:
    """Write the change with the poll held, then let one sync see it and the app settle."""
    lib = app.lib
    lib.needs_sync = lambda: False  # the poll holds while the files are written
    await wait_for(pilot, lambda: all(w.is_finished for w in app.workers if w.group == "poll"),
                   "a poll that began before the hold to end")
    _change(seeds, target, kind)
    del lib.needs_sync
    await wait_for(pilot, lambda: app.header.counts.get("all") == papers, "the live reload")
    await settle(pilot)


@pytest.mark.parametrize("kind", ["small edit", "moved in the file", "moved to another file"])
@pytest.mark.parametrize("query", ["", "language models"])
async def test_the_cursor_stays_on_its_paper_edited_while_rows_come_above_it(
        tmp_path: Path, query: str, kind: str) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    target, old_id, row = _target(seeds, data, query)
    app = app_on(seeds, data, poll_seconds=0.05, page_size=PAGE)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if query:
            await pilot.press("slash")
            await type_text(pilot, query)
            await pilot.press("escape")
            await settle(pilot)
        for _ in range(row):
            await pilot.press("j")
        await settle(pilot)
        assert app.table.current_id == old_id

        await _reload(pilot, app, seeds, target, kind, 35 + len(INSERTED))
        new_id = app.table.current_id
        assert new_id != old_id
        assert app.lib.get(new_id).abstract_source == " ".join(_edited(target).split())
        assert MARKER in _panel_text(app)
        assert app.table.total > PAGE and app.table.window_offset > 0  # another window
        assert notes == []


async def test_a_cursor_paper_gone_leaves_the_cursor_on_the_paper_below_it(
        tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    target, old_id, row = _target(seeds, data, "")
    app = app_on(seeds, data, poll_seconds=0.05, page_size=PAGE)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for _ in range(row):
            await pilot.press("j")
        await settle(pilot)
        assert app.table.current_id == old_id
        ids = app.table.paper_ids
        below = ids[ids.index(old_id) + 1]
        await _reload(pilot, app, seeds, target, "removed", 35 + len(INSERTED) - 1)
        assert app.table.current_id == below
        assert notes == []


@pytest.mark.parametrize("query", ["", "language models"])
async def test_the_cursor_follows_its_paper_edited_by_a_sync_in_another_papertray(
        tmp_path: Path, query: str) -> None:
    """The command line syncs the change (a cron sync, a second terminal) while the browser's
    poll holds: the browser finds the index changed, not by its own sync, and still puts the
    cursor on the edited version of its paper."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    target, old_id, row = _target(seeds, data, query)
    app = app_on(seeds, data, poll_seconds=0.05, page_size=PAGE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        if query:
            await pilot.press("slash")
            await type_text(pilot, query)
            await pilot.press("escape")
            await settle(pilot)
        for _ in range(row):
            await pilot.press("j")
        await settle(pilot)
        assert app.table.current_id == old_id

        lib = app.lib
        lib.needs_sync = lambda: False  # this browser does not sync the change itself
        await wait_for(pilot, lambda: all(w.is_finished for w in app.workers
                                          if w.group == "poll"), "a poll that began to end")
        _change(seeds, target, "small edit")
        synced = papertray_json(["--seeds", str(seeds), "--data-dir", str(data)], "sync")
        assert synced["added"] == len(INSERTED) + 1
        await wait_for(pilot, lambda: app.header.counts.get("all") == 35 + len(INSERTED),
                       "the other papertray's sync to show")
        await settle(pilot)
        del lib.needs_sync
        new_id = app.table.current_id
        assert new_id != old_id
        assert app.lib.get(new_id).abstract_source == " ".join(_edited(target).split())
        assert MARKER in _panel_text(app)
