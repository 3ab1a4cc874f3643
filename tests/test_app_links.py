"""The browser and a paper's fields: ``o`` opens the paper's link (copies it over SSH), ``C``
its code link, ``y`` copies the link ``o`` opens; the table's columns follow the papers shown
(a byline with authors, the name only for papers without a title); ``E`` exports to a file
the reader names."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from rich.text import Text

from tests.db_support import DATA
from tests.tui_support import (
    app_on,
    copy_files,
    record_notifications,
    settle,
    shipped_app,
    type_text,
    wait_for,
)

PAPERLIST = DATA / "fields" / "paperlists_sample.json"
MENTOR_PAGE = "https://icml.cc/virtual/2025/poster/43793"
MENTOR_CODE = "https://github.com/suninghuang19/mentor"


def _fielded_app(tmp_path: Path):
    """The browser on the shipped seeds plus the paper list of three of them."""
    seeds = copy_files(tmp_path / "seeds", [*sorted((DATA.parent.parent / "seeds").glob(
        "*.txt")), PAPERLIST])
    return app_on(seeds, tmp_path / "data"), seeds


async def _to_mentor(pilot, app) -> None:
    await pilot.press("slash")
    await type_text(pilot, "decision:oral")
    await pilot.press("enter")
    await settle(pilot)
    assert app.table.current_id == "eb8c16cf3afbe389"


async def test_o_over_ssh_copies_the_papers_own_page_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("SSH_CONNECTION", "10.0.0.1 50000 10.0.0.2 22")
    monkeypatch.setenv("DISPLAY", ":0")  # forwarded X: still the remote box's browser
    app, _seeds = _fielded_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _to_mentor(pilot, app)
        await pilot.press("o")
        await wait_for(pilot, lambda: app.clipboard == MENTOR_PAGE, "the page copied")
        assert notes[-1] == (f"no browser here: sent {MENTOR_PAGE} to the terminal's "
                             "clipboard (OSC 52)")
        await pilot.press("C")
        await wait_for(pilot, lambda: app.clipboard == MENTOR_CODE, "the code link copied")
        app.copy_to_clipboard("")
        await pilot.press("y")  # the same link as o
        await wait_for(pilot, lambda: app.clipboard == MENTOR_PAGE, "y copies the page")


async def test_o_on_a_desktop_hands_the_link_to_the_desktops_opener(tmp_path, monkeypatch):
    """With a display and no SSH the link goes to ``xdg-open`` (here a script on PATH that
    writes down what it was given), and nothing is copied."""
    bin_dir, opened = tmp_path / "bin", tmp_path / "opened.txt"
    bin_dir.mkdir()
    opener = bin_dir / "xdg-open"
    opener.write_text(f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{opened}"\necho noise\n')
    opener.chmod(opener.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":0")
    for name in ("SSH_CONNECTION", "SSH_TTY"):
        monkeypatch.delenv(name, raising=False)
    app, _seeds, _data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("o")  # PARM: a text seed's paper, its code is its link
        await wait_for(pilot, lambda: opened.exists() and opened.read_text() != "",
                       "the opener to run")
        assert opened.read_text() == "https://github.com/Baijiong-Lin/PARM\n"
        assert notes[-1] == "opened https://github.com/Baijiong-Lin/PARM"
        assert app.clipboard == ""


async def test_the_table_shows_bylines_and_names_only_for_papers_without_a_title(tmp_path):
    app, _seeds = _fielded_app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        keys = [column.key.value for column in app.table.columns.values()]
        assert keys == ["mark", "name", "headline", "byline"]  # 32 papers have no title
        await _to_mentor(pilot, app)
        keys = [column.key.value for column in app.table.columns.values()]
        assert keys == ["mark", "headline", "byline"]
        row = [cell.plain if isinstance(cell, Text) else str(cell)
               for cell in app.table.get_row_at(0)]
        assert row[1].startswith("MENTOR: Mixture-of-Experts Network with Task-Oriented "
                                 "Perturbation")
        assert row[2] == "Huang et al. 2025"
        await pilot.press("slash", "ctrl+u")
        await type_text(pilot, "-decision:oral -decision:spotlight -decision:poster")
        await pilot.press("enter")
        await settle(pilot)  # the shipped seeds' papers alone: no byline column
        keys = [column.key.value for column in app.table.columns.values()]
        assert keys == ["mark", "name", "headline"]


async def test_E_exports_to_the_file_named_and_never_over_another(tmp_path):
    app, _seeds, _data = shipped_app(tmp_path)
    notes = record_notifications(app)
    target = tmp_path / "out" / "reading.csv"
    target.parent.mkdir()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await wait_for(pilot, lambda: hasattr(app.screen, "input"), "the prompt")
        assert app.screen.input.value.endswith(".md")  # the data folder's exports/ offered
        app.screen.input.value = ""
        await type_text(pilot, str(target))
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.startswith("exported") for n in notes), "export")
        assert notes[-1] == f"exported 35 papers to {target}"
        assert target.read_text(encoding="utf-8").startswith("id,title,name,headline,")
        await pilot.press("E")
        await wait_for(pilot, lambda: hasattr(app.screen, "input"), "the prompt")
        app.screen.input.value = ""
        await type_text(pilot, str(target))
        await pilot.press("enter")
        await wait_for(pilot, lambda: notes[-1].endswith("exists: name another file"),
                       "the refusal")
    shutil.rmtree(target.parent)


async def test_E_into_a_folder_that_does_not_exist_says_which_file_it_cannot_write(tmp_path):
    app, _seeds, _data = shipped_app(tmp_path)
    notes = record_notifications(app)
    target = tmp_path / "no such folder" / "reading.csv"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("E")
        await wait_for(pilot, lambda: hasattr(app.screen, "input"), "the prompt")
        app.screen.input.value = ""
        await type_text(pilot, str(target))
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.startswith("export failed") for n in notes),
                       "the failure")
        assert notes[-1] == f"export failed: cannot write {target}: No such file or directory"
    assert not target.parent.exists()


async def test_two_exports_to_one_new_name_never_replace_the_first(tmp_path):
    """``E`` looks whether the file exists when asked; a second export to the same name asked
    before the first is written (or a file made meanwhile) is refused as it is written."""
    app, _seeds, _data = shipped_app(tmp_path)
    notes = record_notifications(app)
    target = tmp_path / "reading.md"
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.ask_export("", "all", (), str(target))
        app.ask_export("graph", "all", (), str(target))
        await wait_for(pilot, lambda: sum(n.startswith(("exported", "export failed"))
                                          for n in notes) == 2, "both exports")
        # (the two are written by two workers at once: either may be first)
        [done] = [n for n in notes if n.startswith("exported")]
        assert f"export failed: cannot write {target}: File exists" in notes
    count = done.split()[1]
    assert target.read_text(encoding="utf-8").startswith(f"# papertray: {count} papers")
