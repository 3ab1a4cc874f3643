"""A papers file of ``papertray export --format json`` read as a marks file: its papers'
statuses, notes and tags, so that ``papertray marks import`` carries them too.

The export has no time per mark, so each record takes the file's ``exported_at``: a mark made
here after the export wins over it, one made before loses, as between two marks files. A paper
listed as ``new`` was never marked there (or was set back before the export, which the export
cannot tell): it is no record, so it never undoes a mark made here. An export with no
``exported_at`` (papertray's before it wrote one, or ``papertray search --json``) counts as
older than every mark here: its records fill the papers unmarked here and change no other.
"""

from __future__ import annotations

from db.marks.history import anchor

#: The time of the records of an export that gives none: before every mark made anywhere.
UNDATED = "1970-01-01T00:00:00Z"


def is_export(doc: object) -> bool:
    """Whether JSON data is an export of papers (``{"query", "total", "hits": [...]}``)."""
    return isinstance(doc, dict) and isinstance(doc.get("hits"), list) and "format" not in doc


def marks_of(doc: dict) -> tuple[list, list]:
    """``(marks, annotations)`` records (the shapes of ``papertray marks export``) of an
    export's papers; a paper is matched by its id, else by the start of its abstract or its
    title, as the marks file's records are."""
    stamp = doc.get("exported_at") if "exported_at" in doc else UNDATED
    marks, annotations = [], []
    for hit in doc["hits"]:
        if not isinstance(hit, dict):
            continue
        text = hit.get("abstract_source") or hit.get("title")
        known = {"id": hit.get("id"), "title": hit.get("title"),
                 "label": hit.get("name") or hit.get("headline"),
                 "anchor": anchor(text) if isinstance(text, str) and text else None}
        if hit.get("status") != "new":
            marks.append({**known, "status": hit.get("status"), "updated_at": stamp})
        if hit.get("note") or hit.get("tags"):
            annotations.append({**known, "note": hit.get("note") or "",
                                "note_updated_at": stamp, "tags": hit.get("tags") or []})
    return marks, annotations
