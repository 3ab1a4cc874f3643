"""Finding seed files: the folders and files a reader names, the shipped seeds, and what in them
cannot be read (reported by name, never fatal).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from db.store.files import OwnFiles, data_folders, identity

#: File endings read as seed files. Other files in a seed folder are ignored (a README, say).
SEED_SUFFIXES = (".txt", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ".bib",
                 ".json.gz", ".jsonl.gz", ".ndjson.gz", ".csv.gz", ".tsv.gz")


def shipped_seeds() -> Path:
    """The folder of seed files shipped with papertray (inside the wheel, or the checkout's)."""
    package = Path(__file__).resolve().parents[1]  # db/ (pyproject: seeds/ -> db/shipped_seeds)
    packaged = package / "shipped_seeds"
    return packaged if packaged.is_dir() else package.parent / "seeds"


@dataclass(slots=True)
class Discovery:
    """What :func:`discover` found: seed files, problems, and seed paths that are missing."""

    files: list[Path]
    problems: list[tuple[str, str]]  # (path, one-line reason)
    missing_roots: list[Path]  # given seed paths that do not exist (now)


def discover(paths: list[Path]) -> Discovery:
    """Expand seed paths (folders and files) into the seed files to read, sorted, no duplicates.

    Folders are searched recursively for :data:`SEED_SUFFIXES`; hidden files and folders are
    skipped, and so are papertray's own data folders (:func:`db.store.files.data_folders`). A
    file named explicitly is read whatever its ending. Only regular files are read: a pipe,
    socket or device would block or never end, so it is reported as a problem, like a broken
    link and a path that does not exist. Nothing is opened here (stat only).
    """
    files: dict[str, Path] = {}
    found = Discovery([], [], [])
    own, own_files = data_folders(), OwnFiles()
    for given in paths:
        path = Path(os.path.expanduser(given))
        if path.is_dir() and (identity(path) in own or (
                path.name in ("backups", "exports") and identity(path.parent) in own)):
            found.problems.append((str(path), "papertray's own data folder, not seed files"))
        elif path.is_dir():
            for root, dirs, names in os.walk(path, followlinks=False):
                if identity(root) in own:
                    dirs[:] = []
                    continue
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in names:
                    if not name.startswith(".") and name.lower().endswith(SEED_SUFFIXES):
                        _add(Path(root) / name, files, found, own_files)
        elif path.exists() or path.is_symlink():
            _add(path, files, found, own_files)
        else:
            found.problems.append((str(path), "no such file or folder"))
            found.missing_roots.append(path.absolute())
    found.files = [files[k] for k in sorted(files)]
    return found


def _add(path: Path, files: dict[str, Path], found: Discovery, own_files: OwnFiles) -> None:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:  # bytes that are no UTF-8 in the name (a file from another OS)
        shown = str(path).encode("utf-8", "replace").decode("utf-8")
        found.problems.append((shown, "the file name is not UTF-8; rename the file"))
        return
    try:
        mode = path.stat().st_mode
    except OSError:
        found.problems.append((str(path), "broken symbolic link" if path.is_symlink()
                               else "cannot be read"))
        return
    if stat.S_ISREG(mode):
        if own_files.database_of(path) is not None:  # (opening it would drop our locks)
            found.problems.append((str(path), "papertray's own database file, not a seed file"))
            return
        files.setdefault(str(path.absolute()), path.absolute())
    elif not stat.S_ISDIR(mode):
        found.problems.append((str(path), "not a regular file (a pipe, socket or device)"))


def default_seed_paths() -> list[Path]:
    """``$PAPERTRAY_SEEDS`` (paths separated by ``os.pathsep``), else the shipped seeds."""
    env = os.environ.get("PAPERTRAY_SEEDS")
    if env:
        return [Path(p) for p in env.split(os.pathsep) if p]
    return [shipped_seeds()]
