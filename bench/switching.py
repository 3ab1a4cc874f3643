"""Switching between two libraries: what going back and forth costs, next to a warm start.

    python bench/switching.py SEEDS_A SEEDS_B [--repeat 3] [--before CHECKOUT]

Runs ``papertray --seeds X --data-dir D list --limit 20`` as whole processes in one data folder,
alternating the libraries: A, B, A, B… (each a switch) and A, A (a warm start), and prints the
median wall seconds of each over ``--repeat`` runs. Both libraries are built once first, untimed.
``--before CHECKOUT`` times the same with the papertray of another checkout (a git worktree of an
older commit, run through ``PYTHONPATH`` with this Python's packages), where one index served
every library and each switch rebuilt it. See docs/benchmark.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMMAND = ["list", "--limit", "20"]


def run(code: Path, seeds: Path, data: Path) -> float:
    """Wall seconds of one ``papertray`` process of the checkout ``code`` on ``seeds``."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    env.pop("PAPERTRAY_SEEDS", None)
    argv = [sys.executable, "-c", "from tui.cli.main import main; main()",
            "--seeds", str(seeds), "--data-dir", str(data), *COMMAND]
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=code)
    return time.perf_counter() - start


def measure(code: Path, a: Path, b: Path, repeat: int) -> dict[str, float]:
    """Median seconds of a warm start of A, a switch to B (from A) and back to A (from B)."""
    with tempfile.TemporaryDirectory(prefix="papertray-switch-") as tmp:
        data = Path(tmp)
        run(code, b, data)  # both built once, untimed
        run(code, a, data)
        warm, to_b, to_a = [], [], []
        for _ in range(repeat):
            warm.append(run(code, a, data))  # A after A
            to_b.append(run(code, b, data))  # A -> B
            to_a.append(run(code, a, data))  # B -> A
        return {"warm start (A after A)": statistics.median(warm),
                "switch A -> B": statistics.median(to_b),
                "switch B -> A": statistics.median(to_a)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seeds_a", type=Path)
    parser.add_argument("seeds_b", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--before", type=Path, default=None,
                        help="a checkout of an older papertray to time the same way")
    args = parser.parse_args()
    a, b = args.seeds_a.resolve(), args.seeds_b.resolve()
    columns = {"this": measure(HERE.parent, a, b, args.repeat)}
    print(f"this: {columns['this']}", file=sys.stderr, flush=True)  # kept if the rest is cut
    if args.before:
        columns = {"before": measure(args.before.resolve(), a, b, args.repeat), **columns}
    print(f"medians of {args.repeat} runs, wall seconds of `papertray {' '.join(COMMAND)}`")
    print(f"{'':<24}" + "".join(f"{name:>10}" for name in columns))
    for row in next(iter(columns.values())):
        print(f"{row:<24}" + "".join(f"{c[row]:>10.2f}" for c in columns.values()))


if __name__ == "__main__":
    main()
