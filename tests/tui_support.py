"""Helpers for the browser's tests: seed folders in tmp dirs, and waiting on conditions.

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

from textual import events
from textual.pilot import Pilot

from tui.browser.app import PapertrayApp, make_app

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_SEEDS = ROOT / "seeds"
ODD_SEEDS = Path(__file__).resolve().parent / "data" / "seeds-odd"
DEADLINE_S = 30.0


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


async def settle(pilot: Pilot) -> None:
    """Wait until the app has nothing on its way (search shown, panel loaded, marks written)."""
    app = pilot.app
    assert isinstance(app, PapertrayApp)
    await pilot.pause()  # first let keys posted by burst() reach the app: they start the work
    await wait_for(pilot, lambda: app.is_settled, "the app to settle", state=lambda: (
        f"lib={app.lib is not None} syncing={app._syncing} "
        f"search_pending={app._search_pending} awaiting={app._awaiting_input} "
        f"keys_waiting={app.keys_waiting} unsaved={len(app._unsaved)} "
        f"current={app.table.current_id} shown={app._paper_shown}"))
    await pilot.pause()


async def type_text(pilot: Pilot, text: str) -> None:
    """Type ``text`` into the focused widget as a quick typist would (see :func:`burst`)."""
    app = pilot.app
    assert isinstance(app, PapertrayApp)
    burst(app, ["space" if ch == " " else ch for ch in text])
    await pilot.pause()


def burst(app: PapertrayApp, keys: Iterable[str]) -> None:
    """Post key events the way a fast typist sends them: all at once, without waiting for the
    app to handle one before the next arrives (``pilot.press`` waits after every key)."""
    for key in keys:
        character = " " if key == "space" else key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


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
