"""Which seed files a library reads, remembered between commands, and which index is theirs.

The library in force is, first to last: the seed paths a command is given (``--seeds``),
``$PAPERTRAY_SEEDS``, the library remembered in ``library.json`` in the data folder (beside the
marks and ``settings.json``), and the shipped seeds. The command line remembers the seed paths it
is given (:func:`remember`) and ``papertray library PATH...`` sets them (:func:`set_library`).
Each library has its own index in the index's folder (:mod:`db.store.libraries`); the marks
file is one, shared by every library.

The remembered file is the reader's setting, not data: not in the index (a cache) nor in the
marks file (a bad one must never stand between the reader and the marks). One that cannot be
read is as if none were remembered; it is written whole or not at all.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from db.errors import LibraryError
from db.seeds.discover import shipped_seeds
from db.store import libraries
from db.store.paths import DataPaths

LIBRARY_FILE = "library.json"
#: Where the library in force came from, in the order they win.
SOURCES = ("--seeds", "PAPERTRAY_SEEDS", "remembered", "shipped")


@dataclass(frozen=True, slots=True)
class Choice:
    """The library in force: ``seeds`` (folders and files) and ``source``, one of
    :data:`SOURCES`."""

    seeds: list[Path]
    source: str


def library_file(paths: DataPaths) -> Path:
    """Where the remembered library lives: ``library.json`` beside the marks file."""
    return paths.marks.with_name(LIBRARY_FILE)


def remembered(paths: DataPaths) -> list[Path] | None:
    """The remembered seed paths (absolute), or None when none are (or the file cannot be
    read)."""
    try:
        data = json.loads(library_file(paths).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    seeds = data.get("seeds") if isinstance(data, dict) else None
    if not isinstance(seeds, list) or not seeds or not all(
            isinstance(s, str) and s for s in seeds):
        return None
    return [Path(s) for s in seeds]


def choose(given: Sequence[str | os.PathLike[str]] | None, paths: DataPaths) -> Choice:
    """The library in force (see the module's docstring). Reads the environment and
    ``library.json``; never raises."""
    if given:
        return Choice([Path(p) for p in given], "--seeds")
    env = os.environ.get("PAPERTRAY_SEEDS")
    if env and any(env.split(os.pathsep)):
        return Choice([Path(p) for p in env.split(os.pathsep) if p], "PAPERTRAY_SEEDS")
    kept = remembered(paths)
    if kept:
        return Choice(kept, "remembered")
    return Choice([shipped_seeds()], "shipped")


def open_paths(seeds: Sequence[str | os.PathLike[str]] | None,
               data_dir: str | os.PathLike[str] | None
               ) -> tuple[Choice, DataPaths, bool]:
    """The library in force for ``seeds`` (None: :func:`choose`), its files (the index its own,
    claimed in :func:`db.store.libraries.claim`; the marks the one file), and whether its index
    is new (a first build that is no news)."""
    base = DataPaths.resolve(data_dir)
    chosen = choose(seeds, base)
    slot = libraries.claim(base.index.parent, chosen.seeds)
    return chosen, DataPaths(slot.index, base.marks), slot.fresh


def describe(seeds: Sequence[str | os.PathLike[str]] | None,
             data_dir: str | os.PathLike[str] | None) -> dict:
    """The ``papertray library --json`` shape: the library in force (``seeds``, ``from``: one
    of :data:`SOURCES`), the ``remembered`` one (or None), its ``index`` file (None: not built
    in this folder yet), the ``marks`` file, and every kept index, most recently used first
    (``indexes``: ``[{"seeds", "index", "bytes", "used"`` (ISO 8601, UTC)``, "in_force"}]``)
    with the caps past which the least recently used is pruned. Reads only; never raises."""
    base = DataPaths.resolve(data_dir)
    chosen = choose(seeds, base)
    key = libraries.library_key(chosen.seeds)
    kept = libraries.kept(base.index.parent)
    mine = [k for k in kept if k.key == key]
    kept_before = remembered(base)
    return {
        "seeds": [str(p) for p in chosen.seeds], "from": chosen.source,
        "remembered": [str(p) for p in kept_before] if kept_before else None,
        "index": str(mine[0].index) if mine else None, "marks": str(base.marks),
        "indexes": [{"seeds": list(k.seeds), "index": str(k.index), "bytes": k.bytes,
                     "used": datetime.fromtimestamp(k.used, UTC).isoformat(
                         timespec="seconds"), "in_force": k.key == key} for k in kept],
        "max_indexes": libraries.MAX_INDEXES, "max_bytes": libraries.MAX_BYTES,
    }


def remember(given: Sequence[str | os.PathLike[str]], paths: DataPaths) -> list[Path] | None:
    """Remember ``given`` as the library (``papertray --seeds PATH ...``). Returns the library
    it replaced (the remembered one, or the shipped seeds) when that is news: another library
    was remembered, or papertray was used before in this data folder (its marks file exists);
    else None (nothing changed, or a first library on a fresh data folder). Seed paths that do
    not all exist (a typo) are not remembered, and a data folder that cannot be written keeps
    what it had: a setting is not worth an error."""
    roots = libraries.seed_roots(given)
    if not roots or not all(os.path.lexists(r) for r in roots):
        return None
    before = remembered(paths)
    if before is not None and [str(p) for p in before] == roots:
        return None
    used_before = before is not None or _has_marks(paths)
    try:
        _write(paths, roots)
    except OSError:
        return None
    return (before or [shipped_seeds()]) if used_before else None


def _has_marks(paths: DataPaths) -> bool:
    try:
        return paths.marks.stat().st_size > 0
    except OSError:
        return False


def set_library(given: Sequence[str | os.PathLike[str]], paths: DataPaths) -> list[Path]:
    """Remember ``given`` (``papertray library PATH...``); returns them as remembered (absolute).
    Raises :class:`LibraryError` for a path that does not exist or a data folder that cannot be
    written."""
    roots = libraries.seed_roots(given)
    for root in roots:
        if not os.path.lexists(root):
            raise LibraryError(f"{root}: no such file or folder; the library is unchanged")
    try:
        _write(paths, roots)
    except OSError as exc:
        raise LibraryError(f"cannot remember the library: {exc}") from None
    return [Path(r) for r in roots]


def forget(paths: DataPaths) -> bool:
    """Forget the remembered library (``papertray library --reset``): the shipped seeds are the
    default again. Returns whether one was remembered. Raises :class:`LibraryError` when the
    file cannot be removed."""
    try:
        library_file(paths).unlink()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise LibraryError(f"cannot forget the library: {exc}") from None
    return True


def _write(paths: DataPaths, roots: list[str]) -> None:
    """``library.json`` written whole or not at all (a temporary file renamed over it)."""
    target = library_file(paths)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    try:
        libraries.write_private(partial, json.dumps({"seeds": roots}, indent=1) + "\n")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
