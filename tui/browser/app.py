"""The papertray browser: search, read the abstract, mark it with one key, move on.

:func:`make_app` builds the app (the CLI and the tests both use it); :func:`run_app` runs it.
:class:`PapertrayApp` holds the layout, the bindings and the help, and puts the parts of the
browser together, one job each: the keys typed ahead (:mod:`~tui.browser.keys`), searching
(:mod:`~tui.browser.searching`), marks (:mod:`~tui.browser.marking`), the library's syncing
(:mod:`~tui.browser.syncing`), frames (:mod:`~tui.browser.frames`), the reader's tools
(:mod:`~tui.browser.reader`) and the reading view (:mod:`~tui.browser.reading`). Widgets get
data from the app and say what the reader wants with messages; every library call runs in a
thread worker (:mod:`~tui.browser.workers`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.css.query import NoMatches
from textual.driver import Driver
from textual.filter import LineFilter
from textual.worker import Worker, WorkerState

from db.store.paths import DataPaths, write_privately
from db.text import one_line
from tui.actions import ACTIONS, APP_ACTIONS
from tui.browser.ascii import NoColour, install_scroll_bars, key_name, without_colour
from tui.browser.bindings import bindings_of, in_force
from tui.browser.commands import (
    AsciiCommandPalette,
    SavedSearchCommands,
    SortCommands,
    TriageCommands,
    TriagePalette,
)
from tui.browser.display import said
from tui.browser.frames import FramesApp
from tui.browser.keys import KeysApp
from tui.browser.links import LinkTools
from tui.browser.marking import MarkingApp
from tui.browser.reader import WIDE_AT, ReaderTools
from tui.browser.reading import ReadingApp
from tui.browser.saving import SavingApp
from tui.browser.screens import HELP_CLOSE_KEYS, HelpScreen, key_help
from tui.browser.searching import SearchingApp
from tui.browser.selecting import SelectingApp
from tui.browser.syncing import SyncingApp
from tui.browser.terminal import paste_safe
from tui.browser.widgets import (
    AbstractPanel,
    KeysFooter,
    ResultsPane,
    ResultsTable,
    SearchBar,
    StatusHeader,
    SyncProgress,
)
from tui.browser.workers import LibraryWorkers
from tui.glyphs import ASCII_GLYPHS, glyphs_for, wants_ascii
from tui.keymap import load_keymap

#: Hits the table holds at most (or twice the terminal's height, if more); more are loaded as
#: the cursor moves. Textual's DataTable measures every row it is given (200 rows cost ~25 ms
#: of each keystroke at 87k papers), so it gets a few screens, not more.
PAGE_SIZE = 60
#: Seconds after the last keystroke before the search runs.
DEBOUNCE_S = 0.08
#: Seconds between two checks for changed seed files.
POLL_S = 2.0


class PapertrayApp(ReadingApp, LinkTools, ReaderTools, SavingApp, SelectingApp, LibraryWorkers,
                   MarkingApp, SyncingApp, SearchingApp, KeysApp, FramesApp):
    """The browser. Build it with :func:`make_app`."""

    CSS_PATH = "papertray.tcss"
    TITLE = "papertray"
    HORIZONTAL_BREAKPOINTS: ClassVar[list[tuple[int, str]]] = [(0, "-narrow"), (WIDE_AT, "-wide")]
    COMMANDS = App.COMMANDS | {TriageCommands, SortCommands, SavedSearchCommands}

    #: The default keys; ``keys.toml`` (:mod:`tui.keymap`) may give others (:attr:`keys_in_force`).
    BINDINGS: ClassVar[list[BindingType]] = bindings_of(APP_ACTIONS)

    def __init__(self, seeds: list[str] | None = None, data_dir: str | None = None, *,
                 page_size: int | None = None, ascii_only: bool | None = None,
                 poll_seconds: float = POLL_S, debounce_seconds: float = DEBOUNCE_S) -> None:
        super().__init__()
        self.seeds, self.data_dir = seeds, data_dir
        self._page_fixed = page_size is not None  # else it follows the terminal's height
        self.page_size = page_size or PAGE_SIZE
        self.poll_seconds, self.debounce_seconds = poll_seconds, debounce_seconds
        self.glyphs = glyphs_for(wants_ascii() if ascii_only is None else ascii_only)
        #: every character papertray and Textual draw is ASCII (the abstract's own text aside)
        self.ascii_only = self.glyphs is ASCII_GLYPHS
        if self.ascii_only:
            install_scroll_bars()
        self._no_colour = NoColour()
        self.animation_level = "none"  # over SSH an animation is only more bytes to send
        self.lib = None
        #: True once the browser ended on an unexpected error (:meth:`panic`): exit status 1.
        self.ended_on_error = False
        self._init_sync()
        self._init_search()
        #: The keys in force: the defaults and what ``keys.toml`` changes (its notice, if bad).
        self.keys_in_force = load_keymap()
        self._use_keymap()
        keys = self.keys_in_force.keys
        self._init_keys(keys["quit-anywhere"], self._help_close_keys(),
                        (*keys["history-back"], *keys["history-forward"]))
        self._init_frames()
        self._init_marks()
        self._init_workers()
        self._init_saving()
        self._init_selection()
        self._init_reader(DataPaths.resolve(data_dir).marks)

    def _use_keymap(self) -> None:
        """Give the bindings the keys of ``keys.toml`` (Textual's keymap, by binding id), the
        help the keys that close it, the footer the palette's key."""
        keys = self.keys_in_force.keys
        keymap = self.keys_in_force.for_textual()
        if set(self._help_close_keys()) != set(HELP_CLOSE_KEYS):
            keymap["help.close"] = ",".join(self._help_close_keys())
        self.set_keymap(keymap)
        self.COMMAND_PALETTE_BINDING = keys["palette"][0]  # the footer shows this key

    def _help_close_keys(self) -> tuple[str, ...]:
        """Esc, and the keys in force of the help and of quitting, close the help."""
        keys = self.keys_in_force.keys
        return tuple(dict.fromkeys(("escape", *keys["help"], *keys["quit"])))

    def get_driver_class(self) -> type[Driver]:
        """Textual's driver for this terminal, with bracketed pastes kept whole
        (:mod:`tui.browser.terminal`)."""
        return paste_safe(super().get_driver_class())

    def compose(self) -> ComposeResult:
        yield StatusHeader(self.glyphs, id="header")
        yield SyncProgress(self.ascii_only, id="sync")
        yield SearchBar(self.glyphs["more"] if self.ascii_only else None, id="search")
        with Container(id="body"):
            yield ResultsPane(ResultsTable(self.glyphs, self.page_size, id="results"),
                              id="results-pane")
            yield AbstractPanel(self.glyphs, id="abstract")
        yield KeysFooter()

    @property
    def is_settled(self) -> bool:
        """True when nothing is on its way: the library is open and synced, the search bar's
        text is the query searched and its newest search is shown, the panel shows the cursor
        paper, every mark is written (tests and bench/browser.py wait on this)."""
        if self.lib is None or self._syncing or self._search_pending:
            return False
        if self.search_bar.value != self._query:  # a key typed, its search not asked for yet
            return False
        if self._awaiting_input or self.keys_waiting or self.marks_pending:
            return False
        current = self.table.current_id
        return current is None or self.paper_shown == current

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters of every line drawn; under ``NO_COLOR`` (and ``--ascii``) one
        that leaves no colour at all (:class:`~tui.browser.ascii.NoColour`)."""
        filters = list(super().get_line_filters())
        return without_colour(filters, self._no_colour) if self.no_color else filters

    def notify(self, message: str, *args, **kwargs) -> None:
        """Textual's notification; in ASCII only when the browser is (:func:`said`)."""
        super().notify(said(message, self.ascii_only), *args, **kwargs)

    def get_key_display(self, binding: Binding) -> str:
        """Textual's form of a key (``↓``), or its name (``down``) in an ASCII-only browser."""
        shown = super().get_key_display(binding)
        return key_name(shown, binding.key) if self.ascii_only else shown

    def action_command_palette(self) -> None:
        """The command palette (in ASCII characters when the browser is)."""
        if self.use_command_palette and not TriagePalette.is_open(self):
            palette = AsciiCommandPalette if self.ascii_only else TriagePalette
            self.push_screen(palette(id="--command-palette"))

    def search_themes(self) -> None:
        if not self.ascii_only:
            super().search_themes()
            return
        from textual.theme import ThemeProvider

        self.push_screen(AsciiCommandPalette(providers=[ThemeProvider],
                                             placeholder="Search for themes..."))

    def on_resize(self, event: events.Resize) -> None:
        """A taller terminal gets a larger page (:data:`PAGE_SIZE`), so the table never ends
        above the bottom of the screen while more hits are waiting."""
        if not self._page_fixed:
            self.page_size = max(PAGE_SIZE, 2 * event.size.height)
            if self.screen_stack:
                with contextlib.suppress(NoMatches):
                    self.table.page_size = self.page_size
                    self.table.fit_page()

    def on_mount(self) -> None:
        self.main_screen.set_class(self.no_color, "-no-color")
        # every screen (help, prompts, the palette) draws its borders in ASCII (papertray.tcss)
        self.set_class(self.ascii_only, "-ascii")
        self._restore_settings()
        self.table.focus()
        self.panel.show_message(Text(f"opening the library{self.glyphs['more']}"))
        self.open_library()
        if self.keys_in_force.notice:
            self.notify(self.keys_in_force.notice, severity="warning", markup=False, timeout=12)
        self.set_interval(self.poll_seconds, self._poll_seeds)
        self.app_resume_signal.subscribe(self, self._draw_after_resume)

    def _draw_after_resume(self, _app: object) -> None:
        """Back from a suspension (ctrl+z, then ``fg``): draw the whole screen again. The
        terminal shows the shell's screen meanwhile, and Textual redraws only after its own
        ``App.suspend``, not after SIGTSTP (the screen would stay blank until something
        changed)."""
        self.refresh(layout=True)

    def on_unmount(self) -> None:
        self._release_paint()
        self._save_session()
        if self.lib is not None:
            self.flush_marks()
            self.flush_exports()  # after the marks: an export typed after a mark shows it
            self.lib.close()

    # -- other keys --------------------------------------------------------------------------
    def action_scroll_abstract(self, how: str) -> None:
        """Scroll the abstract: ``page`` down (at its end: the next paper, as in mutt), a line
        ``down`` or ``up``."""
        panel, table = self.panel, self.table
        if how == "page" and panel.scroll_y >= panel.max_scroll_y:
            if table.row_count and table.window_offset + table.cursor_row + 1 >= table.total:
                self.notify("the last paper", timeout=2)
            table.action_cursor_down()
        elif how == "page":
            panel.scroll_page_down(animate=False)
        elif how == "down":
            panel.scroll_down(animate=False)
        else:
            panel.scroll_up(animate=False)

    def action_show_help(self) -> None:
        """Open the help: the keys as the results table sees them, and the query syntax."""
        if isinstance(self.screen, HelpScreen):
            return
        self.main_screen.set_focus(self.table)  # the help describes the table, where triage happens

        def section(node: object) -> str | None:
            if isinstance(node, ResultsTable):
                return "Moving in the results"
            return "Triage, filters and search" if node is self else None

        lines = key_help(self.main_screen.active_bindings, self.get_key_display, section,
                         [action.id for action in ACTIONS.values()])
        lines += self._reading_help(self.keys_in_force.keys, self.get_key_display)
        self.push_screen(HelpScreen(lines, self._marks_help(), self._keys_shown()),
                         lambda _: self._screen_closed())  # keys typed after its closing key go on

    def _keys_shown(self) -> dict[str, str]:
        """Each action's keys in force as the help shows them (``s``, ``^n``), by action name."""
        shown: dict[str, list[str]] = {}
        for binding in in_force(ACTIONS.values(), self.keys_in_force.keys):
            shown.setdefault(binding.id.partition(".")[2], []).append(
                self.get_key_display(binding))
        return {name: " ".join(keys) for name, keys in shown.items()}

    def _marks_help(self) -> list[tuple[str, str]]:
        """The help's notes on marks, with the undo keys taken from the bindings."""
        undo = " ".join(self.get_key_display(binding)
                        for binding in in_force(APP_ACTIONS, self.keys_in_force.keys)
                        if binding.action == "undo")
        return [(undo, "Marks are saved as you make them, in the data folder. Every papertray "
                 f"on the same data folder shares one undo history: {undo} takes back the "
                 "latest mark made in any of them, this window or another.")]

    # -- failures ----------------------------------------------------------------------------
    def panic(self, *renderables) -> None:
        """End the browser on an unexpected error, showing ``renderables`` (Textual's
        ``App.panic``: its driver calls it when its input thread fails). The browser then
        exits 1, as it does on an unhandled exception: Textual leaves the status 0 after a
        panic (Textualize/textual#4325). The terminal is restored as at any exit."""
        self.ended_on_error = True
        super().panic(*renderables)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that failed becomes a notification (and its state is reset), never a crash."""
        if event.state != WorkerState.ERROR:
            return
        group, error = event.worker.group, event.worker.error
        text = one_line(str(error)) or type(error).__name__
        if group == "open":
            self.opening = False
            self.panel.show_message(Text(f"cannot open the library: {text}"))
            self._keys_may_go()
        elif group == "sync":
            self._syncing = False
            self.main_screen.query_one(SyncProgress).stop()
        elif group == "marks":  # the steps the failed worker took are lost: forget them
            del self._unsaved[:max(0, len(self._unsaved) - len(self._mark_queue))]
            self._keys_may_go()
        elif group == "search":
            self._applied = self._request
            self._keys_may_go()
        self.notify(f"{group}: {text}", severity="error", markup=False, timeout=8)


def make_app(seeds: list[str] | None = None, data_dir: str | None = None,
             **options) -> PapertrayApp:
    """The browser on ``seeds`` (folders or files; None: the default seeds) with its files in
    ``data_dir`` (None: ``$PAPERTRAY_DATA_DIR`` or the platform folders).

    ``options`` go to :class:`PapertrayApp` (``page_size``, ``ascii_only``, ``poll_seconds``,
    ``debounce_seconds``); the CLI passes none. Everything the browser writes from then on is
    its owner's only (:func:`db.store.paths.write_privately`).
    """
    write_privately()
    return PapertrayApp(seeds, data_dir, **options)


def run_app(seeds: list[str] | None = None, data_dir: str | None = None,
            ascii_only: bool | None = None) -> int:
    """Run the browser in this terminal until the reader quits. ``ascii_only`` (``--ascii``):
    no colour and ASCII characters only, as under NO_COLOR; None decides from the terminal.

    SIGTERM, SIGHUP (the SSH connection dropped) and SIGINT end it the way ``q`` does: queued
    marks are written, the library is closed and the terminal is restored. A sync that was
    running is abandoned; its transaction rolls back, so the previous index stays whole.

    Returns the exit status: 0 when the reader quit, 1 when the browser ended on an error
    (Textual has printed its traceback).
    """
    if ascii_only:  # Textual reads NO_COLOR as the app starts: no colour at all
        os.environ["NO_COLOR"] = "1"
    app = make_app(seeds, data_dir, ascii_only=ascii_only)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, app.exit_in_turn)
        await app.run_async()

    asyncio.run(main())
    return 1 if app.ended_on_error else app.return_code or 0
