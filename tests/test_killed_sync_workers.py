"""A papertray killed outright (SIGKILL) while its parse workers run leaves nothing behind: the
workers end with it, and the next papertray is neither refused nor slowed."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from db import Library
from db.seeds import parallel
from tests.db_support import console_script

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import faults  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                       reason="finds the workers through /proc (Linux)"),
    pytest.mark.skipif(parallel.workers() < 2, reason="parses in worker processes only on "
                       "two CPUs or more"),
]
DEADLINE_S = 60.0
#: Abstracts enough to be parsing in worker processes for a while (~4 MB of seed text).
PAPERS = 4000


def _children(pid: int) -> list[int]:
    """Every process under ``pid`` (children, their children...)."""
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        return []
    return found + [g for c in found for g in _children(c)]


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie, waiting for the system to collect it, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _wait(condition, what: str) -> None:
    end = time.monotonic() + DEADLINE_S
    while not condition():
        assert time.monotonic() < end, f"waited {DEADLINE_S} s for {what}"
        time.sleep(0.01)


def _parse_workers(pid: int, at_least: int) -> list[int]:
    """Wait until ``pid`` runs ``at_least`` parse workers (its Python children that are
    running); returns their pids."""
    found: list[int] = []

    def started() -> bool:
        found[:] = [c for c in _children(pid) if _running(c)
                    and "resource_tracker" not in Path(f"/proc/{c}/cmdline").read_text()]
        return len(found) >= at_least

    _wait(started, f"{at_least} parse workers")
    return found


@pytest.fixture(scope="module")
def big_seeds(tmp_path_factory) -> Path:
    seeds = tmp_path_factory.mktemp("big") / "seeds"
    faults.corpus.write_seeds(seeds, faults.corpus.synthetic_abstracts(PAPERS), 40)
    return seeds


def _drain(fd: int) -> None:
    """Read what the browser draws until its terminal closes (every process that had it
    ended), then close ``fd``."""
    with contextlib.suppress(OSError):
        while os.read(fd, 65536):
            pass
    os.close(fd)


def _stats(seeds: Path, data: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*console_script(), "--seeds", str(seeds), "--data-dir", str(data),
                           "stats", "--json"], capture_output=True, text=True,
                          timeout=DEADLINE_S * 3)


@pytest.mark.parametrize("first_build", [True, False], ids=["first build", "rebuild"])
def test_a_killed_forced_sync_leaves_no_worker_and_the_next_command_runs(
        big_seeds, tmp_path, first_build):
    """``sync --force`` SIGKILLed while its workers parse (a first build, or the rebuild of
    a whole index): every worker has ended, and ``stats`` answers at once, not "busy"."""
    data = tmp_path / "data"
    if not first_build:
        with Library([big_seeds], data) as lib:
            lib.sync()
    proc = subprocess.Popen([*console_script(), "--seeds", str(big_seeds), "--data-dir",
                             str(data), "sync", "--force"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _parse_workers(proc.pid, 2)
        left = _children(proc.pid)  # the workers and multiprocessing's resource tracker
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _wait(lambda: not any(map(_running, left)), "the orphaned workers to end")
    stats = _stats(big_seeds, data)
    assert (stats.returncode, "busy" in stats.stderr) == (0, False), stats.stderr
    with Library([big_seeds], data) as lib:
        assert lib.counts()["all"] == PAPERS and lib.fts_ok()


def test_a_browser_killed_mid_build_leaves_no_worker(big_seeds, tmp_path):
    """The browser parses in workers of a fork server (it runs threads): killed outright
    during its first build, the fork server and every worker end too. (Each worker holds the
    fork server's "alive" pipe open, so the fork server outlived the browser, and a worker
    that watched its parent process, the fork server, parsed and waited for ever.)"""
    data = tmp_path / "data"
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    pty_main, pty_side = os.openpty()  # the browser needs a terminal
    proc = subprocess.Popen([*console_script(), "--seeds", str(big_seeds), "--data-dir",
                             str(data)], stdin=pty_side, stdout=pty_side, stderr=pty_side,
                            env=env, start_new_session=True)
    os.close(pty_side)
    threading.Thread(target=_drain, args=(pty_main,), daemon=True).start()  # (a full one blocks)
    try:
        _parse_workers(proc.pid, 3)  # the fork server and (at least) two workers
        left = _children(proc.pid)  # and multiprocessing's resource tracker
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    _wait(lambda: not any(map(_running, left)), "the fork server and its workers to end")
    stats = _stats(big_seeds, data)
    assert (stats.returncode, "busy" in stats.stderr) == (0, False), stats.stderr


WORKER_OF_A_DEAD_PARENT = """
import multiprocessing, sys, time
from concurrent.futures import ProcessPoolExecutor
from db.seeds import parallel

def late_start():
    time.sleep(float(sys.argv[1]))  # its parent is killed meanwhile
    parallel._worker_started()

pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"),
                           initializer=late_start)
pool.submit(time.sleep, 0)
print(*[p.pid for p in multiprocessing.active_children()], flush=True)
time.sleep(600)
"""


def test_a_worker_whose_parent_died_before_it_started_ends(tmp_path):
    """A worker that starts after its parent was killed (a kill as the pool starts) ends too:
    it cannot learn its parent from ``os.getppid()`` then, which is already another process."""
    script = tmp_path / "pool.py"
    script.write_text(WORKER_OF_A_DEAD_PARENT, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, str(script), "1.0"], stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split() if int(p) in _children(proc.pid)]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert workers
    _wait(lambda: not any(map(_running, workers)), "the worker to end")
