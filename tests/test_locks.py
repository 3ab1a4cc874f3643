"""A papertray process keeps SQLite's locks on both database files for as long as it uses them.

SQLite's locks are POSIX advisory locks: they belong to the process, and closing *any*
descriptor of a database file releases them all. A process that lost its locks looks closed to
the others, and the next one to close deletes the ``-wal`` and ``-shm`` it still writes to: its
marks go into a deleted file. These tests read ``/proc/locks`` after every step of the library,
the command line and the browser, and check that another process closing leaves the ``-wal``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from db import Library, LibraryError
from tests.db_support import CliRun, console_script
from tests.tmux_support import TMUX, Terminal
from tests.tui_support import app_on, settle, shipped_copy, type_text, wait_for

pytestmark = pytest.mark.skipif(not Path("/proc/locks").exists(),
                                reason="reads the kernel's table of file locks (Linux)")

PARM = "0412d482"  # short id of the PARM paper in the shipped seeds


def locked(path: Path, pid: int | None = None) -> bool:
    """Whether process ``pid`` (default: this one) holds a lock on the file ``path`` itself."""
    pid = os.getpid() if pid is None else pid
    st = path.stat()
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if fields[1] == "->":  # a request waiting for a lock, not a lock held
            continue
        if fields[4] == str(pid) and fields[5] == device:
            return True
    return False


def assert_holds_both(data: Path, step: str, pid: int | None = None) -> None:
    missing = [name for name in ("index.sqlite", "marks.sqlite")
               if not locked(data / name, pid)]
    assert missing == [], f"after {step}: no lock held on {', '.join(missing)}"


def other_process_closes(seeds: Path, data: Path) -> None:
    """Another papertray opens the library, reads and closes: it must not take itself for the
    last one (it would delete the ``-wal`` files that this process still uses)."""
    done = subprocess.run([*console_script(), "--seeds", str(seeds), "--data-dir", str(data),
                           "stats", "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    for name in ("index.sqlite-wal", "marks.sqlite-wal"):
        assert (data / name).exists(), f"{name} was deleted by another process's close"


def test_the_library_keeps_its_locks_through_every_step(seeds_copy, data_dir, tmp_path):
    library = Library([seeds_copy], data_dir)
    try:
        library.sync()
        pid = library.resolve(PARM)
        second = tmp_path / "elsewhere"
        steps = {
            "sync": lambda: library.sync(),
            "a forced sync": lambda: library.sync(force=True),
            "a search": lambda: library.search("graph neural networks"),
            "a mark": lambda: library.set_status([pid], "to-read"),
            "an undo": lambda: library.undo(),
            "a note": lambda: library.set_note(pid, "check the proofs"),
            "tags": lambda: library.tag([pid], ["moe"]),
            "similar papers": lambda: library.similar(pid),
            "snippets": lambda: library.snippets([pid], ["alignment"]),
            "stats": lambda: library.stats(),
            "the seed poll": lambda: library.needs_sync(),
            "a backup": lambda: library.backup_marks(force=True),
            "an export": lambda: library.export_file(tmp_path / "out.md"),
            "an export into the data folder": lambda: library.export_to_data_dir(),
            "a marks import": lambda: library.import_marks(
                (tmp_path / "marks.json").read_bytes()),
            "a second library on the same files, closed": lambda: Library(
                [seeds_copy], data_dir).close(),
            "a library on other files, closed": lambda: Library([seeds_copy], second).close(),
        }
        library.set_status([pid], "read")
        (tmp_path / "marks.json").write_text(json.dumps(library.export_marks()))
        for step, run in steps.items():
            run()
            assert_holds_both(data_dir, step)
            other_process_closes(seeds_copy, data_dir)
            assert_holds_both(data_dir, f"{step} and another process's close")
    finally:
        library.close()


def test_every_command_keeps_its_locks_until_it_ends(run_cli, seeds_copy, data_dir, tmp_path,
                                                     monkeypatch):
    """Each command closes its library when it ends; at that moment it must still hold both
    locks (a lock dropped midway is never taken back: SQLite believes it still has it)."""
    seen: list[tuple[str, list[str]]] = []
    close = Library.close

    def checking_close(self: Library) -> None:
        held = [name for name in ("index.sqlite", "marks.sqlite")
                if (self.paths.index.parent / name).exists()
                and locked(self.paths.index.parent / name)]
        seen.append((current, held))
        close(self)

    monkeypatch.setattr(Library, "close", checking_close)
    marks_file = tmp_path / "marks.json"
    commands = [
        ("stats",), ("sync",), ("sync", "--force"), ("search", "graph", "--snippet"),
        ("list", "--status", "new"), ("show", PARM), ("mark", PARM, "--to-read"), ("undo",),
        ("note", PARM, "a", "note"), ("tag", PARM, "moe"), ("similar", PARM),
        ("similar", "--to-read"), ("orphans",), ("export", "graph", "-o",
                                                 str(tmp_path / "x.bib")),
        ("export", "--format", "csv"), ("marks", "backup"),
        ("marks", "export", str(marks_file)), ("marks", "import", str(marks_file)),
    ]
    for command in commands:
        current = " ".join(command)
        result: CliRun = run_cli(*command)
        assert result.exit_code == 0, (current, result.stderr)
    closed = {command: held for command, held in seen}
    assert set(closed) == {" ".join(c) for c in commands}, "a command did not close its library"
    short = {command: held for command, held in closed.items()
             if held != ["index.sqlite", "marks.sqlite"]}
    assert short == {}


def test_a_database_file_named_as_input_or_output_is_refused(run_cli, seeds_copy, data_dir,
                                                            tmp_path):
    """Reading or writing one of the library's own files by name would drop the locks (and an
    export over marks.sqlite would replace the marks): each is refused in one line."""
    assert run_cli("mark", PARM, "--read").exit_code == 0
    marks = data_dir / "marks.sqlite"
    link = tmp_path / "innocent.txt"
    link.symlink_to(marks)
    for args in (("export", "-o", str(marks)), ("export", "-o", str(link)),
                 ("marks", "export", str(data_dir / "marks.sqlite-wal")),
                 ("marks", "import", str(marks))):
        with pytest.raises(LibraryError, match=r"is papertray's own marks\.sqlite, not a"):
            run_cli(*args)
    seeds = run_cli("stats", "--json", seeds=data_dir / "index.sqlite").json()
    assert {"file": str(data_dir / "index.sqlite"),
            "reason": "papertray's own database file, not a seed file"} in seeds["problems"]
    listed = run_cli("list", "--status", "read", "--json").json()
    assert [h["short_id"] for h in listed["hits"]] == [PARM]


async def test_the_browser_keeps_its_locks_through_triage(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    app = app_on(seeds, data, poll_seconds=0.1)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert_holds_both(data, "opening (the first build)")
        other_process_closes(seeds, data)
        for keys in (["t"], ["t", "r"], ["u"], ["slash"], ["escape"], ["e"], ["s"], ["1"]):
            for key in keys:
                await pilot.press(key)
            await settle(pilot)
            if keys == ["slash"]:
                await type_text(pilot, "graph")
                await settle(pilot)
            assert_holds_both(data, f"the keys {keys}")
            other_process_closes(seeds, data)
            assert_holds_both(data, f"the keys {keys} and another process's close")
        before = app.header.counts["read"]
        done = subprocess.run([*console_script(), "--seeds", str(seeds), "--data-dir", str(data),
                               "mark", PARM, "--read"], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0, done.stderr
        await wait_for(pilot, lambda: app.header.counts["read"] == before + 1,
                       "the mark made on the command line to show")
        assert_holds_both(data, "a mark made on the command line")


def test_a_browser_process_in_a_terminal_keeps_its_locks(tmp_path: Path) -> None:
    """The real command: its process holds both locks after starting, marking and another
    process's commands (the browser lost them at its first build, and at its first backup)."""
    if TMUX is None:
        pytest.skip("tmux is not installed")
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    terminal = Terminal(["env", "LANG=C.UTF-8", *console_script(), *where, "--ascii"])
    try:
        terminal.wait_for("1/35")
        pid = int(terminal.tmux("display-message", "-p", "-t", "main", "#{pane_pid}"))
        browser = _python_child(pid)
        assert_holds_both(data, "the first build", browser)
        other_process_closes(seeds, data)
        terminal.keys("t")
        terminal.keys("t")
        terminal.keys("r")
        terminal.wait_for("x read 1")
        other_process_closes(seeds, data)
        assert_holds_both(data, "three marks", browser)
        stats = subprocess.run([*console_script(), *where, "stats", "--json"],
                               capture_output=True, text=True, timeout=60, check=True)
        assert json.loads(stats.stdout)["status"] == {"new": 32, "to-read": 2, "read": 1,
                                                      "dismissed": 0}
        os.kill(browser, 9)
        terminal.wait_for("[papertray exited")
        stats = subprocess.run([*console_script(), *where, "stats", "--json"],
                               capture_output=True, text=True, timeout=60, check=True)
        assert json.loads(stats.stdout)["status"] == {"new": 32, "to-read": 2, "read": 1,
                                                      "dismissed": 0}
    finally:
        terminal.close()


def _python_child(pid: int) -> int:
    """The papertray process under the pane's shell (the shell itself, or its child)."""
    for candidate in [pid, *_children(pid)]:
        cmdline = Path(f"/proc/{candidate}/cmdline").read_bytes()
        if b"python" in cmdline or b"papertray" in cmdline.split(b"\0")[0]:
            return candidate
    raise AssertionError(f"no papertray process under {pid}")


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found += [int(c) for c in children]
    return found + [g for c in found for g in _children(c)]

