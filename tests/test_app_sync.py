"""The browser's syncs: seed files changed while it runs, broken seeds and data folders."""

from __future__ import annotations

import os
from pathlib import Path

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
