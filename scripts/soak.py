"""Browsers and the command line on one library, with random kills: nothing acknowledged is lost.

    python scripts/soak.py --steps 1000 --seed 1 [--papers 2000] [--browsers 2]

Browsers run in real terminals (tmux, a private server) on one data folder whose index the
first browser builds on its first start, as a new user's does. Each step is one action: a key in
a browser (a mark, an undo, a move), a command-line process (``stats``, ``list``, ``mark``,
``undo``, ``note``, ``tag``, ``sync``, ``sync --force``, ``export``, ``marks backup``, ``marks
repair``), or a ``kill -9`` of a browser (then started again) or of a command in the middle of
its work.
After every step:

* the marks file passes ``PRAGMA integrity_check``;
* the marks on disk are those before the step changed only as the history rows the step wrote
  say (:func:`db.marks.repair.replay`): no mark lost, none changed without its history;
* a command that said it marked papers (exit 0) left them so on disk;
* every live browser's header shows the counts on disk, within the live-reload interval;
* ``stats --json`` and ``list --json`` agree with the disk.

Prints one line per step and a summary; exits 1 at the first failure, with the screens and the
disk. The tests run it with a few hundred steps (tests/test_soak.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import corpus  # noqa: E402

from db.marks import repair  # noqa: E402

PAPERTRAY = [sys.executable, "-c", "from tui.cli.main import main; main()"]
#: Seconds within which every browser must show a change made elsewhere: the browser's
#: live-reload interval (tui.browser.app.POLL_S, 2 s) with a wide margin for a loaded machine.
CONVERGE_S = 20.0
#: Seconds a browser may take to start and show the library (the first one builds the index).
START_S = 60.0
HEADER_RE = re.compile(r"all (\d+)\s+2 \S new (\d+)\s+3 \S to-read (\d+)\s+4 \S read (\d+)"
                       r"\s+5 \S dismissed (\d+)")


class Failure(AssertionError):
    """A check failed: the message says which, after which step."""


class Browser:
    """One ``papertray`` browser in a tmux window of the soak's private tmux server."""

    def __init__(self, tmux: Callable[..., str], name: str, command: list[str], work: Path):
        self.tmux, self.name, self.pid_file = tmux, name, work / f"{name}.pid"
        shell = f"echo $$ > {shlex.quote(str(self.pid_file))}; exec {shlex.join(command)}"
        self.command = ["sh", "-c", shell]
        self.cwd = str(work)  # (not the project: "python -c" imports from its folder first)
        tmux("new-window", "-d", "-c", self.cwd, "-n", name, shlex.join(self.command))
        tmux("set-option", "-w", "-t", name, "remain-on-exit", "on")

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def counts(self) -> tuple[int, int, int, int, int] | None:
        """``(all, new, to-read, read, dismissed)`` as the header shows them, or None (not
        drawn yet)."""
        found = HEADER_RE.search(self.screen())
        return tuple(int(n) for n in found.groups()) if found else None  # type: ignore[return-value]

    def alive(self) -> bool:
        return self.tmux("display-message", "-p", "-t", self.name, "#{pane_dead}").strip() != "1"

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
            os.kill(int(self.pid_file.read_text()), signal.SIGKILL)

    def restart(self) -> None:
        self.pid_file.unlink(missing_ok=True)
        self.tmux("respawn-pane", "-k", "-c", self.cwd, "-t", self.name,
                  shlex.join(self.command))


class Soak:
    """The library, the browsers, the model of the marks, and the steps."""

    def __init__(self, work: Path, papers: int, browsers: int, rng: random.Random,
                 log: Callable[[str], None] = print) -> None:
        self.work, self.rng, self.log = work, rng, log
        self.seeds, self.data = work / "seeds", work / "data"
        corpus.write_seeds(self.seeds, corpus.synthetic_abstracts(papers), 4)
        for shipped in sorted((ROOT / "seeds").glob("*.txt")):
            (self.seeds / shipped.name).write_bytes(shipped.read_bytes())
        self.where = ["--seeds", str(self.seeds), "--data-dir", str(self.data)]
        self.socket = f"papertray-soak-{uuid.uuid4().hex[:10]}"
        self.tmux("-f", os.devnull, "new-session", "-d", "-s", "soak", "-c", str(work), "-x",
                  "120", "-y", "30")
        command = ["env", "TERM=xterm-256color", "LANG=C.UTF-8", *PAPERTRAY, *self.where,
                   "--ascii"]
        self.browsers = [Browser(self.tmux, "b0", command, work)]
        self.wait(lambda: self.browsers[0].counts() is not None and self._ready(self.browsers[0]),
                  "the first browser to build the index and show the library", START_S)
        self.browsers += [Browser(self.tmux, f"b{i}", command, work) for i in range(1, browsers)]
        for browser in self.browsers:
            self.wait(lambda b=browser: b.counts() is not None and self._ready(b),
                      f"{browser.name} to show the library", START_S)
        self.ids = self._paper_ids()
        self.marks, self.seq = self._disk()[1:3]
        self.steps = 0

    # -- the machinery -------------------------------------------------------------------
    def tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                              text=True, timeout=30, check=True).stdout

    def close(self) -> None:
        for browser in self.browsers:
            browser.kill()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True,
                       timeout=30, check=False)

    def cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([*PAPERTRAY, *self.where, *args], capture_output=True, text=True,
                              timeout=120, cwd=self.work, stdin=subprocess.DEVNULL)

    def wait(self, condition: Callable[[], bool], what: str, deadline_s: float = CONVERGE_S):
        end = time.monotonic() + deadline_s
        while not condition():
            if time.monotonic() > end:
                raise Failure(f"timed out after {deadline_s:.0f} s waiting for {what}")
            time.sleep(0.05)

    def _ready(self, browser: Browser) -> bool:
        screen = browser.screen()
        return "building the index" not in screen and re.search(r"\b\d+/\d+\b", screen) is not None

    def _paper_ids(self) -> list[str]:
        with contextlib.closing(sqlite3.connect(f"file:{self.data / 'index.sqlite'}?mode=ro",
                                                uri=True)) as conn:
            return [r[0] for r in conn.execute("SELECT id FROM papers ORDER BY rowid")]

    def _disk(self) -> tuple[str, dict[str, str], int, dict[tuple, tuple]]:
        """``(integrity check, marks, newest history seq, history rows by seq)`` of the marks
        file, read here in one snapshot."""
        marks = self.data / "marks.sqlite"
        columns = ", ".join(repair.TABLES["mark_events"])
        with contextlib.closing(sqlite3.connect(f"file:{marks}?mode=ro", uri=True)) as conn:
            conn.execute("BEGIN")
            check = conn.execute("PRAGMA integrity_check(1)").fetchone()[0]
            found = dict(conn.execute("SELECT paper_id, status FROM marks"))
            history = {(r[0],): r for r in conn.execute(f"SELECT {columns} FROM mark_events")}
            conn.execute("COMMIT")
        return check, found, max((k[0] for k in history), default=0), history

    def counts(self, marks: dict[str, str]) -> tuple[int, int, int, int, int]:
        statuses = [marks.get(i, "new") for i in self.ids]
        return (len(self.ids), statuses.count("new"), statuses.count("to-read"),
                statuses.count("read"), statuses.count("dismissed"))

    # -- the checks ----------------------------------------------------------------------
    def check(self, step: str, acknowledged: dict[str, str] | None = None,
              maybe: dict[str, str] | None = None) -> None:
        """The checks of the module's docstring, after ``step``, once every live browser shows
        the counts on disk. ``acknowledged``: statuses a command said it wrote; ``maybe``:
        those of a command killed midway (all written, or none)."""
        end = time.monotonic() + CONVERGE_S
        while True:
            check, disk, seq, history = self._disk()
            self.ids = self._paper_ids()
            if check != "ok":
                raise Failure(f"after {step}: the marks file fails integrity_check: {check}")
            want = self.counts(disk)
            shown = {b.name: b.counts() for b in self.browsers if b.alive()}
            if all(counts == want for counts in shown.values()):
                break
            if time.monotonic() > end:
                raise Failure(f"after {step}: the disk has {want}, the browsers show {shown} "
                              f"after {CONVERGE_S:.0f} s")
            time.sleep(0.05)
        state = {table: {} for table in ("marks", "notes", "tags", "annotation_anchors")}
        state["marks"] = {(p,): (p, s, "", None, None) for p, s in self.marks.items()}
        repair.replay(state, [history[k] for k in sorted(history) if k[0] > self.seq], history)
        expected = {key[0]: row[1] for key, row in state["marks"].items()}
        if disk != expected:
            lost = {p: s for p, s in expected.items() if disk.get(p) != s}
            extra = {p: s for p, s in disk.items() if expected.get(p) != s}
            raise Failure(f"after {step}: the marks on disk are not the marks before it plus "
                          f"its history: missing or changed {lost}, unexplained {extra}")
        for paper_id, status in (acknowledged or {}).items():
            if disk.get(paper_id, "new") != status:
                raise Failure(f"after {step}: {paper_id[:8]} was acknowledged {status} but is "
                              f"{disk.get(paper_id, 'new')} on disk")
        if maybe:  # the killed command's batch (if it wrote one) holds every paper of it
            batches = {row[1] for key, row in history.items() if key[0] > self.seq
                       and row[3] == "mark" and maybe.get(row[4]) == row[6]}
            for batch in batches:
                papers = {row[4] for row in history.values() if row[1] == batch}
                if papers <= set(maybe) and not all(disk.get(p, "new") == s
                                                    for p, s in maybe.items()):
                    raise Failure(f"after {step}: a killed command left part of its step")
        self.marks, self.seq = disk, seq

    # -- the steps -----------------------------------------------------------------------
    def step(self) -> str:
        """Take one random step and check; returns what it was."""
        self.steps += 1
        roll = self.rng.random()
        if roll < 0.35:
            return self._browser_key()
        if roll < 0.45:
            return self._browser_search()
        if roll < 0.57:
            return self._cli_mark()
        if roll < 0.67:
            return self._cli_read()
        if roll < 0.77:
            return self._cli_other()
        if roll < 0.84:
            return self._seed_change()
        if roll < 0.92:
            return self._kill_browser()
        return self._kill_command()

    def _browser_search(self) -> str:
        """A query typed and a mark made in one burst, as over SSH: the search, the mark's
        write and the panel's paper run in the browser's worker threads side by side."""
        browser = self.rng.choice(self.browsers)
        query = self.rng.choice(["graph", "learning", "model", "policy", "zzzz", ""])
        browser.keys("/", "C-u")
        if query:
            browser.tmux("send-keys", "-t", browser.name, "-l", query)
        browser.keys(self.rng.choice(["Enter", "Escape"]), self.rng.choice("trj"))
        self.check(f"{browser.name}: search {query!r} and a key")
        return f"{browser.name}: search {query!r} and a key"

    def _seed_change(self) -> str:
        """A seed file grows by one abstract (a second batch of a conference): every browser
        syncs it in the background while the other steps go on."""
        target = sorted(self.seeds.glob("part_*.txt"))[0]
        with target.open("a", encoding="utf-8") as fh:
            fh.write(f"\nA soak abstract number {self.steps} about graph policies and models "
                     f"that arrived in a later batch {time.time_ns()}.\n")
        self.check("a seed file changed")
        return "a seed file changed"

    def _browser_key(self) -> str:
        browser = self.rng.choice(self.browsers)
        key = self.rng.choice(["t", "r", "d", "x", "u", "t", "r", "j", "k", "n", "G", "g"])
        before = browser.screen()
        browser.keys(key)
        what = f"{browser.name}: key {key}"
        with contextlib.suppress(Failure):  # (a key that changes nothing: at the end of the list)
            self.wait(lambda: browser.screen() != before, f"{browser.name} to answer", 1.0)
        self.check(what)
        return what

    def _cli_mark(self) -> str:
        papers = self.rng.sample(self.ids, self.rng.randint(1, 3))
        if self.rng.random() < 0.2:
            done = self.cli("undo")
            what = "papertray undo"
            acknowledged = None
        else:
            status = self.rng.choice(["read", "to-read", "dismissed", "new"])
            done = self.cli("mark", *(p[:10] for p in papers), f"--{status}")
            what = f"papertray mark {len(papers)} --{status}"
            acknowledged = dict.fromkeys(papers, status)
        if done.returncode:
            raise Failure(f"{what} failed: {done.stderr.strip()}")
        self.check(what, acknowledged)
        return what

    def _cli_read(self) -> str:
        """``stats`` or ``list``: what it shows is the disk as it was before it ran or after (a
        browser may write meanwhile: a mark it re-attached at its own sync of a seed change)."""
        before = (self.counts(self.marks), self._listed(self.marks))
        if self.rng.random() < 0.5:
            stats = json.loads(self.cli("stats", "--json").stdout)
            self.check("papertray stats")
            shown = (stats["papers"], *(stats["status"][s]
                                        for s in ("new", "to-read", "read", "dismissed")))
            if shown not in (before[0], self.counts(self.marks)):
                raise Failure(f"stats says {shown}, the disk {self.counts(self.marks)}")
            return "papertray stats"
        status = self.rng.choice(["read", "to-read", "dismissed"])
        listed = json.loads(self.cli("list", "--status", status, "--limit", "10000",
                                     "--json").stdout)
        self.check(f"papertray list --status {status}")
        got = sorted(h["id"] for h in listed["hits"])
        want = self._listed(self.marks)[status]
        if got not in (before[1][status], want):
            raise Failure(f"list --status {status} disagrees with the disk: it lists "
                          f"{sorted(set(got) - set(want))} more and {sorted(set(want) - set(got))} "
                          f"fewer; on disk now {self.marks}")
        return f"papertray list --status {status}"

    def _listed(self, marks: dict[str, str]) -> dict[str, list[str]]:
        known = set(self.ids)
        return {status: sorted(p for p, s in marks.items() if s == status and p in known)
                for status in ("read", "to-read", "dismissed")}

    def _cli_other(self) -> str:
        paper = self.rng.choice(self.ids)[:10]
        args = self.rng.choice([["sync"], ["sync", "--force"], ["marks", "backup"],
                                ["marks", "repair"],
                                ["export", "-o", str(self.work / "out.md")],
                                ["note", paper, f"note {self.steps}"], ["tag", paper, "soak"]])
        done = self.cli(*args)
        what = "papertray " + " ".join(a for a in args if not a.startswith("/"))
        busy = "busy in another papertray" in done.stderr  # a browser is syncing: said, not lost
        if (done.returncode and not busy) or "Traceback" in done.stderr:
            raise Failure(f"{what} failed: {done.stderr.strip()}")
        self.check(what)
        return what

    def _kill_browser(self) -> str:
        browser = self.rng.choice(self.browsers)
        if self.rng.random() < 0.5:  # right after a key, while its write may be on its way
            browser.keys(self.rng.choice("tru"))
        browser.kill()
        self.wait(lambda: not browser.alive(), f"{browser.name} to die")
        self.check(f"kill -9 {browser.name}")  # (the others still agree with the disk)
        browser.restart()
        self.wait(lambda: browser.counts() is not None and self._ready(browser),
                  f"{browser.name} to start again", START_S)
        self.check(f"{browser.name} started again")
        return f"kill -9 {browser.name}, started again"

    def _kill_command(self) -> str:
        papers = self.rng.sample(self.ids, self.rng.randint(1, 3))
        status = self.rng.choice(["read", "to-read"])
        args = self.rng.choice([["sync", "--force"], ["mark", *(p[:10] for p in papers),
                                                      f"--{status}"]])
        proc = subprocess.Popen([*PAPERTRAY, *self.where, *args], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, cwd=self.work)
        time.sleep(self.rng.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        what = f"kill -9 papertray {args[0]}"
        self.check(what, maybe=dict.fromkeys(papers, status) if args[0] == "mark" else None)
        return what


def run(work: Path, steps: int, papers: int, browsers: int, seed: int,
        log: Callable[[str], None] = print) -> int:
    """Run ``steps`` steps; returns the number of kills. Raises :class:`Failure` (with the
    browsers' screens) at the first failed check."""
    soak = Soak(work, papers, browsers, random.Random(seed), log)
    kills = 0
    try:
        for n in range(1, steps + 1):
            what = soak.step()
            kills += what.startswith("kill")
            log(f"step {n}: {what}: ok ({soak.counts(soak.marks)[2]} to-read, "
                f"{soak.counts(soak.marks)[3]} read)")
    except Failure as exc:
        screens = "\n".join(f"--- {b.name}\n{b.screen()}" for b in soak.browsers)
        raise Failure(f"step {soak.steps}: {exc}\n{screens}") from None
    finally:
        soak.close()
    return kills


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--papers", type=int, default=2000, help="generated abstracts beside the "
                    "shipped seeds (a forced sync of them takes long enough to be killed)")
    ap.add_argument("--browsers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="papertray-soak-") as tmp:
        try:
            kills = run(Path(tmp), a.steps, a.papers, a.browsers, a.seed)
        except Failure as exc:
            print(f"FAILED: {exc}")
            sys.exit(1)
    print(f"soak: {a.steps} steps, {kills} kills, {a.browsers} browsers, no failure "
          f"({time.monotonic() - started:.0f} s)")


if __name__ == "__main__":
    main()
