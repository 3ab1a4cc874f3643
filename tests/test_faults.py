"""Faults survived: kills during a sync and during marking, writers racing a sync, interrupts.

These run the repo's fault-injection scenarios (``scripts/faults.py``) with small counts; the
script runs them at full size (30 kills of a 20,000-abstract sync, 500 + 500 racing marks).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from db import Library

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))

import faults  # noqa: E402


def test_kill_during_sync_loses_nothing(tmp_path: Path) -> None:
    failures = faults.kill_sync(tmp_path, papers=3000, kills=4, marks=60, corpus_path=None,
                                rng=random.Random(5))
    assert failures == []


def test_kill_during_marking_keeps_every_reported_mark(tmp_path: Path) -> None:
    assert faults.kill_marking(tmp_path, kills=2, rng=random.Random(2)) == []


def test_two_writers_and_a_forced_sync_all_marks_land(tmp_path: Path) -> None:
    assert faults.concurrent(tmp_path, marks=150) == []


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupted_sync_exits_cleanly_and_keeps_the_index(tmp_path: Path, signum) -> None:
    seeds, data = faults.make_library(tmp_path, 6000, None)
    ids = [h["id"] for h in json.loads(faults.cli(seeds, data, "list", "--limit", "5",
                                                  "--json").stdout)["hits"]]
    faults.cli(seeds, data, "mark", *ids, "--to-read")
    with Library([seeds], data) as lib:
        before = (lib.counts(), [h.id for h in lib.search("graph", limit=50).hits])
    # as a terminal starts it: a suite run in the background (`pytest &`) would pass on its
    # SIGINT ignored, as shells do for background jobs, and Python keeps it ignored
    proc = subprocess.Popen([*faults.PAPERTRAY, "--seeds", str(seeds), "--data-dir", str(data),
                             "sync", "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # once it has read its first seed file: well inside the forced sync of 6,000 abstracts
    # (several seconds: 50 files read, then written in one transaction), however slow the
    # machine is to start it
    first = proc.stdout.readline()
    assert "loaded" in first, first
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    out = first + out
    assert proc.returncode == 128 + signum, (out, err)  # 130 ctrl+c, 143 TERM, 129 HUP
    assert err.strip().splitlines()[-1] == "papertray: interrupted"
    assert "Traceback" not in err
    with Library([seeds], data) as lib:
        assert lib.fts_ok()
        assert (lib.counts(), [h.id for h in lib.search("graph", limit=50).hits]) == before


def test_a_first_build_killed_while_it_writes_leaves_a_whole_index(tmp_path: Path) -> None:
    """A first build writes each file while the next ones are parsed, in one transaction that
    holds the write lock: SIGKILLed once it has written (its write-ahead log is growing), the
    index opens whole and empty of papers, and the next sync loads everything."""
    seeds, data = tmp_path / "seeds", tmp_path / "data"
    faults.corpus.write_seeds(seeds, faults.corpus.synthetic_abstracts(3000), 50)
    wal = data / "index.sqlite-wal"
    proc = subprocess.Popen([*faults.PAPERTRAY, "--seeds", str(seeds), "--data-dir", str(data),
                             "sync"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline and not (
            wal.exists() and wal.stat().st_size > 1_000_000):  # a few files written
        time.sleep(0.005)
    killed = proc.poll() is None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Library([seeds], data) as lib:
        assert lib.fts_ok()
        assert lib.counts()["all"] in ((0,) if killed else (0, 3000))
        lib.sync()
        assert lib.counts()["all"] == 3000
        assert lib.fts_ok()


def test_a_full_disk_is_not_taken_for_a_damaged_marks_file(tmp_path: Path) -> None:
    """No room for the marks file's ``-shm`` (a full disk; here a file size limit, which SQLite
    meets the same way: "disk I/O error") is said to be that, with the marks file untouched. It
    was "the marks file cannot be read; ... move it away to start afresh"."""
    import resource

    from tests.tui_support import papertray_command, shipped_copy

    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    where = ["--seeds", str(seeds), "--data-dir", str(data)]
    library = Library([seeds], data_dir=data)
    library.sync()
    library.set_status([library.search("wudi").hits[0].id], "read")
    library.close()
    before = (data / "marks.sqlite").read_bytes()
    for extra in ("-wal", "-shm"):
        (data / f"marks.sqlite{extra}").unlink(missing_ok=True)

    def no_room() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))

    done = subprocess.run([*papertray_command(), *where, "list", "--status", "read"],
                          capture_output=True, text=True, timeout=60, preexec_fn=no_room)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"papertray: cannot use the marks file {data / 'marks.sqlite'} (disk I/O error); it is "
        "not damaged: check that its disk is not full and that its folder and files can be "
        "written\n")
    assert (data / "marks.sqlite").read_bytes() == before
