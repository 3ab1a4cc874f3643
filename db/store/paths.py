"""Where papertray keeps its two files, that everything it writes is its owner's only
(:func:`write_privately`), and how files the reader asks for are written."""

from __future__ import annotations

import errno
import os
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from db.store.files import refuse_database

INDEX_FILE = "index.sqlite"
MARKS_FILE = "marks.sqlite"
#: The file mode bits no file or folder papertray makes ever has: none for the group or others.
PRIVATE_UMASK = 0o077


def write_privately() -> None:
    """Make every file and folder this process and its children create from now on readable
    and writable by their owner only (0600 and 0700), whatever the user's umask.

    Both front ends call it as they start, before anything is written: the index and its
    ``-wal``, ``-shm`` and journal, the marks and their backups, the dictionary, the settings,
    exports, temporary files renamed into place and the folders are then all private, however
    they are made (SQLite, ``open``, ``os.replace`` of a temporary file, worker processes). It
    sets the process's umask: a stricter umask the user has is kept.
    """
    current = os.umask(PRIVATE_UMASK)
    os.umask(current | PRIVATE_UMASK)


@dataclass(frozen=True, slots=True)
class DataPaths:
    """The index (a disposable cache) and the marks (the user's data), each in its own folder."""

    index: Path
    marks: Path

    @classmethod
    def resolve(cls, data_dir: str | os.PathLike[str] | None = None) -> DataPaths:
        """``data_dir`` (or ``$PAPERTRAY_DATA_DIR``) holds both files; otherwise the index goes to
        platformdirs' ``user_cache_dir("papertray")`` and the marks to ``user_data_dir``."""
        chosen = data_dir or os.environ.get("PAPERTRAY_DATA_DIR")
        if chosen:
            base = Path(chosen).expanduser()
            return cls(base / INDEX_FILE, base / MARKS_FILE)
        import platformdirs

        return cls(
            Path(platformdirs.user_cache_dir("papertray")) / INDEX_FILE,
            Path(platformdirs.user_data_dir("papertray")) / MARKS_FILE,
        )

    def make_dirs(self) -> None:
        """Create both folders readable by their owner only (0700). Raises OSError."""
        for folder in {self.index.parent, self.marks.parent}:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)


@contextmanager
def writing(path: Path, new: bool = False) -> Iterator[TextIO]:
    """A text file to write ``path`` with: a regular file is written to a ``.partial`` file of
    this thread beside it (two writers of one path never share one) and renamed over it at the
    end, so a failed write never leaves half a file; with ``new`` it is linked to ``path``
    instead, which fails (FileExistsError) when ``path`` exists by then. A pipe, a terminal
    or a device (``/dev/stdout``, ``>(gzip > x.gz)``) is written directly — renaming over it
    would put a regular file where the device was. A symlink's target is replaced, not the link.
    Raises OSError, and :class:`~db.models.LibraryError` for a database file of this process
    (:func:`db.store.files.refuse_database`)."""
    refuse_database(path, "a file to write")
    if new and os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(path))
    try:
        special = not stat.S_ISREG(path.stat().st_mode)
    except FileNotFoundError:
        special = False
    if special:
        with path.open("w", encoding="utf-8", newline="") as out:
            yield out
        return
    target = path.resolve() if path.is_symlink() else path
    partial = target.with_name(f"{target.name}.{os.getpid()}-{threading.get_ident()}.partial")
    try:
        with partial.open("w", encoding="utf-8", newline="") as out:
            yield out
        if new:
            _place_new(partial, target)
        else:
            partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)


def _place_new(partial: Path, target: Path) -> None:
    """Put the written ``partial`` at ``target`` unless a file is there (FileExistsError): a
    hard link, which fails when it is; on a file system without them (FAT), a look first."""
    try:
        os.link(partial, target)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(target):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target)) from None
        partial.replace(target)
