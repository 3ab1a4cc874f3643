"""Helpers for the browser's tests: seed folders in tmp dirs, waiting on conditions, and reading
what the panel and the table's notice show.

Tests never sleep for a fixed time: they pump the app's message loop until a condition holds,
and fail with a clear message at a deadline.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from rich.text import Text
from textual import events
from textual.command import CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import Static

from db import Library
from tui.browser.app import PapertrayApp, make_app
from tui.browser.widgets import SyncProgress

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_SEEDS = ROOT / "seeds"
ODD_SEEDS = Path(__file__).resolve().parent / "data" / "seeds-odd"
DEADLINE_S = 30.0
#: The first paper of the shipped seeds (the cursor's at start), by its full id.
PARM = "0412d482992496cb"


def copy_files(target: Path, files: Iterable[Path]) -> Path:
    """Copy seed ``files`` into the folder ``target`` (writable copies); returns ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    for source in files:
        copy = target / source.name
        copy.write_bytes(source.read_bytes())
    return target


def shipped_copy(tmp_path: Path) -> Path:
    """A writable copy of the shipped seed folder."""
    return copy_files(tmp_path / "seeds", sorted(SHIPPED_SEEDS.glob("*.txt")))


def app_on(seeds: Path, data_dir: Path, **options) -> PapertrayApp:
    """The browser as the CLI builds it, on ``seeds`` with its files in ``data_dir``.

    Unicode marks unless the test says otherwise, so results do not depend on the locale.
    """
    options.setdefault("ascii_only", False)
    return make_app([str(seeds)], str(data_dir), **options)


def shipped_app(tmp_path: Path, **options) -> tuple[PapertrayApp, Path, Path]:
    """``(app, seeds, data_dir)``: :func:`app_on` a :func:`shipped_copy` in ``tmp_path``."""
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    return app_on(seeds, data, **options), seeds, data


def _ids(library: Library, query: str, status: str | None = None, limit: int = 200) -> list[str]:
    """The ids a search for ``query`` finds as the browser asks it (the last word a prefix)."""
    return [h.id for h in library.search(query, status, limit, typing=True).hits]


def _panel_text(app: PapertrayApp) -> str:
    """The text the abstract panel shows."""
    content = app.panel.query_one("#abstract-body", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def _notice_text(app: PapertrayApp) -> str:
    """The notice shown in place of an empty table ("no papers match ..."), or "" when hidden."""
    notice = app.query_one("#no-results", Static)
    content = notice.content
    return (content.plain if isinstance(content, Text) else str(content)) if notice.display else ""


async def wait_for(pilot: Pilot, condition: Callable[[], bool], what: str,
                   deadline_s: float = DEADLINE_S, state: Callable[[], str] | None = None) -> None:
    """Let the app run until ``condition()`` holds; fail naming ``what`` (and ``state()``, if
    given) after the deadline."""
    end = time.monotonic() + deadline_s
    while not condition():
        if time.monotonic() > end:
            detail = f" ({state()})" if state else ""
            raise AssertionError(f"timed out after {deadline_s:.0f} s waiting for {what}{detail}")
        await pilot.pause(0.01)


def busy(app: PapertrayApp) -> str | None:
    """What the browser is still doing that its user would see the end of, in words, or None
    when it is at rest: every key typed has acted, no sync line is shown and no worker runs
    (opening, syncing, searching, reading a paper, writing marks; the poll aside), the table
    shows the answer to the search bar's query under the status filter, the panel shows the
    cursor paper, and every mark made is written."""
    if app.keys_waiting:
        return f"{app.keys_waiting} keys waiting their turn"
    if app.main_screen.query_one(SyncProgress).shown:
        return "the sync line is shown"
    # (the poll for changed seed files runs every few seconds for good: nothing to wait for)
    running = sorted(w.group for w in app.workers if not w.is_finished and w.group != "poll")
    if running:
        return f"workers running: {', '.join(running)}"
    asked = (app.search_bar.value, app.status_filter)
    if app.answered != asked:
        return f"the table answers {app.answered}, not {asked}"
    current = app.table.current_id
    if current is not None and app.paper_shown != current:
        return f"the panel shows {app.paper_shown}, not the cursor paper {current}"
    if app.marks_pending:
        return f"{app.marks_pending} marking steps not written"
    return None


async def settle(pilot: Pilot) -> None:
    """Wait until the browser is at rest as its user would see it (:func:`busy`)."""
    app = pilot.app
    assert isinstance(app, PapertrayApp)
    await pilot.pause()  # first let keys posted by burst() reach the app: they start the work
    await wait_for(pilot, lambda: busy(app) is None, "the app to settle",
                   state=lambda: busy(app) or "at rest")
    await pilot.pause()


async def type_text(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the focused widget as a quick typist would (see :func:`burst`)."""
    app = pilot.app
    assert isinstance(app, PapertrayApp)
    burst(app, ["space" if ch == " " else ch for ch in text])
    await pilot.pause()


async def burst_until_exit(tmp_path: Path, keys: Iterable[str]) -> tuple[Path, Path]:
    """Run the browser on a copy of the shipped seeds, send ``keys`` in one burst and wait
    until the app has exited; returns ``(seeds, data_dir)`` to read what is on disk."""
    app, seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        burst(app, keys)
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    return seeds, data


def burst(app: PapertrayApp, keys: Iterable[str]) -> None:
    """Post key events the way a fast typist sends them: all at once, without waiting for the
    app to handle one before the next arrives (``pilot.press`` waits after every key)."""
    for key in keys:
        character = " " if key == "space" else key if len(key) == 1 else None
        app.post_message(events.Key(key, character))



async def palette_commands(pilot: Pilot, text: str) -> CommandList:
    """Open the command palette, type ``text`` into it and wait for the commands it finds;
    returns the palette's list of them."""
    app = pilot.app
    await pilot.press("ctrl+p")
    await type_text(pilot, text)
    await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette)
                   and app.screen.query_one(CommandList).option_count > 0, "palette hits")
    return app.screen.query_one(CommandList)


def record_notifications(app: PapertrayApp) -> list[str]:
    """Make ``app`` remember every notification's message in the returned list."""
    seen: list[str] = []
    notify = app.notify

    def recording(message: str, **kwargs) -> None:
        seen.append(message)
        notify(message, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return seen


def papertray_command() -> list[str]:
    """The command that runs papertray in a new process: the console script next to this
    Python, else the CLI's entry point through it."""
    script = Path(sys.executable).with_name("papertray")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from tui.cli.main import main; main()"]


def papertray_json(where: list[str], *command: str) -> dict:
    """What ``papertray WHERE COMMAND... --json`` prints, parsed: the state on disk as the
    command line reads it, in a new process (``where`` is ``--seeds``/``--data-dir``)."""
    out = subprocess.run([*papertray_command(), *where, *command, "--json"],
                         capture_output=True, text=True, timeout=30, check=True)
    return json.loads(out.stdout)
