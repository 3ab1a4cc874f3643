"""Parsing's fast paths: worker processes, the dictionary's copy, commands that parse nothing."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

import db.index.sync
import db.seeds.dictionary
import db.seeds.parallel
from db import Library
from db.index.sync import SyncCancelled
from tests.db_support import FILE_A, REPO, all_hits, ids
from tests.fast_paths_support import _index, _synced


def test_parsing_in_worker_processes_gives_the_same_index(seeds_copy, tmp_path, plain,
                                                          monkeypatch):
    monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    started = []
    original = db.seeds.parallel._context
    monkeypatch.setattr(db.seeds.parallel, "_context", lambda: started.append(1) or original())
    data = tmp_path / "parallel"
    with _synced(seeds_copy, data) as lib:
        assert lib.fts_ok()
        with Library([seeds_copy], plain) as other:
            assert ids(all_hits(lib, "reinforcement learning")) == ids(
                all_hits(other, "reinforcement learning"))
    assert started == [1]  # the pool was really used
    assert _index(data) == _index(plain)
    assert len(_index(data)["papers"]) == 35


def test_a_cancelled_parallel_parse_writes_nothing(seeds_copy, tmp_path, monkeypatch):
    monkeypatch.setattr(db.seeds.parallel, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(db.seeds.parallel, "workers", lambda: 2)
    seen: list[tuple[int, int]] = []

    def cancel(done: int, total: int) -> None:
        seen.append((done, total))
        raise SyncCancelled

    with Library([seeds_copy], tmp_path / "data") as lib:
        with pytest.raises(SyncCancelled):
            lib.sync(progress=cancel)
        assert seen == [(19, 38)]  # the first file's 19 abstracts, of ~38 by its bytes
        assert lib.counts()["all"] == 0
        assert lib.sync().added == 35  # and the next sync loads everything


def _children(pid: int) -> list[int]:
    """Live (not zombie) processes whose parent is ``pid``, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_killed_sync_leaves_no_parse_workers_behind(tmp_path):
    """SIGKILL cannot be caught: the parse workers must notice by themselves and end."""
    shipped = (REPO / "seeds" / FILE_A).read_text(encoding="utf-8").split("\n\n")[1:]
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for n in range(4):  # ~2.7 MB of seed text: above db.seeds.parallel.PARALLEL_MIN_BYTES
        body = [f"{a.strip()} Variant {n}-{i}." for i in range(32) for a in shipped]
        (seeds / f"part{n}.txt").write_text("ICML 2025 Papers\n\n" + "\n\n".join(body),
                                            encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-c", "from tui.cli.main import main; main()",
                             "--seeds", str(seeds), "--data-dir", str(tmp_path / "data"),
                             "sync"], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    workers = []
    while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
        workers = _children(proc.pid)
        time.sleep(0.02)
    assert len(workers) >= 2, "the sync never started its parse workers"
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [w for w in workers if _alive(w)] == []


@pytest.mark.parametrize("command", [["stats"], ["list", "--limit", "2"],
                                     ["search", "reinforcement", "--limit", "2"]])
def test_warm_commands_import_nothing_heavy(seeds_copy, data_dir, command):
    """What `python -X importtime` showed costing 15-200 ms each; a warm command needs none."""
    cli = ["--seeds", str(seeds_copy), "--data-dir", str(data_dir)]
    probe = ("import sys; from tui.cli.main import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "heavy = {'textual', 'rich', 'sqlite_utils', 'rapidfuzz', 'pylatexenc', "
             "'spellchecker', 'multiprocessing', 'concurrent'}\n"
             "print(sorted({m.split('.')[0] for m in sys.modules} & heavy), file=sys.stderr)")
    first = subprocess.run([sys.executable, "-c", probe, *cli, "sync"], capture_output=True,
                           text=True, cwd=REPO)
    assert "spellchecker" in first.stderr  # parsing needs it: the probe does see imports
    run = subprocess.run([sys.executable, "-c", probe, *cli, *command], capture_output=True,
                         text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().splitlines()[-1] == "[]"
    assert run.stdout.strip()


def test_the_dictionary_is_read_back_from_its_copy_beside_the_index(seeds_copy, data_dir,
                                                                     monkeypatch):
    monkeypatch.setattr(db.seeds.dictionary, "_dictionary_folder", None)  # restored after the test
    db.seeds.dictionary._dictionary.cache_clear()
    try:
        _synced(seeds_copy, data_dir).close()
        [copy] = data_dir.glob("dictionary-*.words")
        words = copy.read_text(encoding="utf-8").split("\n")
        assert len(words) > 100_000 and "requires" in words
        copy.write_text("\n".join(["quokka", *words[:20_000]]), encoding="utf-8")
        db.seeds.dictionary._dictionary.cache_clear()
        assert db.seeds.dictionary.is_english_word("quokka")  # the copy is what parsing reads
        assert not db.seeds.dictionary.is_english_word(words[-1])
        copy.write_text("quokka\nrequires", encoding="utf-8")  # cut short: built again
        db.seeds.dictionary._dictionary.cache_clear()
        assert not db.seeds.dictionary.is_english_word("quokka")
        assert db.seeds.dictionary.is_english_word(words[-1])
    finally:
        db.seeds.dictionary._dictionary.cache_clear()


def test_a_dictionary_copy_that_does_not_fit_leaves_no_partial_file(tmp_path):
    """A full disk (here a file size limit) while the dictionary copy is written: parsing goes
    on, and the part written is removed, not left (1.5 MB) to take the room the marks need."""
    script = ("import resource, signal, sys\n"
              "from pathlib import Path\n"
              "import db.seeds\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))\n"
              "db.seeds.dictionary.cache_dictionary_in(Path(sys.argv[1]))\n"
              "print(db.seeds.dictionary.is_english_word('requires'))\n")
    run = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True,
                         text=True, cwd=REPO, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (0, "True\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
