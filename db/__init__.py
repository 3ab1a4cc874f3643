"""papertray's data layer: seed files, the SQLite FTS5 index, search and marks.

Never imports Textual (an import-linter contract and a test prove it). Front ends use
:class:`Library` and the records in :mod:`db.models`.
"""

from db.library.api import Library
from db.models import (
    STATUSES,
    FileReport,
    Hit,
    LibraryError,
    MarkChange,
    Paper,
    SearchResult,
    Source,
    SyncReport,
)
from db.seeds.discover import default_seed_paths

__all__ = [
    "STATUSES", "FileReport", "Hit", "Library", "LibraryError", "MarkChange", "Paper",
    "SearchResult", "Source", "SyncReport", "default_seed_paths",
]
