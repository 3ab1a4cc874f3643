"""Connections to papertray's SQLite files: autocommit, WAL, a busy timeout, and every write in
a short explicit transaction.

Several papertrays share one data folder (browsers in two terminals, the command line, a cron
sync): WAL lets them read while one writes, the busy timeout makes a writer wait for another's
short transaction instead of failing, and :func:`write_transaction` makes each write all there
or not at all. Every connection is made by :func:`connect`, which registers its file with
:mod:`db.store.files` (the rule that keeps this process's locks).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from db.store.files import BUSY_TIMEOUT_S, make_private, register

BUSY_TIMEOUT_MS = int(BUSY_TIMEOUT_S * 1000)


def connect(path: Path) -> sqlite3.Connection:
    """A connection to the database file ``path`` (created if missing, mode 0600), in
    autocommit mode with the busy timeout. Not yet in WAL mode (:func:`use_wal`): a new index
    first takes its page size.

    ``check_same_thread=False``: a connection is used by one thread at a time, but a thread that
    ended hands its connections on to the next (``db.library.connections``), and closing runs
    anywhere.
    """
    register(path)
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    make_private(path)  # before the -wal and -shm exist: SQLite gives them the file's mode
    return conn


def use_wal(conn: sqlite3.Connection) -> None:
    """WAL mode (readers never wait for a writer) with ``synchronous=NORMAL`` (a commit is
    durable at the next checkpoint; a power cut loses at most the last commits, never the file)."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection,
                      begin: Callable[[sqlite3.Connection], None] | None = None) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` on an autocommit connection; ``ROLLBACK`` on any
    exception (a kill, a signal, a disk error): a write is all there or not at all. IMMEDIATE
    takes the write lock at once, so a busy file waits the busy timeout instead of failing
    midway. ``begin`` starts the transaction instead (the index takes the lock of its own file
    alone: :func:`db.index.schema.begin_index_write`); it leaves nothing open if it fails.
    """
    if begin is None:
        conn.execute("BEGIN IMMEDIATE")
    else:
        begin(conn)
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
