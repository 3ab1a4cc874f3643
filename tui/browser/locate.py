"""What the table lists besides the query (:class:`Listing`: the status filter and the sort
order), and finding the window of hits that holds a paper (:func:`locate`), for the search
workers of :mod:`tui.browser.workers`."""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

from db import Library, SearchResult
from tui.browser.messages import Follow


class Listing(NamedTuple):
    """What the table lists besides the query: the status filter (all, or a status) and the
    sort order (one of :data:`db.models.SORTS`)."""

    status: str = "all"
    sort: str = "relevance"

    def search(self, lib: Library, query: str, limit: int, offset: int) -> SearchResult:
        """One page of ``query``'s hits as typed in the search bar (its last word a prefix)."""
        return lib.search(query, status_argument(self.status), limit, offset, typing=True,
                          sort=self.sort)



def locate(lib: Library, query: str, listing: Listing, page: int, offset: int,
            follow: Follow) -> tuple[SearchResult, int, str | None]:
    """The window of ``page`` hits that holds the paper ``follow`` finds (rows come and go above
    the cursor paper when the index changes, and an edited paper may have moved): ``(result,
    its offset, that paper)``, or the window at ``offset`` and None when none is there. The hits
    from a page before ``offset`` to two pages after it are read first (one search); the cursor
    paper (or its edited version: :meth:`db.Library.successor`) is looked for further
    (:func:`_position`) only when it is still in the index and not among them."""
    start = max(0, offset - page)
    wide = listing.search(lib, query, 3 * page, start)
    rows: dict[str, int] = {}
    for row, hit in enumerate(wide.hits):
        rows.setdefault(hit.id, start + row)
    wanted = list(follow.ids)
    if wanted and wanted[0] not in rows:
        now = lib.successor(wanted[0], follow.text)
        if now is not None and now not in rows:
            rows.update(_position(lib, query, listing, now, wide.total))
        wanted.insert(0, now or wanted[0])
    found = next((paper_id for paper_id in wanted if paper_id in rows), None)
    at = offset
    if found is not None and not offset <= rows[found] < offset + page:
        at = max(0, rows[found] - page // 2)
    end = start + len(wide.hits)
    if start <= at and (at + page <= end or end >= wide.total):
        return dataclasses.replace(wide, hits=wide.hits[at - start:at - start + page]), at, found
    return listing.search(lib, query, page, at), at, found


#: Hits read at once while looking for a paper beyond the window (:func:`_position`).
LOCATE_CHUNK = 2000


def _position(lib: Library, query: str, listing: Listing, paper_id: str,
              total: int) -> dict[str, int]:
    """``{paper_id: its position among the hits}``, or {} when the query does not find it;
    read :data:`LOCATE_CHUNK` hits at a time."""
    for at in range(0, total, LOCATE_CHUNK):
        ids = [h.id for h in listing.search(lib, query, LOCATE_CHUNK, at).hits]
        if paper_id in ids:
            return {paper_id: at + ids.index(paper_id)}
    return {}


def status_argument(status: str) -> str | None:
    """The ``status`` argument of :meth:`db.Library.search` for a filter ("all": None)."""
    return None if status == "all" else status
