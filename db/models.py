"""Small records shared by the data layer and both front ends (no I/O). They sit above the seeds
stage: a paper's JSON gives its abstract rendered by :mod:`db.seeds.render`."""

from __future__ import annotations

from dataclasses import dataclass, field

from db.errors import LibraryError as LibraryError  # the records and their error, from one place

#: The statuses a paper can have. ``new`` means "no mark row"; the three decisions after it are
#: stored (``dismissed``: not interested). A paper with a decision is not new.
STATUSES = ("new", "to-read", "read", "dismissed")
#: The statuses a mark row holds: every status but ``new``.
DECIDED = STATUSES[1:]
#: The statuses as a people's list, for errors: "new, to-read, read or dismissed".
STATUS_LIST = ", ".join(STATUSES[:-1]) + " or " + STATUSES[-1]

#: The orders a search's hits can be listed in (db.search.order): relevance (best first; a query
#: of filters alone lists seed order), seed order, name (the title, else the name; A to Z),
#: year (newest first), status (new first) and when marked (the latest first).
SORTS = ("relevance", "seed", "name", "year", "status", "marked")

#: Characters of the id shown to people (like git's short hashes). Prefixes are accepted as input.
SHORT_ID_LEN = 8


@dataclass(frozen=True, slots=True)
class Source:
    """Where a paper came from: the seed file (as shown to people) and its 1-based position."""

    file: str
    position: int


@dataclass(frozen=True, slots=True)
class Hit:
    """One paper as the results table and ``papertray search --json`` show it.

    ``score`` orders hits best first, higher is better: negated bm25, or the score of
    :mod:`db.search.rerank` (0 to ~1.5) for re-ranked and partial matches; 0.0 for list order.
    ``title`` is None when the seed gives none; ``name`` is None when the abstract names no method.
    ``tags`` are the reader's tags of the paper (from the marks file), sorted.
    """

    id: str
    name: str | None
    title: str | None
    headline: str
    status: str
    score: float
    collection: str
    code_url: str | None
    sources: tuple[Source, ...] = ()
    tags: tuple[str, ...] = ()

    @property
    def short_id(self) -> str:
        return self.id[:SHORT_ID_LEN]

    @property
    def label(self) -> str:
        """What identifies the paper in one word: its title, else its name, else its short id."""
        return self.title or self.name or self.short_id

    def to_json(self) -> dict:
        """The JSON shape of a hit (a contract: documented in docs/cli.md)."""
        return {
            "id": self.id,
            "short_id": self.short_id,
            "name": self.name,
            "title": self.title,
            "headline": self.headline,
            "status": self.status,
            "score": round(self.score, 6),
            "collection": self.collection,
            "code_url": self.code_url,
            "sources": [{"file": s.file, "position": s.position} for s in self.sources],
            "tags": list(self.tags),
        }


@dataclass(frozen=True, slots=True)
class Paper(Hit):
    """A whole paper: a hit plus the abstract (as stored, with Markdown/LaTeX) and all its links.

    ``abstract_source`` is the text as it stands in the seed file (controls removed);
    ``abstract_markup`` is the same with PDF line-break hyphenation repaired — front ends render it
    with :func:`db.seeds.render.render_segments`. ``note`` is the reader's note ("" when none).
    with :func:`db.seeds.render.render_segments`. Both are "" for a paper known only by its title.
    ``authors``, ``year`` and ``venue`` come from structured seeds (JSON, CSV, BibTeX) only.
    """

    abstract_source: str = ""
    abstract_markup: str = ""
    urls: tuple[str, ...] = ()
    note: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None

    def to_json(self) -> dict:
        from db.seeds.render import render_plain

        data = Hit.to_json(self)
        data["abstract"] = render_plain(self.abstract_markup)
        data["abstract_source"] = self.abstract_source
        data["urls"] = list(self.urls)
        data["note"] = self.note
        data["authors"] = list(self.authors)
        data["year"] = self.year
        data["venue"] = self.venue
        return data


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One page of hits for a query.

    ``total`` counts every matching paper (not only this page). ``effective_query`` is what was run
    after corrections and relaxations; ``notice`` is a one-line explanation when the query was
    changed, or "" when it ran as typed. ``terms`` are the folded words to highlight in
    abstracts (``word*``: any word starting with it), found by
    :func:`db.search.highlight.match_spans`. ``sort`` is the order of the hits (:data:`SORTS`).
    ``hidden`` counts the papers the query finds that
    the status filter (``status`` of :meth:`db.Library.search`, not an ``is:`` of the query)
    leaves out, so that a front end can say so, when asked (``hidden=True``); 0 with no filter
    or no words.
    """

    query: str
    effective_query: str
    notice: str
    total: int
    hits: list[Hit]
    terms: tuple[str, ...] = ()
    sort: str = "relevance"
    hidden: int = 0

    def to_json(self) -> dict:
        return {
            "query": self.query,
            "effective_query": self.effective_query,
            "notice": self.notice,
            "total": self.total,
            "sort": self.sort,
            "hidden": self.hidden,
            "hits": [h.to_json() for h in self.hits],
        }


@dataclass(frozen=True, slots=True)
class FileReport:
    """What a sync did with one seed file. ``status`` is loaded|unchanged|removed|empty|error."""

    path: str
    status: str
    entries: int = 0
    reason: str = ""

    def to_json(self) -> dict:
        return {"path": self.path, "status": self.status, "entries": self.entries,
                "reason": self.reason or None}


@dataclass(slots=True)
class SyncReport:
    """What a sync changed. Counts are papers; ``seconds`` is wall time of the whole sync.
    ``reattached`` counts the papers that took marks, notes or tags from an edited version
    (moved, copied or merged: docs/seeds.md)."""

    papers: int = 0
    added: int = 0
    removed: int = 0
    changed: int = 0
    reattached: int = 0
    orphans: int = 0
    #: the catalogues' entries (seed files of titles without abstracts) in the library, by what
    #: their title found: their abstract, two it cannot tell apart, or none (docs/seeds.md)
    matched: int = 0
    ambiguous: int = 0
    unmatched: int = 0
    seconds: float = 0.0
    files: list[FileReport] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    @property
    def did_change(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.reattached)

    @property
    def problems(self) -> list[FileReport]:
        return [f for f in self.files if f.status in ("empty", "error")]

    def to_json(self) -> dict:
        return {
            "papers": self.papers, "added": self.added, "removed": self.removed,
            "changed": self.changed, "reattached": self.reattached, "orphans": self.orphans,
            "matched": self.matched, "ambiguous": self.ambiguous, "unmatched": self.unmatched,
            "seconds": round(self.seconds, 4), "files": [f.to_json() for f in self.files],
            "notices": list(self.notices),
        }


@dataclass(frozen=True, slots=True)
class MarkChange:
    """One change made by :meth:`db.Library.set_status`, ``set_note``, ``tag`` or ``undo``.

    ``kind`` says what changed: ``mark`` (``old``/``new`` are statuses), ``note`` (the old and
    new note, "" for none) or ``tag`` (``new`` is the tag added, ``old`` the tag removed).
    """

    paper_id: str
    old: str
    new: str
    kind: str = "mark"

    def to_json(self) -> dict:
        return {"id": self.paper_id, "kind": self.kind, "old": self.old, "new": self.new}
