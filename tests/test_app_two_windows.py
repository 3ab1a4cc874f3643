"""Two papertray windows on one data folder: marks made in one show up in the other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from db import Library
from db.models import SyncReport
from tests.tui_support import app_on, settle, shipped_copy, wait_for
from tui.browser.app import PapertrayApp
from tui.browser.messages import SeedsChanged


async def test_marks_made_elsewhere_appear_and_undo_is_shared(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        first = app.table.current_id
        assert first is not None and app.table.hit(first).status == "new"
        with Library([seeds], data) as other:  # the other window, in another process
            other.set_status([first], "to-read")
        await wait_for(pilot, lambda: app.table.hit(first).status == "to-read",
                       "the other window's mark to show")
        await wait_for(pilot, lambda: app.header.counts.get("to-read") == 1, "the counts")
        assert app.header.counts == {"all": 35, "new": 34, "to-read": 1, "read": 0,
                                     "dismissed": 0}
        await pilot.press("u")  # the history is shared: this undoes the other window's mark
        await settle(pilot)
        assert app.table.hit(first).status == "new"
        with Library([seeds], data) as other:
            assert other.get(first).status == "new"


def _synced_elsewhere(app: PapertrayApp, seeds: Path, data: Path,
                      change: Callable[[], object],
                      then: Callable[[], object] = lambda: None) -> SyncReport:
    """Make the seed ``change`` and sync it as another papertray would, while this window's
    own poll waits (it would sync first otherwise), then call ``then`` (still before this
    window runs again); returns the sync's report."""
    app._syncing = True
    try:
        change()
        with Library([seeds], data) as other:
            report = other.sync()
        then()
        return report
    finally:
        app._syncing = False


async def test_a_sync_made_elsewhere_shows_up(tmp_path: Path) -> None:
    """Another papertray (the command line, another window) synced a seed change first: this
    window shows the new library within a few seconds. It stayed on the old counts and rows
    for good: its poll found the seed files in step with the index and looked no further."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.header.counts["all"] == 35
        gone = next(f for f in sorted(seeds.iterdir()) if f.name.startswith("000"))
        away = tmp_path / gone.name
        assert _synced_elsewhere(app, seeds, data, lambda: gone.rename(away)).removed == 16
        await wait_for(pilot, lambda: app.header.counts.get("all") == 19, "the new counts")
        await wait_for(pilot, lambda: app.table.row_count == 19, "the rows")
        assert _synced_elsewhere(app, seeds, data, lambda: away.rename(gone)).added == 16
        await wait_for(pilot, lambda: app.header.counts.get("all") == 35, "the counts again")
        await wait_for(pilot, lambda: app.table.row_count == 35, "the rows again")


async def test_an_own_sync_that_finds_another_sync_done_shows_its_rows(tmp_path: Path) -> None:
    """This window's poll saw the seed change and started its own sync just after another
    papertray synced it: the sync has nothing left to do, and the window shows the new index
    all the same (it showed the new counts over the old rows)."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        gone = next(f for f in sorted(seeds.iterdir()) if f.name.startswith("000"))
        report = _synced_elsewhere(app, seeds, data, lambda: gone.rename(tmp_path / gone.name),
                                   then=lambda: app.post_message(SeedsChanged()))
        assert report.removed == 16
        await wait_for(pilot, lambda: app.header.counts.get("all") == 19, "the new counts")
        await wait_for(pilot, lambda: app.table.row_count == 19, "the rows")
        await settle(pilot)
        assert app.table.total == 19
