"""The messages the thread workers post to the app (:mod:`tui.browser.workers`): each carries one
answer of the library, and the app's handlers own every state change they bring."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

from textual.message import Message

from db import Library, MarkChange, Paper, SearchResult, SyncReport


class WorkerMessage(Message):
    """A worker's message to the app. The app's handler of one is :func:`while_running`: the
    message may arrive while the app closes, when the widgets it would update are gone."""


def while_running(handler: Callable[..., None]) -> Callable[..., None]:
    """A handler of the app (under ``@on(...)``) that does nothing once the app has stopped
    running: the screens are taken down before the app's own queue stops, so a message still
    in it (a worker's answer, the table's cursor moved by a last refill) finds no widgets."""

    @functools.wraps(handler)  # Textual reads the handler's signature through the wrapper
    def guarded(app, *message: Message) -> None:
        if app.is_running:
            handler(app, *message)

    return guarded


class LibraryOpened(WorkerMessage):
    """The library is open; ``stale`` says whether the seed files changed since the last sync."""

    def __init__(self, library: Library, stale: bool, counts: dict[str, int],
                 collections: dict[str, int], problems: list[dict],
                 index_version: int | None = None, notices: list[str] | None = None,
                 marks_version: int | None = None) -> None:
        super().__init__()
        self.lib, self.stale, self.counts = library, stale, counts
        self.collections, self.problems = collections, problems
        self.index_version, self.marks_version = index_version, marks_version
        """The versions of the index and the marks file read before the counts: a change
        made after them is seen by the next poll."""
        self.notices = notices or []
        """What the library did as it opened (rebuilt a damaged marks file...), one line each."""


class SyncProgressed(WorkerMessage):
    """``done`` of ``total`` papers parsed by the running sync (:data:`db.index.sync.Progress`)."""

    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done, self.total = done, total

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, SyncProgressed)


class SyncFinished(WorkerMessage):
    """A sync ended: its report and the new counts, or ``error`` (and no counts) if it failed."""

    def __init__(self, report: SyncReport | None, counts: dict[str, int],
                 collections: dict[str, int], error: str = "",
                 index_version: int | None = None) -> None:
        super().__init__()
        self.report, self.counts, self.collections, self.error = report, counts, collections, error
        self.index_version = index_version


class SeedsChanged(WorkerMessage):
    """The poll saw a seed file added, removed or changed."""


class MarksChanged(WorkerMessage):
    """The poll saw the marks file at ``version`` (:meth:`db.Library.marks_version`), not the
    one the app knew; ``counts`` are the status counts now."""

    def __init__(self, version: int, counts: dict[str, int]) -> None:
        super().__init__()
        self.version, self.counts = version, counts


class IndexChanged(WorkerMessage):
    """The poll saw the index at ``version`` (:meth:`db.Library.index_version`), not the one
    the app knew: another papertray synced the seed files; the counts are those now."""

    def __init__(self, version: int, counts: dict[str, int],
                 collections: dict[str, int]) -> None:
        super().__init__()
        self.version, self.counts, self.collections = version, counts, collections


class LibraryNotices(WorkerMessage):
    """The poll found that the library did something on its own meanwhile (rebuilt an index
    another process damaged): one line each."""

    def __init__(self, notices: list[str]) -> None:
        super().__init__()
        self.notices = notices


class Follow(NamedTuple):
    """Where the cursor goes once the index has changed: to ``ids[0]`` (the paper it was on),
    or to its edited version (found by ``text``, the abstract or title it had:
    :meth:`db.Library.successor`), else to the first of the other ``ids`` still found."""

    ids: tuple[str, ...]
    text: str = ""


class PageLoaded(WorkerMessage):
    """The answer to search request number ``request``: the window of hits at ``offset``.

    ``focus`` (a paper id or a row index, -1 = last) says where the cursor goes; ``fallback``
    is the row when the paper is not in the window. (A search asked with a :class:`Follow` for
    ``focus`` is answered with the window holding the paper it finds, that id as ``focus``:
    :func:`tui.browser.workers._locate`.) ``result`` is None when the request was
    superseded before it ran (the app drops such an answer unseen).
    """

    def __init__(self, request: int, offset: int, result: SearchResult | None,
                 focus: str | int | None, fallback: int = 0, paper: Paper | None = None) -> None:
        super().__init__()
        self.request, self.offset, self.result = request, offset, result
        self.focus, self.fallback = focus, fallback
        self.paper = paper
        """The whole paper the cursor will be on (read with the hits, so that the panel is
        drawn in the same frame as the table), or None: then the app loads it."""


class NoNewPaper(WorkerMessage):
    """``n``/``N`` found no new paper after (``step`` 1) or before (-1) the cursor."""

    def __init__(self, request: int, step: int) -> None:
        super().__init__()
        self.request, self.step = request, step


class HiddenCounted(WorkerMessage):
    """``hidden`` papers found by the query of search ``request`` are left out by its status
    filter."""

    def __init__(self, request: int, hidden: int) -> None:
        super().__init__()
        self.request, self.hidden = request, hidden


class PaperLoaded(WorkerMessage):
    """The whole paper ``paper_id`` (``paper`` is None if it left the library meanwhile)."""

    def __init__(self, paper_id: str, paper: Paper | None) -> None:
        super().__init__()
        self.paper_id, self.paper = paper_id, paper


class MarksSaved(WorkerMessage):
    """``done`` queued mark operations were written (the oldest ``done`` not yet reported).

    ``statuses`` is what the marks file holds, once they are written, for every paper they
    touched (papers no longer in the index are left out); ``undone`` has one list of changes
    per undo, in order (empty when there was nothing to undo); ``counts`` are the status counts
    after the writes; ``errors`` one line each; ``version`` the marks file's version after them.
    """

    def __init__(self, done: int, statuses: dict[str, str], undone: list[list[MarkChange]],
                 counts: dict[str, int], errors: list[str], version: int = 0,
                 annotated: list[MarkChange] | None = None, version_before: int = 0,
                 written: int = 0) -> None:
        super().__init__()
        self.done, self.statuses, self.undone = done, statuses, undone
        self.counts, self.errors, self.version = counts, errors, version
        self.annotated = annotated or []
        """Notes and tags changed by these steps (undos included): the rows must be read anew."""
        self.version_before, self.written = version_before, written
        """The marks file's version before the writes, and the history steps they wrote: when
        ``version - version_before == written``, no other process wrote in between."""

    @property
    def only_ours(self) -> bool:
        """Whether the marks file changed only by these writes since ``version_before``."""
        return self.version - self.version_before == self.written


class Exported(WorkerMessage):
    """The papers of a query were written to ``path`` (``count`` of them; none: no file, path
    ""), or ``error`` says why not (one line)."""

    def __init__(self, path: str, count: int, error: str = "") -> None:
        super().__init__()
        self.path, self.count, self.error = path, count, error


class KeysWelcome(Message):
    """Posted to the app when a state keys wait for became ready (a prompt that held keys,
    :attr:`TextPrompt.holds_keys`, has opened or closed): the keys queued meanwhile may go
    on."""
