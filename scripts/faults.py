"""Fault injection: kill papertray at random moments and check that nothing is lost.

    python scripts/faults.py kill-sync --papers 20000 --kills 30
    python scripts/faults.py kill-marking --kills 10
    python scripts/faults.py concurrent --marks 500

Each scenario works in a temporary folder, prints one line per round and a summary, and exits 1
if any check failed. ``--corpus`` takes a JSON Lines (.gz) file of abstracts; without it the
abstracts are generated (``bench/corpus.py``). The tests run the same functions with small counts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import corpus  # noqa: E402

PAPERTRAY = [sys.executable, "-c", "from tui.cli.main import main; main()"]


def cli(seeds: Path, data: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([*PAPERTRAY, "--seeds", str(seeds), "--data-dir", str(data), *args],
                          capture_output=True, text=True, check=check)


def marks_of(seeds: Path, data: Path) -> dict[str, str]:
    out = {}
    for status in ("to-read", "read", "dismissed"):
        listed = json.loads(cli(seeds, data, "list", "--status", status, "--limit", "10000",
                                "--json").stdout)
        out.update({h["id"]: status for h in listed["hits"]})
    return out


def make_library(work: Path, papers: int, corpus_path: Path | None) -> tuple[Path, Path]:
    seeds, data = work / "seeds", work / "data"
    pairs = (corpus.corpus_abstracts(corpus_path, papers) if corpus_path
             else corpus.synthetic_abstracts(papers))
    corpus.write_seeds(seeds, pairs, 50)
    cli(seeds, data, "sync")
    return seeds, data


def kill_sync(work: Path, papers: int, kills: int, marks: int, corpus_path: Path | None,
              rng: random.Random) -> list[str]:
    """SIGKILL syncs of changed seed files at random moments; check index and marks each time."""
    seeds, data = make_library(work, papers, corpus_path)
    ids = [h["id"] for h in json.loads(cli(seeds, data, "list", "--limit", "10000",
                                           "--json").stdout)["hits"]]
    chosen = rng.sample(ids, min(marks, len(ids)))
    half = len(chosen) // 2
    cli(seeds, data, "mark", *chosen[:half], "--to-read")
    cli(seeds, data, "mark", *chosen[half:], "--read")
    expected = marks_of(seeds, data)
    files = sorted(seeds.glob("*.txt"))
    failures = []
    cold = _time(lambda: cli(seeds, data, "sync", "--force"))
    killed_count, round_no = 0, 0
    while killed_count < kills and round_no < 3 * kills:
        round_no += 1
        victim = rng.choice(files)  # change files so that the sync has work to do
        with victim.open("a", encoding="utf-8") as fh:
            fh.write(f"\nA fault-injection abstract number {round_no} {time.time_ns()}.\n")
        args = ["sync", "--force"] if rng.random() < 0.5 else ["sync"]
        proc = subprocess.Popen([*PAPERTRAY, "--seeds", str(seeds), "--data-dir", str(data),
                                 *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.05, max(0.1, cold)))
        killed = proc.poll() is None
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_count += killed
        problems = _check(seeds, data, expected)
        print(f"kill-sync round {round_no}: {'killed' if killed else 'finished first'}; "
              f"{'OK' if not problems else '; '.join(problems)}", flush=True)
        failures += problems
    print(f"kill-sync: {killed_count} syncs killed in {round_no} rounds; {len(expected)} marks "
          "checked after each", flush=True)
    return failures


def _check(seeds: Path, data: Path, expected: dict[str, str]) -> list[str]:
    from db import Library

    problems = []
    opened = cli(seeds, data, "stats", "--json", check=False)
    if opened.returncode:
        problems.append(f"next command failed: {opened.stderr.strip()[:200]}")
    with Library([seeds], data) as lib:
        if not lib.fts_ok():
            problems.append("FTS5 integrity-check failed")
    got = marks_of(seeds, data)
    if got != expected:
        missing = {k: v for k, v in expected.items() if got.get(k) != v}
        problems.append(f"{len(missing)} marks lost or changed")
    return problems


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


_MARKER = "written "


def kill_marking(work: Path, kills: int, rng: random.Random) -> list[str]:
    """SIGKILL a process that marks papers in a loop; every mark it reported must be there."""
    seeds, data = make_library(work, 2000, None)
    failures = []
    for round_no in range(1, kills + 1):
        code = (
            "import sys\nfrom db import Library\n"
            f"lib = Library([{str(seeds)!r}], {str(data)!r})\n"
            "for i, hit in enumerate(lib.search('', limit=2000).hits):\n"
            "    status = 'read' if i % 2 else 'to-read'\n"
            "    lib.set_status([hit.id], status)\n"
            f"    print({_MARKER!r} + hit.id + ' ' + status, flush=True)\n"
        )
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                                cwd=ROOT)
        kill_after = rng.randint(1, 1500)  # reported marks; the kill lands mid-write
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if len(lines) >= kill_after:
                break
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
        out = "".join(lines) + rest
        reported = dict(line[len(_MARKER):].split() for line in out.splitlines()
                        if line.startswith(_MARKER) and len(line.split()) == 3)
        got = marks_of(seeds, data)
        lost = [pid for pid, status in reported.items() if got.get(pid) != status]
        print(f"kill-marking round {round_no}: {len(reported)} marks reported, "
              f"{len(lost)} lost", flush=True)
        if lost:
            failures.append(f"round {round_no}: {len(lost)} reported marks lost")
        cli(seeds, data, "mark", *got, "--new") if got else None
    return failures


def concurrent(work: Path, marks: int) -> list[str]:
    """Two processes mark ``marks`` different papers each while a third forces syncs."""
    seeds, data = make_library(work, max(5000, 2 * marks + 10), None)
    ids = [h["id"] for h in json.loads(cli(seeds, data, "list", "--limit", "10000",
                                           "--json").stdout)["hits"]]
    a, b = ids[:marks], ids[marks:2 * marks]
    code = (
        "import sys\nfrom db import Library\n"
        f"lib = Library([{str(seeds)!r}], {str(data)!r})\n"
        "import time\n"
        "for pid in sys.argv[2:]:\n"
        "    lib.set_status([pid], sys.argv[1])\n"
        "    time.sleep(0.004)\n"
    )
    writers = [subprocess.Popen([sys.executable, "-c", code, status, *chunk], cwd=ROOT,
                                stderr=subprocess.PIPE, text=True)
               for status, chunk in (("to-read", a), ("read", b))]
    syncs, sync_errors = 0, []
    while any(w.poll() is None for w in writers):
        result = cli(seeds, data, "sync", "--force", check=False)
        syncs += 1
        if result.returncode:
            sync_errors.append(result.stderr.strip()[:200])
    for w in writers:
        w.wait()
    if sync_errors:
        return [f"sync failed while marking: {sync_errors[0]}"]
    failures = [f"writer failed: {w.stderr.read()[-300:]}" for w in writers if w.returncode]
    got = marks_of(seeds, data)
    want = {**{p: "to-read" for p in a}, **{p: "read" for p in b}}
    wrong = [p for p, s in want.items() if got.get(p) != s]
    print(f"concurrent: {len(want)} marks written by 2 processes during {syncs} forced syncs; "
          f"{len(want) - len(wrong)} landed", flush=True)
    if wrong:
        failures.append(f"{len(wrong)} of {len(want)} marks did not land")
    return failures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario", choices=["kill-sync", "kill-marking", "concurrent"])
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--kills", type=int, default=30)
    ap.add_argument("--marks", type=int, default=200)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory(prefix="papertray-faults-") as tmp:
        work = Path(tmp)
        if a.scenario == "kill-sync":
            failures = kill_sync(work, a.papers, a.kills, a.marks, a.corpus, rng)
        elif a.scenario == "kill-marking":
            failures = kill_marking(work, a.kills, rng)
        else:
            failures = concurrent(work, a.marks)
    print(f"{a.scenario}: {len(failures)} failures")
    for f in failures:
        print("  " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    main()
