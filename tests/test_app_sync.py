"""The browser's syncs: seed files changed while it runs, broken seeds and data folders."""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from rich.text import Text
from textual.widgets import ProgressBar, Static

from db import Library
from tests.tui_support import (
    ODD_SEEDS,
    _panel_text,
    app_on,
    copy_files,
    record_notifications,
    settle,
    shipped_copy,
    wait_for,
)
from tui.browser.widgets import SyncProgress


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


async def test_the_build_line_shows_papers_of_the_total_rate_and_time_left(
        tmp_path: Path, monkeypatch) -> None:
    """The "building the index" line moves with the papers parsed: after the first of the two
    shipped seed files, 19 of ~38 papers with a rate and the time left, its bar half full;
    then 38 of 38 and "writing the index"; gone once the build is done."""
    counted, go_on, real_sync = threading.Event(), threading.Event(), Library.sync

    def sync(self, force=False, progress=None, verify=False):
        def held(done: int, total: int) -> None:
            progress(done, total)
            counted.set()
            go_on.wait(60)  # (the test looks at the line)
            go_on.clear()

        return real_sync(self, force, held if progress else None, verify)

    monkeypatch.setattr(Library, "sync", sync)
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        line = app.main_screen.query_one(SyncProgress)

        def shown() -> str:
            texts = [line.query_one(f"#{name}", Static).content for name in ("sync-label",
                                                                            "sync-count")]
            return " ".join(t.plain if isinstance(t, Text) else str(t) for t in texts)

        await wait_for(pilot, lambda: counted.is_set() and "papers" in shown(), "a count")
        assert re.fullmatch(r"building the index 19 of 38 papers · [\d,]+/s · \d+ s left",
                            shown()), shown()
        bar = line.query_one(ProgressBar)
        assert (bar.progress, bar.total) == (19, 38)
        counted.clear()
        go_on.set()
        await wait_for(pilot, lambda: "38 of 38" in shown(), "the last count", state=shown)
        assert re.fullmatch(r"writing the index 38 of 38 papers · [\d,]+/s", shown()), shown()
        go_on.set()
        await settle(pilot)
        assert not line.shown
        assert app.header.counts["all"] == 35


async def test_a_broken_seed_file_is_reported_at_start(tmp_path: Path) -> None:
    seeds = copy_files(tmp_path / "seeds", [ODD_SEEDS / "brackets.txt", ODD_SEEDS / "empty.txt"])
    app = app_on(seeds, tmp_path / "data")
    notes = record_notifications(app)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert app.table.row_count == 2
        assert notes == ["seed file empty.txt not loaded: empty file"]


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
