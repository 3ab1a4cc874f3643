"""Marks files to carry the reader's marks to another machine (:class:`MarksTransfer`, a part
of :class:`db.Library`): marks, notes and tags (:mod:`db.marks.transfer`) and the saved
searches (:mod:`db.marks.saved`), written and merged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from db.library import views
from db.library.recovery import recovering
from db.marks import history, refind
from db.marks import saved as saved_db

if TYPE_CHECKING:  # imported by the commands that need them (a warm `stats` needs neither)
    from db.marks import transfer as marks_io


class MarksTransfer:
    """Export and import of the marks of a :class:`db.Library` (which provides ``_index``,
    ``_marks``, ``_describe`` and, of :class:`~db.library.saved.SavedSearches`, ``_seen``)."""

    def export_marks(self) -> dict:
        """Every mark (and reset to new), note, tag and saved search as the JSON data of a
        marks file; see :func:`db.marks.transfer.export_marks` (and ``"saved_searches"``:
        :meth:`db.marks.saved.SavedSearch.to_json` records)."""
        from db.marks import transfer as marks_io

        data = marks_io.export_marks(self._index())
        data["saved_searches"] = [s.to_json() for s in saved_db.all_saved(self._index(), "m.")]
        return data

    @recovering
    def import_marks(self, data: bytes) -> marks_io.ImportSummary:
        """Merge a marks file's bytes into the marks (newer time wins per paper; unknown ids
        re-attached by text or kept as orphans; saved searches whose name is free here added);
        one undoable step. Raises :class:`LibraryError` (one line) when ``data`` is no marks
        file."""
        from db.marks import transfer as marks_io

        records, annotations, saved = marks_io.read_file(data)
        self._follow_titles([*records, *annotations])
        finder = refind.Finder(self._index(), None, history.anchor, history.REATTACH_MIN_RATIO)
        summary = marks_io.import_marks(self._marks(), records, self._known, finder,
                                        annotations, self._describe)
        added, summary.saved_invalid = saved_db.merge(self._marks(), saved)
        for search in added:  # what they find here now is what they found when carried
            saved_db.opened(self._marks(), search.name, *self._seen(search))
        summary.saved = len(added)
        return summary

    def _known(self, paper_id: str) -> bool:
        return views.known(self._index(), paper_id)

    def _follow_titles(self, records: list) -> None:
        """Give each record of a title-only paper that this index has not (a catalogue's title,
        marked where the catalogue was alone) the id of the paper that holds its title here:
        the title found its abstract here, and that paper took the title's place."""
        from db.seeds.formats import title_id

        wanted = {r["title"]: r for r in records if isinstance(r, dict)
                  and isinstance(r.get("id"), str) and isinstance(r.get("title"), str)
                  and not self._known(r["id"])}
        if not wanted:
            return
        holders: dict[str, str] = {}
        for paper_id, title in self._index().execute(
                "SELECT id, title FROM papers WHERE title IS NOT NULL"):
            if title in wanted:
                holders[title_id(title)] = paper_id
        for record in records:
            if isinstance(record, dict) and record.get("id") in holders:
                record["id"] = holders[record["id"]]
