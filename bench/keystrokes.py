"""Search latency while typing: ``Library.search(typing=True)`` for every prefix of a few queries.

    python bench/keystrokes.py SEEDS DATA_DIR [--query TEXT ...] [--limit N]

``DATA_DIR`` holds an index synced from ``SEEDS``. Each query is searched one character longer
at a time, as the browser does at each keystroke (without the worker thread and the repaint:
``bench/browser.py`` measures those), for a page of ``--limit`` hits: by default the browser's,
``tui.browser.app.PAGE_SIZE`` (a terminal taller than half of it gets twice its height). Prints
one line per query (milliseconds and total hits per prefix) and the median and maximum over all
of them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from db import Library

QUERIES = ("graph neural networks", "reinforcement learning from human", "diffusion models for")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds")
    ap.add_argument("data")
    ap.add_argument("--query", action="append", help="a query to type (repeatable)")
    ap.add_argument("--limit", type=int, help="hits per search (default: the browser's page)")
    a = ap.parse_args()
    if a.limit is None:
        from tui.browser.app import PAGE_SIZE

        a.limit = PAGE_SIZE
    library = Library([Path(a.seeds)], Path(a.data))
    library.sync()  # nothing to do when DATA_DIR is in step with SEEDS (an older index: rebuilt)
    library.search("warm up", typing=True)  # the first search loads the vocabulary
    times = []
    for query in a.query or QUERIES:
        shown = []
        for end in range(1, len(query) + 1):
            started = time.perf_counter()
            result = library.search(query[:end], limit=a.limit, typing=True)
            times.append((time.perf_counter() - started) * 1000)
            shown.append(f"{query[:end]!r} {times[-1]:.0f} ms/{result.total}")
        print("  ".join(shown))
    print(f"median {statistics.median(times):.1f} ms, max {max(times):.1f} ms over {len(times)} "
          f"keystrokes, {a.limit} hits a page")
    library.close()


if __name__ == "__main__":
    main()
