"""Where papertray keeps its two files, and how they are created (owner-only permissions)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INDEX_FILE = "index.sqlite"
MARKS_FILE = "marks.sqlite"


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


def private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 if it does not exist (SQLite then keeps the mode)."""
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
