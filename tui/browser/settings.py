"""The browser's remembered settings: a small JSON file in the data folder, beside the marks.

Not in the index (a rebuild would forget them) and not in the marks file (they are not the
reader's data, and a bad one must never stand between the reader and the marks). A settings file
that cannot be read is ignored with a one-line notice; writing is atomic (temp file + rename).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from db.models import MAX_QUERY_CHARS, SORTS
from db.text import cut_at_word
from tui.browser.display import query_safe

SETTINGS_FILE = "settings.json"
_PAPER_ID = re.compile(r"[0-9a-f]{16,64}")
FILTERS = ("all", "new", "to-read", "read", "dismissed")
LAYOUTS = ("auto", "stacked", "side")


@dataclass(slots=True)
class Settings:
    """``filter``: the status filter (all/new/to-read/read/dismissed); ``theme``: a Textual
    theme name (None: Textual's default); ``layout``: ``auto`` (side by side from 120
    columns), ``stacked`` or ``side``; ``sort``: the sort order (:data:`db.models.SORTS`); the
    session: ``query`` (the search bar's) and ``cursor`` (the id of the paper under the cursor,
    or None)."""

    filter: str = "all"
    theme: str | None = None
    layout: str = "auto"
    sort: str = "relevance"
    query: str = ""
    cursor: str | None = None

    @classmethod
    def load(cls, path: Path) -> tuple[Settings, str]:
        """The settings in ``path`` and a notice ("" when all is well). A missing or unreadable
        file gives the defaults quietly; a malformed one gives the defaults and says so. Values
        that are not valid are dropped one by one (the others are kept)."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError:  # missing, or a folder that cannot be used: the library says that
            return cls(), ""
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # [[[[…: too deep
            return cls(), f"settings file {path.name} ignored ({type(exc).__name__}); " \
                          "defaults are used and it is rewritten on the next change"
        if not isinstance(data, dict):
            return cls(), f"settings file {path.name} ignored (not a JSON object)"
        settings = cls()
        if data.get("filter") in FILTERS:
            settings.filter = data["filter"]
        if isinstance(data.get("theme"), str) and data["theme"]:
            settings.theme = data["theme"][:100]
        if data.get("layout") in LAYOUTS:
            settings.layout = data["layout"]
        if data.get("sort") in SORTS:
            settings.sort = data["sort"]
        notice = ""
        if isinstance(data.get("query"), str):
            settings.query, notice = _restored_query(data["query"])
        if isinstance(data.get("cursor"), str) and _PAPER_ID.fullmatch(data["cursor"]):
            settings.cursor = data["cursor"]
        return settings, notice

    def save(self, path: Path) -> bool:
        """Write the settings to ``path`` atomically; False (and nothing raised) when the folder
        cannot be written: a setting is not worth an error."""
        tmp = path.with_name(path.name + ".tmp")
        try:
            tmp.write_text(json.dumps(asdict(self), indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()
            return False
        return True


def _restored_query(query: str) -> tuple[str, str]:
    """The session's query as the search bar takes it: whole up to
    :data:`db.models.MAX_QUERY_CHARS` (what a search reads), past it cut after a whole word,
    with a notice that says so ("" when it is whole)."""
    query = query_safe(query)
    kept = cut_at_word(query, MAX_QUERY_CHARS)
    if kept == query:
        return query, ""
    return kept, (f"the query restored was cut to its first {len(kept)} characters (whole "
                  f"words; a search reads at most {MAX_QUERY_CHARS})")


def settings_path(marks_file: Path) -> Path:
    """Where the settings live: beside ``marks.sqlite`` (the data folder)."""
    return marks_file.with_name(SETTINGS_FILE)
