"""The browser fuzzed: a program of random steps run in one real app, checked after each step.

A *program* is a list of steps, each a plain tuple (so a failing program prints as Python that
can be pasted into a regression test):

* ``("keys", ("j", "t", ...))``: keys sent in one burst, as over SSH (table keys, the screens'
  keys: help, palette, note and tag editors, the search bar; text; quit keys);
* ``("paste", text)``: a bracketed paste of hostile text;
* ``("click", x, y)`` and ``("scroll", x, y, "up" | "down")``: the mouse, anywhere on screen;
* ``("resize", width, height)``: the terminal resized;
* ``("seed", "add" | "edit" | "delete" | "junk", n, text)``: a seed file written, changed,
  removed or filled with junk, for the browser's poll to sync;
* ``("signal", "TERM" | "HUP")``: what the app does on SIGTERM or SIGHUP (``exit_in_turn``).

:func:`run_program` runs one in the browser on a copy of the shipped seeds and, after each step
once the app is at rest (:func:`~tests.tui_support.settle`), checks that no error was shown,
that every row's mark and the header's counts are those in the marks and index files (read by
SQLite read-only), and, once the app has exited, that it exited with status 0 and its marks
file is whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path

from hypothesis import strategies as st
from textual import events

from tests.fuzz_support import hostile_text
from tests.tui_support import SHIPPED_SEEDS, app_on, burst, busy, copy_files, settle, wait_for
from tui.browser.app import PapertrayApp

Step = tuple
#: Seconds between the browser's polls for changed seed files in a fuzzed app (the default is
#: 2 s; a fuzzed program edits seed files often).
POLL_S = 0.3
#: Seconds the rows and counts may take to show what is on disk after a step (a seed file's
#: change is seen at the next poll, then synced and searched again), on a loaded machine.
CONVERGE_S = 30.0

TABLE_KEYS = ("j", "k", "g", "G", "r", "t", "d", "x", "u", "n", "N", "1", "2", "3", "4", "5",
              "space", "backspace", "J", "K", "s", "S", "L", "e", "y", "Y", "c", "up", "down",
              "pageup", "pagedown", "home", "end", "left", "right")
SCREEN_KEYS = ("question_mark", "f1", "ctrl+p", "a", "number_sign", "slash", "escape", "enter",
               "tab", "shift+tab", "ctrl+s", "ctrl+c")
TEXT_KEYS = ("w", "u", "d", "i", "p", "a", "r", "m", "o", "z", "#", "-", "*", ":", '"',
             "backspace", "delete", "ctrl+u", "ctrl+w", "ctrl+k", "ctrl+a", "ctrl+e")
QUIT_KEYS = ("q", "ctrl+q")


def keys() -> st.SearchStrategy[Step]:
    """A burst of keys, quitting keys rarer than the rest."""
    key = st.one_of(st.sampled_from(TABLE_KEYS), st.sampled_from(SCREEN_KEYS),
                    st.sampled_from(TEXT_KEYS))
    burst_ = st.lists(key, min_size=1, max_size=8)
    with_quit = st.tuples(burst_, st.sampled_from(QUIT_KEYS), burst_).map(
        lambda parts: [*parts[0], parts[1], *parts[2]])
    return st.one_of(burst_, burst_, burst_, burst_, burst_, burst_, with_quit).map(
        lambda ks: ("keys", tuple(ks)))


def steps(width: int = 100, height: int = 30) -> st.SearchStrategy[Step]:
    """One step of a program, for a terminal of ``width`` x ``height`` at its start."""
    x, y = st.integers(0, 300), st.integers(0, 100)  # kept on the screen as it is then
    return st.one_of(
        keys(), keys(), keys(),
        st.tuples(st.just("paste"), hostile_text()),
        st.tuples(st.just("click"), x, y),
        st.tuples(st.just("scroll"), x, y, st.sampled_from(["up", "down"])),
        st.tuples(st.just("resize"), st.integers(20, 200), st.integers(6, 60)),
        st.tuples(st.just("seed"), st.sampled_from(["add", "edit", "delete", "junk"]),
                  st.integers(0, 5), hostile_text()),
        st.tuples(st.just("signal"), st.sampled_from(["TERM", "HUP"])),
    )


def programs(max_steps: int = 12) -> st.SearchStrategy[list[Step]]:
    return st.lists(steps(), min_size=1, max_size=max_steps)


# -- the seed files ----------------------------------------------------------------------------
def change_seeds(seeds: Path, op: str, n: int, text: str) -> None:
    """Change the seed folder as a user does: ``add`` a file (shipped abstracts and ``text``),
    ``edit`` the ``n``-th file's ``n``-th abstract (a mark on it re-attaches), ``delete`` the
    ``n``-th file, or write ``junk`` bytes into a new one."""
    files = sorted(seeds.glob("*"))
    if op == "add" or (op in ("edit", "delete") and not files):
        shipped = sorted(SHIPPED_SEEDS.glob("*.txt"))[n % 2].read_text(encoding="utf-8")
        head, *abstracts = shipped.split("\n\n")
        body = "\n\n".join([head, *abstracts[n:n + 3], text.replace("\x00", "")])
        (seeds / f"added_{n}.txt").write_text(body, encoding="utf-8", errors="surrogatepass")
    elif op == "edit":
        path = files[n % len(files)]
        data = path.read_bytes()
        paragraphs = data.split(b"\n\n")
        at = 1 + n % max(1, len(paragraphs) - 1) if len(paragraphs) > 1 else 0
        paragraphs[at] = paragraphs[at].rstrip() + b" (revised)"
        path.write_bytes(b"\n\n".join(paragraphs))
    elif op == "delete":
        files[n % len(files)].unlink()
    else:
        (seeds / f"junk_{n}.txt").write_bytes(text.encode("utf-8", "surrogatepass") + bytes(
            range(256)))


# -- what is on disk -----------------------------------------------------------------------------
def _read_only(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=10)


def on_disk(data: Path) -> tuple[dict[str, str], dict[str, int]]:
    """``(paper id → status, counts)`` as the marks and index files in ``data`` hold them,
    read with read-only connections (the counts as ``db.library.views.counts`` makes them)."""
    with contextlib.closing(_read_only(data / "marks.sqlite")) as marks:
        statuses = dict(marks.execute("SELECT paper_id, status FROM marks"))
    with contextlib.closing(_read_only(data / "index.sqlite")) as index:
        papers = {row[0] for row in index.execute("SELECT id FROM papers")}
    by_status = {"to-read": 0, "read": 0, "dismissed": 0}
    for paper_id, status in statuses.items():
        if paper_id in papers:
            by_status[status] += 1
    counts = {"all": len(papers), "new": len(papers) - sum(by_status.values()), **by_status}
    return statuses, counts


def disagreement(app: PapertrayApp, data: Path) -> str | None:
    """How the rows' marks or the header's counts differ from the files on disk, or None."""
    try:
        statuses, counts = on_disk(data)
    except sqlite3.OperationalError as exc:  # a write in progress (a sync, a mark): next time
        return f"reading the files: {exc}"
    table = app.table
    for paper_id in table.paper_ids:
        hit = table.hit(paper_id)
        shown, held = hit.status if hit else None, statuses.get(paper_id, "new")
        if shown != held:
            return f"row {paper_id} shows {shown}, the marks file holds {held}"
    if app.header.counts != counts:
        return f"the header counts {app.header.counts}, the files {counts}"
    return None


# -- running a program -----------------------------------------------------------------------
async def _act(app: PapertrayApp, pilot, seeds: Path, step: Step) -> None:
    kind = step[0]
    if kind == "keys":
        burst(app, step[1])
    elif kind == "paste":
        app.post_message(events.Paste(step[1]))
    elif kind in ("click", "scroll"):
        width, height = app.size
        x, y = step[1] % width, step[2] % height
        if kind == "click":
            await pilot.click(offset=(x, y))
        else:
            event = events.MouseScrollUp if step[3] == "up" else events.MouseScrollDown
            app.post_message(event(None, x, y, 0, -1 if step[3] == "up" else 1, 0, False,
                                   False, False, screen_x=x, screen_y=y))
    elif kind == "resize":
        await pilot.resize_terminal(step[1], step[2])
    elif kind == "seed":
        change_seeds(seeds, *step[1:])
    elif kind == "signal":
        app.exit_in_turn()


async def _check(app: PapertrayApp, pilot, data: Path, errors: list[str], step: Step) -> None:
    """The invariants after ``step`` (the module docstring)."""
    await pilot.pause()  # let the step's keys and events reach the app
    # at rest as settle() means it, or gone (a quit key or a signal in the step)
    await wait_for(pilot, lambda: not app.is_running or busy(app) is None, "the app to settle",
                   state=lambda: busy(app) or "at rest")
    assert not errors, f"after {step}: an error was shown: {errors}"
    if not app.is_running:
        assert app.return_code == 0, f"after {step}: exit status {app.return_code}"
        return
    seen: list[str | None] = [None]

    def agrees() -> bool:
        seen[0] = disagreement(app, data)
        return seen[0] is None or not app.is_running

    await wait_for(pilot, agrees, f"the screen to show the files after {step}", CONVERGE_S,
                   state=lambda: seen[0] or "")


def _record_errors(app: PapertrayApp) -> list[str]:
    """Make ``app`` remember the text of every error it notifies, in the returned list."""
    errors: list[str] = []
    notify = app.notify

    def recording(message: str, *args, **kwargs) -> None:
        if kwargs.get("severity") == "error":
            errors.append(message)
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return errors


async def run_program(program: list[Step], where: Path) -> None:
    """Run ``program`` in the browser on a copy of the shipped seeds in ``where``, checking the
    invariants after each step (the module docstring); raises AssertionError on the first
    that fails."""
    seeds = copy_files(where / "seeds", sorted(SHIPPED_SEEDS.glob("*.txt")))
    data = where / "data"
    app = app_on(seeds, data, poll_seconds=POLL_S)
    errors = _record_errors(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        for step in program:
            await _act(app, pilot, seeds, step)
            await _check(app, pilot, data, errors, step)
            if not app.is_running:
                break
        if app.is_running:
            app.exit_in_turn()
            await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    assert app.return_code == 0, f"exit status {app.return_code}"
    with contextlib.closing(_read_only(data / "marks.sqlite")) as marks:
        assert marks.execute("PRAGMA integrity_check").fetchone() == ("ok",)


def check_program(program: list[Step]) -> None:
    """:func:`run_program` in a new temporary folder, its working folder (a palette command
    that saves a screenshot writes it there)."""
    here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="papertray-fuzz-") as where:
        os.chdir(where)
        try:
            asyncio.run(run_program(program, Path(where)))
        finally:
            os.chdir(here)
