"""One index per library, kept side by side in the index's folder, least recently used pruned.

A library is a set of seed paths; its key is a hash of those paths (:func:`library_key`), and
``libraries.json`` in the index's folder (the cache folder, or ``--data-dir``) says which index
file each key has and when it was last used:

``{"version": 1, "libraries": {key: {"index": "index-<key>.sqlite", "seeds": [path, ...],
"used": <seconds since the epoch>}}}``

The first library a folder sees gets the plain name ``index.sqlite``, and so does a library
whose files an ``index.sqlite`` that no library has claimed was built from (the one index of an
older papertray is adopted, not rebuilt); every other library gets ``index-<key>.sqlite``. The
registry is read and written under a ``flock`` on ``libraries.lock`` beside it, and written
whole or not at all (a temporary file renamed over it). A registry that is missing or cannot be
read is started anew: the index files keep their names, so a library finds its index again.

Pruning: past :data:`MAX_INDEXES` indexes or :data:`MAX_BYTES` in all, the least recently used
index is deleted, never the library's own, never one used in the last :data:`IDLE_S` seconds,
and never one another connection has open (in any process): it is deleted while this process
holds SQLite's exclusive lock on it (:func:`db.store.exclusive.held`), which nobody holding the
file open can share.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from db.store import exclusive
from db.store.files import BUSY_TIMEOUT_S, COMPANIONS
from db.store.paths import INDEX_FILE

REGISTRY_FILE = "libraries.json"
LOCK_FILE = "libraries.lock"
#: At most this many libraries keep an index (the least recently used beyond it is pruned).
MAX_INDEXES = 8
#: At most this many bytes of indexes in all (an index of 87,000 abstracts is ~0.3 GB).
MAX_BYTES = 4 * 2**30
#: An index used within this many seconds is never pruned, whatever the caps: a papertray may
#: have claimed it and be about to open it.
IDLE_S = 600.0
#: ``used`` is rewritten at most this often per library (a command need not write the registry).
TOUCH_S = 60.0


def seed_roots(seed_paths: Sequence[str | os.PathLike[str]]) -> list[str]:
    """The seed paths as absolute, normalized paths, sorted, no duplicates: a library the same
    whatever the current folder, the order or the spelling (``~``, ``..``) it was given in."""
    return sorted({os.path.abspath(os.path.expanduser(os.fspath(p))) for p in seed_paths})


def library_key(seed_paths: Sequence[str | os.PathLike[str]]) -> str:
    """A library's key: the first 16 hex digits of the SHA-256 of :func:`seed_roots`."""
    return hashlib.sha256("\n".join(seed_roots(seed_paths)).encode("utf-8", "surrogateescape")
                          ).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Slot:
    """A library's index: ``index`` its file, ``fresh`` True when the library is new to the
    folder and has no index yet (its first build is no news), ``pruned`` the index files
    deleted to make room."""

    index: Path
    fresh: bool
    pruned: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class Kept:
    """One library's index in a folder: ``seeds`` (absolute paths), ``index`` its file,
    ``bytes`` its size with ``-wal`` (0 when not built), ``used`` seconds since the epoch."""

    key: str
    seeds: tuple[str, ...]
    index: Path
    bytes: int
    used: float


def claim(folder: Path, seed_paths: Sequence[str | os.PathLike[str]]) -> Slot:
    """The index file of the library ``seed_paths`` in ``folder``, recorded as used now, and
    pruning done (see the module's docstring). Never raises: when the registry cannot be used
    (the folder cannot be made or written), the library's file name is still its own,
    ``index-<key>.sqlite`` (opening the index then says what is wrong with the folder)."""
    key = library_key(seed_paths)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        with _locked(folder):
            return _claim(folder, key, seed_roots(seed_paths))
    except OSError:
        return Slot(folder / f"index-{key}.sqlite", False)


def _claim(folder: Path, key: str, roots: list[str]) -> Slot:
    entries = _read(folder)
    entry = entries.get(key)
    now = time.time()
    fresh = False
    if entry is None:
        claimed = {e["index"] for e in entries.values()}
        name = INDEX_FILE if _adoptable(folder / INDEX_FILE, roots, claimed) \
            else f"index-{key}.sqlite"
        entry = entries[key] = {"index": name, "seeds": roots, "used": 0.0}
        fresh = not (folder / name).exists()
    touched = now - entry["used"] >= TOUCH_S
    if touched:
        entry["used"] = now
    pruned = _prune(folder, entries, key, now)
    if touched or pruned:
        _write(folder, entries)
    return Slot(folder / entry["index"], fresh, tuple(pruned))


def kept(folder: Path) -> list[Kept]:
    """Every library with an index in ``folder``, most recently used first (read only; no
    lock: a registry being replaced is read whole, before or after)."""
    found = [Kept(key, tuple(e["seeds"]), folder / e["index"], _size(folder / e["index"]),
                  e["used"]) for key, e in _read(folder).items()]
    return sorted(found, key=lambda k: -k.used)


def _adoptable(index: Path, roots: list[str], claimed: set[str]) -> bool:
    """Whether a new library takes the plain name ``index.sqlite``: no library has it, and
    either there is no such file or every seed file it was built from lies in ``roots``
    (an index that cannot be read is taken too: opening it rebuilds it)."""
    if INDEX_FILE in claimed:
        return False
    if not index.exists():
        return True
    try:
        conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
        try:
            paths = [row[0] for row in conn.execute("SELECT path FROM files")]
        finally:
            conn.close()
    except sqlite3.Error:
        return True
    return all(any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in roots)
               for p in paths)


def _prune(folder: Path, entries: dict, key: str, now: float) -> list[Path]:
    """Delete the least recently used indexes past the caps; returns the files deleted. An entry
    whose file is gone is forgotten."""
    for other in [k for k, e in entries.items() if k != key and not (folder / e["index"]).exists()
                  and now - e["used"] >= IDLE_S]:
        del entries[other]
    sizes = {k: _size(folder / e["index"]) for k, e in entries.items()}
    pruned: list[Path] = []
    for other in sorted(entries, key=lambda k: entries[k]["used"]):
        if len(entries) <= MAX_INDEXES and sum(sizes.values()) <= MAX_BYTES:
            break
        if other == key or now - entries[other]["used"] < IDLE_S:
            continue
        index = folder / entries[other]["index"]
        if _delete_unused(index):
            pruned.append(index)
            del entries[other], sizes[other]
    return pruned


def _delete_unused(index: Path) -> bool:
    """Delete ``index`` and its companions while holding its exclusive lock; False (nothing
    deleted) when another connection has it open."""
    try:
        with exclusive.held(index, wait_s=0):
            for suffix in COMPANIONS:
                Path(f"{index}{suffix}").unlink(missing_ok=True)
    except (exclusive.InUse, sqlite3.Error, OSError):
        return False
    return True


def _size(index: Path) -> int:
    total = 0
    for suffix in ("", "-wal"):
        with contextlib.suppress(OSError):
            total += Path(f"{index}{suffix}").stat().st_size
    return total


def _read(folder: Path) -> dict:
    """The registry's libraries (``{}`` when missing or unreadable); malformed entries dropped."""
    try:
        data = json.loads((folder / REGISTRY_FILE).read_text(encoding="utf-8"))
        libraries = data["libraries"]
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return {}
    if not isinstance(libraries, dict):
        return {}
    return {k: e for k, e in libraries.items() if _valid(e)}


def _valid(entry: object) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("index"), str)
            and os.path.basename(entry["index"]) == entry["index"]
            and entry["index"].startswith("index") and entry["index"].endswith(".sqlite")
            and isinstance(entry.get("seeds"), list)
            and all(isinstance(s, str) for s in entry["seeds"])
            and isinstance(entry.get("used"), int | float))


def write_private(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to a new file ``path`` of mode 0600, whatever the umask."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)


def _write(folder: Path, entries: dict) -> None:
    partial = folder / f"{REGISTRY_FILE}.partial"
    try:
        write_private(partial, json.dumps({"version": 1, "libraries": entries}, indent=1) + "\n")
        os.replace(partial, folder / REGISTRY_FILE)
    finally:
        partial.unlink(missing_ok=True)


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """The registry to this process alone (``flock`` on ``libraries.lock``; never on a database
    file, whose SQLite locks a second descriptor would drop)."""
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
