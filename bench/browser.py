"""Browser figures: papertray's app next to a bare Textual app, both in a real terminal (a pty).

    python bench/browser.py SEEDS DATA_DIR PLAIN_DB [--repeat 3]

``DATA_DIR`` holds an index already synced from ``SEEDS`` (the benchmark measures an unchanged
library); ``PLAIN_DB`` is ``bench/baseline.py``'s plain FTS5 index of the same abstracts. The bare
app is an ``Input``, a ``DataTable`` and a ``Static``; on each keystroke it runs a plain bm25
query (LIMIT 200) on ``PLAIN_DB`` and fills the table with the hits, the way papertray does.

How each figure is taken (every run is a new process in a new 120x40 pty whose output is read
and thrown away, as a terminal would):

* **first frame + exit**: wall time from spawning the process to its exit, when it exits on
  Textual's ``Ready`` event, which Textual posts once the first frame has been written to the
  terminal (``Screen._on_update`` after the first compositor refresh).
* **first page of hits + exit**: the same, but papertray exits once the table shows the first
  page of hits and the abstract panel its paper (``PapertrayApp.is_settled``, the condition the
  tests wait on); the bare app once its table holds the first query's rows.
* **keystroke → repaint**: 20 characters typed into the search bar, one every ``--interval``
  seconds (default 0.12 s: a fast typist). The parent stamps each key as it writes it to the pty;
  the child stamps, after the next refresh, each query whose hits are shown (``time.monotonic``
  is one clock for both processes on Linux). papertray's query is shown once the app is settled
  (its newest answer in the table and the cursor paper in the abstract panel), checked after
  every message the app handles. A key's latency is the time to the first repaint
  that shows its query or a later one (a superseded query is never shown, by design).
* **peak RSS**: ``ru_maxrss`` of the child (``os.wait4``) over the typing session.

Prints a JSON list of ``[label, ours, baseline, target]`` rows for ``bench/run.py``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import pty
import select
import signal
import statistics
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QUERY = "graph neural networks"[:20]  # 20 characters, typed one by one
COLUMNS, LINES = 120, 40
#: Seconds a session may take (bench/one_file.py's first builds of a large library take longer).
DEADLINE_S = 120


# -- the two apps (run in the child process) -------------------------------------------------
def _papertray_app(seeds: str, data: str, mode: str, log: Path):
    from tui.browser.app import PapertrayApp

    class Timed(PapertrayApp):
        CSS_PATH = str(Path(sys.modules[PapertrayApp.__module__].__file__).parent
                       / PapertrayApp.CSS_PATH)

        def on_ready(self) -> None:
            if mode == "frame":
                self.exit()
            else:  # a slow poll as well, in case a change came with no message to the app
                self._watching = True
                self.set_interval(0.05, self._check)
                self._check()

        async def _on_message(self, message) -> None:
            # checked after every message the app handles (a worker's answer, a key...): a
            # poll every 2 ms took CPU from the app it measured and was late by up to 2 ms
            await super()._on_message(message)
            if getattr(self, "_watching", False) and self.is_running:
                self._check()

        def _check(self) -> None:
            query = self.search_bar.value
            if self.is_settled and self.table.row_count and query != getattr(self, "_last", None):
                self._last = query
                self.call_after_refresh(_shown, self, query, mode, log)

    return Timed([seeds], data)


def _bare_app(plain_db: str, mode: str, log: Path):
    import sqlite3

    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Input, Static

    sys.path.insert(0, str(HERE))
    import baseline

    class Bare(App):
        def compose(self) -> ComposeResult:
            yield Input()
            yield DataTable(cursor_type="row")
            yield Static(id="abstract")

        def on_mount(self) -> None:
            self.conn = sqlite3.connect(plain_db)
            table = self.query_one(DataTable)
            table.add_columns("id", "abstract")
            self.query_one(Input).focus()
            self._show("")

        def on_ready(self) -> None:
            if mode == "frame":
                self.exit()

        def on_input_changed(self, event: Input.Changed) -> None:
            self._show(event.value)

        def _show(self, query: str) -> None:
            table = self.query_one(DataTable)
            table.clear()
            if query.split():
                rows = baseline.search(self.conn, query.split())
            else:
                rows = self.conn.execute(
                    "SELECT rowid, substr(abstract, 1, 80) FROM docs LIMIT 200").fetchall()
            table.add_rows(rows)
            self.query_one(Static).update(Text(rows[0][1] if rows else ""))
            if mode != "frame":
                self.call_after_refresh(_shown, self, query, mode, log)

    return Bare()


def _shown(app, query: str, mode: str, log: Path) -> None:
    """A query's hits are on screen: note when; exit when the session is over."""
    with log.open("a") as fh:
        fh.write(json.dumps([query, time.monotonic()]) + "\n")
    if mode == "page" or (mode == "type" and query == QUERY):
        app.exit()


def child(args: list[str]) -> None:
    which, mode, log = args[0], args[1], Path(args[2])
    app = (_papertray_app(args[3], args[4], mode, log) if which == "ours"
           else _bare_app(args[3], mode, log))
    app.run()


# -- the parent: a pty, the clock, the keys ----------------------------------------------------
def session(cmd: list[str], log: Path, typing: float | None = None,
            opener: bytes = b"") -> tuple[float, float, list[float]]:
    """Run ``cmd`` in a new pty. Returns ``(wall seconds, peak RSS MiB, key latencies)``.

    With ``typing`` (seconds between keys), once the first page is shown ``opener`` (the key
    that focuses the search bar) and then :data:`QUERY` are typed.
    """
    log.unlink(missing_ok=True)
    log.touch()
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(cmd[0], cmd, {**os.environ, "TERM": "xterm-256color",
                                 "COLUMNS": str(COLUMNS), "LINES": str(LINES)})
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
    typed: list[tuple[str, float]] = []
    deadline = time.monotonic() + DEADLINE_S
    while True:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            raise SystemExit(f"{' '.join(cmd[3:5])} did not finish in {DEADLINE_S} s")
        ready, _, _ = select.select([fd], [], [], 0.01)
        if ready:
            try:
                if not os.read(fd, 65536):
                    break
            except OSError:  # the child closed the terminal: it has exited
                break
        due = not typed or time.monotonic() - typed[-1][1] >= (typing or 0)
        if typing is not None and len(typed) < len(QUERY) and log.stat().st_size and due:
            os.write(fd, (b"" if typed else opener) + QUERY[len(typed)].encode())
            typed.append((QUERY[: len(typed) + 1], time.monotonic()))
    _, status, usage = os.wait4(pid, 0)
    wall = time.monotonic() - started
    os.close(fd)
    if status:
        raise SystemExit(f"{' '.join(cmd[3:5])} exited with status {status}")
    shown = [json.loads(line) for line in log.read_text().splitlines()]
    latencies = []
    for i, (_, at) in enumerate(typed):
        later = {q for q, _ in typed[i:]}
        repaint = next((t for q, t in shown if q in later and t >= at), None)
        if repaint is not None:
            latencies.append(repaint - at)
    return wall, usage.ru_maxrss / 1024, latencies


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] if values else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds")
    ap.add_argument("data")
    ap.add_argument("plain_db")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--interval", type=float, default=0.12, help="seconds between keys")
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2:])
        return
    a = ap.parse_args()
    sys.path.insert(0, str(HERE))
    from run import warm_bytecode

    warm_bytecode()  # as bench/run.py measures: with the bytecode cache of a user's second run
    me = [sys.executable, str(Path(__file__).resolve()), "--child"]
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "shown.jsonl"

        def ours(mode: str) -> list[str]:
            return [*me, "ours", mode, str(log), a.seeds, a.data]

        def bare(mode: str) -> list[str]:
            return [*me, "bare", mode, str(log), a.plain_db]

        figures: dict[str, list] = {k: [] for k in (
            "frame", "bare frame", "page", "bare page", "keys", "bare keys", "rss", "bare rss")}
        for _ in range(a.repeat):  # interleaved: both see the same machine load
            figures["frame"].append(session(ours("frame"), log)[0])
            figures["bare frame"].append(session(bare("frame"), log)[0])
            figures["page"].append(session(ours("page"), log)[0])
            figures["bare page"].append(session(bare("page"), log)[0])
            _, rss, keys = session(ours("type"), log, a.interval, b"/")
            figures["keys"] += keys
            figures["rss"].append(rss)
            _, rss, keys = session(bare("type"), log, a.interval)
            figures["bare keys"] += keys
            figures["bare rss"].append(rss)
    med = {k: statistics.median(v) for k, v in figures.items() if "keys" not in k}
    rows = [
        ["browser: first frame + exit (s)", med["frame"], med["bare frame"], "≤ 1.4×"],
        ["browser: first page of hits + exit (s)", med["page"], med["bare page"], ""],
        ["browser: keystroke → repaint p95 (ms)", percentile(figures["keys"], .95) * 1e3,
         percentile(figures["bare keys"], .95) * 1e3, "≤ 50 ms"],
        ["browser: keystroke → repaint p50 (ms)", percentile(figures["keys"], .5) * 1e3,
         percentile(figures["bare keys"], .5) * 1e3, ""],
        ["browser: peak RSS (MiB)", max(figures["rss"]), max(figures["bare rss"]), "≤ 2×"],
    ]
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
