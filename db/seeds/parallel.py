"""Parsing many seed files at once: in worker processes when there is enough to parse.

Parsing (names, headlines, hyphenation, CJK search forms) is pure Python and dominates a cold
sync (cProfile on 10,000 abstracts: ~70% of the sync), so a first build of a large library
parses its seed files in a process pool, one file per task (a large file in parts of ~1 MB,
:mod:`db.seeds.chunks`), and the single write transaction stays in the calling process. A few
files, or little text, are parsed in-process: starting workers costs more than it saves there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from db.seeds import chunks
from db.seeds.chunks import Parts, split
from db.seeds.dictionary import warm_up
from db.seeds.entry import Entry, SeedError
from db.seeds.read import parse_file

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor
    from multiprocessing.context import BaseContext

#: ``(collection, entries, status, reason, prepared)``: status "loaded", "empty" or "error";
#: ``prepared`` is ``prepare(entries)`` (None for a file that yields no entries).
Parsed = tuple[str, list[Entry], str, str, list]

#: Bytes of seed text from which a pool is used (~2,000 abstracts, about a second of parsing
#: on one core; a pool starts in ~0.05 s with fork, ~0.5 s without).
PARALLEL_MIN_BYTES = 2_000_000


def parse_one(path: Path, data: bytes, prepare: Callable[[list[Entry]], object]) -> Parsed:
    """Parse one seed file's bytes; a file that yields no papers gives its status and reason.

    ``prepare`` (a module-level function: it is sent to worker processes) is applied to the
    file's entries in the same process, so that per-entry work of the caller runs in parallel too.
    """
    skipped: list[str] = []  # records left out of a structured file, said in its reason
    try:
        collection, entries = parse_file(path, data, skipped)
    except SeedError as exc:
        return "", [], exc.status, str(exc), None
    except (RecursionError, ValueError) as exc:
        return "", [], "error", f"cannot parse: {exc}", None
    return collection, entries, "loaded", "; ".join(skipped), prepare(entries)


def workers() -> int:
    """CPUs this process may run on (``os.sched_getaffinity`` where there is one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        return os.cpu_count() or 1


#: Called as ``on_part(path, size, parsed, whole)`` as each seed file, or part of a large one,
#: is parsed, in seed order: the file's path, how many of its bytes the part stands for, the
#: part's :data:`Parsed` (positions counted from the file's start; ``prepared`` that of the
#: part) and whether it is the whole file (then the same result is yielded next).
OnPart = Callable[[Path, int, Parsed, bool], None]


def parse_files(files: list[tuple[Path, bytes]], prepare: Callable[[list[Entry]], object],
                join: Callable[[list[tuple[list[Entry], object]]], object] | None = None,
                on_part: OnPart | None = None) -> Iterator[Parsed]:
    """Parse ``(path, data)`` seed files; yields one :data:`Parsed` per file, in their order.

    With worker processes, a large JSON Lines or text file is parsed in parts at once
    (:mod:`db.seeds.chunks`) when ``join`` is given: ``join([(entries, prepared), ...])`` of its
    parts (a module-level function, like ``prepare``) makes the file's ``prepared`` of theirs.
    Closing the iterator early (a sync cancelled between two files) drops the files not yet
    parsed. Each item of ``files`` is emptied (``(path, b"")``) once the file is parsed: a
    caller that writes each file as it comes (db.index.sync) does not hold every file's bytes to the
    end (87k abstracts: 90 MB).
    """
    size = sum(len(data) for _, data in files)
    tasks = len(files) + (sum(len(d) // chunks.PART_BYTES for _, d in files) if join else 0)
    if tasks < 2 or size < PARALLEL_MIN_BYTES or workers() < 2:
        for i, (path, data) in enumerate(files):
            files[i] = (path, b"")
            result = parse_one(path, data, prepare)
            if on_part:
                on_part(path, len(data), result, True)
            del data
            yield result
        return
    yield from _parse_in_pool(files, prepare, join, on_part)


def _parse_in_pool(files: list[tuple[Path, bytes]], prepare: Callable[[list[Entry]], object],
                   join: Callable | None, on_part: OnPart | None) -> Iterator[Parsed]:
    """:func:`parse_files` in worker processes, one task per file or part of one."""
    # imported here: multiprocessing costs every command ~10 ms, and most syncs parse nothing
    from concurrent.futures import ProcessPoolExecutor

    warm_up()  # forked workers inherit the loaded dictionary instead of each loading it
    _start_resource_tracker()
    pool = ProcessPoolExecutor(workers(), mp_context=_context(), initializer=_worker_started)
    try:
        submitted = [_submit(pool, path, data, prepare, join is not None)
                     for path, data in files]
        for i, (parts, futures) in enumerate(submitted):
            path, data = files[i]
            files[i] = (path, b"")
            if parts is None:
                result = _result(futures[0], path, data, prepare)
                if on_part:
                    on_part(path, len(data), result, True)
            else:
                result = _joined(path, parts, futures, prepare, join, on_part)
            del data
            yield result
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _submit(pool: ProcessPoolExecutor, path: Path, data: bytes, prepare: Callable,
            in_parts: bool) -> tuple[Parts | None, list[Future]]:
    """The tasks of one file: ``(None, [its task])``, or with ``in_parts`` for a large file
    ``(its parts, [a task for each])``; a gzip file's parts are handed to the pool as they are
    cut (:func:`db.seeds.chunks.split`), so the workers parse the first while the rest is
    expanded."""
    handed: list[Future] = []
    parts = split(path, data, lambda name, part: handed.append(
        pool.submit(parse_one, name, part, prepare))) if in_parts else None
    if parts is None or not parts.handed:
        for future in handed:  # (a file found damaged after its first parts were handed)
            future.cancel()
    if parts is None:
        return None, [pool.submit(parse_one, path, data, prepare)]
    if parts.handed:
        return parts, handed
    return parts, [pool.submit(parse_one, parts.name, part, prepare) for part in parts.parts]


def _result(future: Future, path: Path, data: bytes, prepare: Callable) -> Parsed:
    """A task's result; parsed here when its worker was killed (out of memory?)."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return future.result()
    except BrokenProcessPool:
        return parse_one(path, data, prepare)


def _joined(path: Path, parts: Parts, futures: list[Future], prepare: Callable, join: Callable,
            on_part: OnPart | None) -> Parsed:
    """File ``path``'s result from those of its parts (:func:`db.seeds.chunks.join`)."""
    results, before = [], 0  # (entries of the parts before this one)
    for at, future in enumerate(futures):
        result = _result(future, parts.name, parts.parts[at], prepare)
        parts.parts[at] = b""
        results.append(result)
        chunks.count_on(result[1], before)
        before += len(result[1])
        if on_part:
            on_part(path, parts.shares[at], result, False)
    collection, entries, status, reason = chunks.join(parts, [r[:4] for r in results])
    if status != "loaded":
        return collection, entries, status, reason, None
    prepared = join([(r[1], r[4]) for r in results if r[2] == "loaded"])
    return collection, entries, status, reason, prepared


def _start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker (the first pool of a process does) with a
    standard error that has a file descriptor.

    The tracker is started with ``sys.stderr.fileno()`` among the descriptors it keeps; in the
    browser sys.stderr is Textual's capture, whose ``fileno()`` is -1, and starting it failed
    ("bad value(s) in fds_to_keep"): every sync with a pool (a first build of a large
    library) failed there. The process's own standard error (or /dev/null) is lent to it.
    """
    try:
        if sys.stderr is not None and sys.stderr.fileno() >= 0:
            return
    except (AttributeError, OSError, ValueError):  # (io.UnsupportedOperation is an OSError)
        pass
    from multiprocessing import resource_tracker

    with contextlib.ExitStack() as stack:
        stream = sys.__stderr__
        try:
            usable = stream is not None and stream.fileno() >= 0
        except (AttributeError, OSError, ValueError):
            usable = False
        if not usable:
            stream = stack.enter_context(open(os.devnull, "w", encoding="utf-8"))
        stack.enter_context(contextlib.redirect_stderr(stream))
        resource_tracker.ensure_running()


def _context() -> BaseContext:
    import multiprocessing

    # fork is the fastest start (the parent's imports and dictionary are shared), but forking a
    # process that runs other threads (the browser syncs in a worker thread) can deadlock the
    # child on a lock another thread held; there the workers start from a fresh server process
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _worker_started() -> None:
    """Set up a parse worker: signals as the system has them, and an end with its parent.

    Ctrl-C reaches the whole process group: the parent stops the sync and rolls back, the
    workers must not each print a traceback. The parent's own signal handlers (the CLI turns
    SIGTERM into "interrupted") are not the worker's. And a parent killed outright (SIGKILL, the
    OOM killer) cannot shut its pool down: a worker would parse on, then wait for work for
    ever, holding the inherited descriptors of the database files and a CPU. So a thread waits
    on multiprocessing's parent sentinel (a pipe from the parent, at its end the moment the
    parent's process ends, with any start method and on any system) and ends the worker then.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), name="parent-watch",
                         daemon=True).start()


def _end_with(sentinel: int) -> None:
    """End this process when ``sentinel`` (the parent's) is ready: the parent ended."""
    from multiprocessing.connection import wait

    wait([sentinel])
    os._exit(1)
