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
    proc = subprocess.Popen([*faults.PAPERTRAY, "--seeds", str(seeds), "--data-dir", str(data),
                             "sync", "--force"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(1.0)  # well inside the forced sync of 6,000 abstracts (several seconds)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signum, (out, err)  # 130 ctrl+c, 143 TERM, 129 HUP
    assert err.strip().splitlines()[-1] == "papertray: interrupted"
    assert "Traceback" not in err
    with Library([seeds], data) as lib:
        assert lib.fts_ok()
        assert (lib.counts(), [h.id for h in lib.search("graph", limit=50).hits]) == before
