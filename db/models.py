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

#: Words of a title-less paper's first sentence that its scholarly search link looks for (a
#: title is 8-15 words; a search engine reads no more than about 30)
SEARCH_WORDS = 16

#: Characters of a query a search reads (db.search.query cuts longer input: no one types more,
#: and FTS5's cost grows with it); also the most a query kept (history, saved, session) holds.
MAX_QUERY_CHARS = 2000

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
    ``tags`` are the reader's tags of the paper (from the marks file), sorted. ``authors``,
    ``year`` and ``venue`` come from structured seeds (JSON, CSV, BibTeX) only.
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
    authors: tuple[str, ...] = ()
    year: int | None = None
    venue: str | None = None

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
            "authors": list(self.authors),
            "year": self.year,
            "venue": self.venue,
        }


@dataclass(frozen=True, slots=True)
class Paper(Hit):
    """A whole paper: a hit plus the abstract (as stored, with Markdown/LaTeX) and all its links.

    ``abstract_source`` is the text as it stands in the seed file (controls removed);
    ``abstract_markup`` is the same with PDF line-break hyphenation repaired — front ends render it
    with :func:`db.seeds.render.render_segments`. ``note`` is the reader's note ("" when none).
    with :func:`db.seeds.render.render_segments`. Both are "" for a paper known only by its title.
    ``decision`` (the venue's: "Oral", "Poster"), ``track``,
    ``keywords``, ``area`` and ``own_links`` (``(kind, url)`` as the record gives them) come
    from structured seeds (JSON, CSV, BibTeX) only; :attr:`links` orders every link.
    """

    abstract_source: str = ""
    abstract_markup: str = ""
    urls: tuple[str, ...] = ()
    note: str = ""
    decision: str | None = None
    track: str | None = None
    keywords: tuple[str, ...] = ()
    area: str | None = None
    own_links: tuple[tuple[str, str], ...] = ()

    @property
    def links(self) -> list[tuple[str, str]]:
        """Every link of the paper as ``(kind, url)``, the paper's own link first: the record's
        own (``paper``, ``doi``, ``arxiv``, ``openreview``, ``pdf`` in that order), then its code
        (``code``: the record's, else a code host named in the abstract), the abstract's other
        links (``project``), and last a scholarly search for its title, else the first
        :data:`SEARCH_WORDS` words of its first sentence (``search``, Google Scholar). ``o`` in
        the browser opens the first."""
        from db.seeds.entry import LINK_KINDS

        own = sorted((link for link in self.own_links if link[0] != "code"),
                     key=lambda link: LINK_KINDS.index(link[0]))
        found = [*own, *(("code", url) for url in [self.code_url] if url)]
        found += [("project", url) for url in self.urls
                  if url != self.code_url and all(url != u for _k, u in own)]
        words = self.title or self.headline or self.name or ""
        if words:
            from urllib.parse import quote_plus

            from db.seeds.render import render_plain

            words = " ".join(render_plain(words).split()[:SEARCH_WORDS])
            found.append(("search", "https://scholar.google.com/scholar?q=" + quote_plus(words)))
        return list(dict.fromkeys(found))

    def to_json(self) -> dict:
        from db.seeds.render import render_plain

        data = Hit.to_json(self)
        data["abstract"] = render_plain(self.abstract_markup)
        data["abstract_source"] = self.abstract_source
        data["urls"] = list(self.urls)
        data["note"] = self.note
        data["decision"] = self.decision
        data["track"] = self.track
        data["keywords"] = list(self.keywords)
        data["area"] = self.area
        data["links"] = [{"kind": kind, "url": url} for kind, url in self.links]
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
