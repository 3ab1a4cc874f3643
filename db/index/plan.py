"""Which seed files a sync must read: fingerprints compared with the index's ``files`` table.

A file whose size and mtime_ns are unchanged is not read at all; a touched file whose SHA-256 is
unchanged is not parsed again; the others are parsed (in worker processes when there is much to
parse, :mod:`db.seeds.parallel`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from db.index.rows import join_prepared, prepare_file
from db.models import FileReport
from db.seeds.discover import discover
from db.seeds.entry import Entry
from db.text import clean

#: Called as ``progress(done, total)`` as each seed file, or part of a large one, is parsed:
#: ``done`` papers parsed so far, of ``total`` in the files being parsed; ``total`` is exact once
#: the last is parsed and until then estimated from the bytes parsed (papers per byte so far
#: times the bytes of all). Never called when nothing is parsed. It may raise
#: :class:`SyncCancelled` to stop the sync: nothing it would have written is kept.
Progress = Callable[[int, int], None]


class SyncCancelled(Exception):
    """Raised by a progress callback to stop a sync (e.g. the browser is closing)."""


@dataclass(slots=True)
class Planned:
    path: Path
    display: str
    size: int
    mtime_ns: int
    sha256: str
    status: str = "loaded"
    reason: str = ""
    collection: str = ""
    entries: list[Entry] | None = None
    prepared: list[tuple] | None = None  # prepare_file(entries)[0]
    vocab: Counter[str] | None = None  # prepare_file(entries)[1]
    extras: list[tuple] | None = None  # prepare_file(entries)[2]


def _display_names(files: list[Path]) -> dict[Path, str]:
    """Short names for people: the file name, or parent/name when two files share a name."""
    names = Counter(f.name for f in files)
    # file names are untrusted text too: no escape sequence may reach a terminal through them
    return {f: clean(f.name if names[f.name] == 1 else f"{f.parent.name}/{f.name}")
            for f in files}


def plan_changes(conn: sqlite3.Connection, seed_paths: list[Path], force: bool = False,
                 progress: Progress | None = None,
                 on_parsed: Callable[[Planned], None] | None = None,
                 on_part: PartParsed | None = None
                 ) -> tuple[list[Planned], list[str], list[FileReport], bool]:
    """Compare the seed files with the index. Reads only files whose stat changed.

    Returns ``(to_apply, removed_paths, reports, touched)``: files to (re)load, files gone, a
    report for every file, and whether some fingerprints only need their stat refreshed.
    ``on_parsed(planned)`` is called with each file as soon as it is parsed, in seed order;
    with ``on_part``, a large file parsed in parts gives each part to it first (then its
    ``Planned`` has the whole file's entries and no ``prepared``).
    """
    found = discover(seed_paths)
    files = found.files
    known = {row[0]: row for row in conn.execute(
        "SELECT path, size, mtime_ns, sha256, status, entries, reason, display, collection "
        "FROM files")}
    display = _display_names(files)
    reports = [FileReport(path, "error", 0, reason) for path, reason in found.problems]
    to_apply: list[Planned] = []
    to_parse: list[tuple[int, Planned]] = []  # (report index, file)
    jobs: list[tuple[Path, bytes]] = []  # (path, data) of each, for parse_files
    touched = False
    for path in files:
        key = str(path)
        old = known.get(key)
        try:
            st = path.stat()
            if old and not force and (old[1], old[2]) == (st.st_size, st.st_mtime_ns):
                reports.append(FileReport(old[7], _shown(old[4]), old[5], old[6] or ""))
                continue
            with path.open("rb") as fh:
                data = fh.read()
        except OSError as exc:
            # keep what the index has from it: an unreadable moment must not drop papers
            reports.append(FileReport(display[path], "error", 0, exc.strerror or str(exc)))
            continue
        import hashlib  # here: a sync that finds nothing changed (the usual case) never hashes

        digest = hashlib.sha256(data).hexdigest()
        planned = Planned(path, display[path], st.st_size, st.st_mtime_ns, digest)
        to_apply.append(planned)
        if old and not force and old[3] == digest:
            touched = True
            planned.status = "touched"
            reports.append(FileReport(old[7], _shown(old[4]), old[5], old[6] or ""))
            continue
        to_parse.append((len(reports), planned))
        jobs.append((path, data))
        del data
        reports.append(FileReport(planned.display, "loaded"))  # its counts once it is parsed
    tally = _Tally(sum(len(data) for _, data in jobs), progress, on_part)
    with _parsed(jobs, tally, on_part is not None) as parsed:
        for (at, planned), result in zip(to_parse, parsed, strict=True):
            (planned.collection, planned.entries, planned.status, planned.reason,
             prepared) = result
            planned.prepared, planned.vocab, planned.extras = prepared or ([], Counter(), [])
            old = known.get(str(planned.path))
            if planned.status == "error" and old and old[5]:
                # it loaded before and cannot be read now (junk copied over it, a save or a
                # download in progress): its papers stay until it reads again, as when it
                # cannot be opened; the new fingerprint is kept, so it is not read at each poll
                planned.status, planned.entries = "kept", None
                planned.collection = old[8] or ""
                if not planned.reason.endswith(KEPT_NOTE):
                    planned.reason += KEPT_NOTE
                reports[at] = FileReport(planned.display, "error", old[5], planned.reason)
                continue
            reports[at] = FileReport(planned.display, planned.status, len(planned.entries),
                                     planned.reason)
            if on_parsed:
                on_parsed(planned)
    current = {str(f) for f in files}
    # a seed folder that is missing right now (an unmounted disk, a typo) does not remove what
    # the index has from it: its papers stay until the folder is back or no longer given
    # (and when every seed path given is missing, nothing at all is removed: a typo in --seeds
    # must not empty the library)
    everything_missing = bool(found.missing_roots) and not files
    kept = [p for p in known if p not in current
            and (everything_missing or _under(p, found.missing_roots))]
    removed = [p for p in known if p not in current and p not in kept]
    reports += [FileReport(known[p][7], "removed", 0, "") for p in removed]
    return to_apply, removed, reports, touched


#: Called as ``on_part(path, collection, entries, prepared)`` with each part of a large seed
#: file as it is parsed (:meth:`db.index.write.Writer.add_part`).
PartParsed = Callable[[Path, str, list[Entry], tuple], None]


class _Tally:
    """Each file or part parsed (:data:`db.seeds.parallel.OnPart`): its papers and bytes
    added up and told to a :data:`Progress` as papers of a total; a part of a file given to
    ``on_part``."""

    def __init__(self, total_bytes: int, progress: Progress | None,
                 on_part: PartParsed | None) -> None:
        self.total_bytes, self.progress, self.on_part = total_bytes, progress, on_part
        self.papers = self.bytes = 0

    def __call__(self, path: Path, size: int, parsed: tuple, whole: bool) -> None:
        collection, entries, status, _reason, prepared = parsed
        if self.on_part and not whole and status == "loaded":
            self.on_part(path, collection, entries, prepared)
        if not self.progress:
            return
        self.papers += len(entries)
        self.bytes += size
        if self.bytes >= self.total_bytes or not self.bytes:
            total = self.papers
        else:
            total = max(self.papers, round(self.papers * self.total_bytes / self.bytes))
        self.progress(self.papers, total)


def _unjoined(parts: list) -> tuple[list, Counter[str], list]:
    """No ``prepared`` for a file whose parts were written one by one (``on_part``)."""
    return [], Counter(), []


#: Said of a seed file that loaded before and cannot be read now (its papers are kept).
KEPT_NOTE = "; its papers from the last good read are kept"


def _parsed(jobs: list[tuple[Path, bytes]], tally: _Tally, parts_written: bool
            ) -> contextlib.AbstractContextManager:
    """:func:`db.seeds.parallel.parse_files` of ``jobs`` (with :func:`prepare_file`), closed
    on leaving; the parsers are imported only when there is a file to parse (a sync with
    nothing to do, and ``stats``, skip their ~25 ms of imports)."""
    if not jobs:
        return contextlib.nullcontext(iter(()))
    from db.seeds.parallel import parse_files

    join = _unjoined if parts_written else join_prepared
    return contextlib.closing(parse_files(jobs, prepare_file, join, tally))


def _under(path: str, roots: list[Path]) -> bool:
    return any(path == str(r) or path.startswith(str(r).rstrip(os.sep) + os.sep) for r in roots)


def _shown(status: str) -> str:
    return "unchanged" if status == "loaded" else status


def index_is_stale(conn: sqlite3.Connection, seed_paths: list[Path]) -> bool:
    """Cheap check (stat only, nothing read) whether a sync would have anything to do."""
    found = discover(seed_paths)
    files = found.files
    known = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, size, mtime_ns FROM files")
             if not _under(r[0], found.missing_roots)}  # kept while their folder is missing
    if found.missing_roots and not files:
        return False  # nothing to load, and nothing is removed (see plan_changes)
    if set(known) != {str(f) for f in files}:
        return True
    for f in files:
        try:
            st = os.stat(f)
        except OSError:
            return True
        if known[str(f)] != (st.st_size, st.st_mtime_ns):
            return True
    return False
