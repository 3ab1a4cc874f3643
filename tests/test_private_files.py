"""Everything papertray writes is its owner's only: after a whole session (the browser: sync,
mark, layout, export; the command line: sync, note, backup, exports) under the usual umask 022,
no file or folder it made can be read by the group or by others."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.tui_support import (
    papertray_command,
    record_notifications,
    settle,
    shipped_copy,
    wait_for,
)
from tui.browser.app import make_app

PARM = "0412d482"  # a paper of the shipped seeds


def _readable_by_others(top: Path) -> list[str]:
    """Every file and folder below ``top`` whose mode lets the group or others in, with it."""
    found = []
    for folder, folders, files in os.walk(top):
        for name in folders + files:
            path = Path(folder, name)
            mode = stat.S_IMODE(path.lstat().st_mode)
            if mode & 0o077 and not path.is_symlink():
                found.append(f"{path.relative_to(top)} {mode:04o}")
    return sorted(found)


def _names(top: Path) -> set[str]:
    return {str(Path(folder, name).relative_to(top)) for folder, folders, files in os.walk(top)
            for name in folders + files}


def _papertray(seeds: Path, *args: str) -> None:
    subprocess.run([*papertray_command(), "--seeds", str(seeds), *args], check=True,
                   capture_output=True, stdin=subprocess.DEVNULL, timeout=120)


async def test_a_whole_session_under_umask_022_leaves_nothing_readable_by_others(
        tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])  # the platform folders are below it (see conftest)
    seeds = shipped_copy(tmp_path)
    os.umask(0o022)
    app = make_app([str(seeds)], None, ascii_only=False)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("t", "L", "e")  # a mark, a remembered layout, an export
        await wait_for(pilot, lambda: any(n.startswith("exported") for n in notes), "export")
        await settle(pilot)
        during = _names(home)
        assert "data/papertray/marks.sqlite-wal" in during  # open: the companions are there
        assert _readable_by_others(home) == []
        await pilot.press("q")
    os.umask(0o022)  # the command line in new processes, each started under umask 022
    _papertray(seeds, "sync", "--force")
    _papertray(seeds, "note", PARM, "read", "the", "appendix")
    _papertray(seeds, "marks", "backup")
    _papertray(seeds, "export", "--output", str(home / "reading-list.md"))
    _papertray(seeds, "marks", "export", str(home / "marks.json"))
    made = _names(home)
    for name in ("cache", "data", "cache/papertray/index.sqlite", "data/papertray/marks.sqlite",
                 "data/papertray/settings.json", "data/papertray/backups",
                 "data/papertray/exports", "reading-list.md", "marks.json"):
        assert name in made, sorted(made)
    assert any(n.startswith("cache/papertray/dictionary-") for n in made), sorted(made)
    assert any(n.startswith("data/papertray/exports/papertray-") for n in made), sorted(made)
    assert any(n.startswith("data/papertray/backups/") for n in made), sorted(made)
    assert _readable_by_others(home) == []


def test_a_word_list_an_older_papertray_left_readable_is_made_private(tmp_path: Path) -> None:
    data = tmp_path / "data"
    seeds = shipped_copy(tmp_path)
    _papertray(seeds, "--data-dir", str(data), "sync")
    (word_list,) = data.glob("dictionary-*.words")
    word_list.chmod(0o644)
    os.umask(0o022)
    _papertray(seeds, "--data-dir", str(data), "sync", "--force")  # parses: reads the list
    assert stat.S_IMODE(word_list.stat().st_mode) == 0o600
