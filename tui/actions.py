"""Every action of the browser a key can do, with its default keys: plain data, the one source
of the browser's key bindings (:mod:`tui.browser.bindings` turns it into Textual's), of
``papertray keys`` and of the names ``keys.toml`` takes (:mod:`tui.keymap`).

No Textual here: the command line lists the actions without loading the browser.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where an action's keys work, which decides which keys may clash: on the results table (the
#: app's and the table's keys), in the search bar only, in the reading view (one paper full
#: screen), or everywhere (over the search bar, the editors, the help, the palette and the
#: reading view too).
RESULTS, SEARCH_BAR, READING, ANYWHERE = "results", "search bar", "reading view", "anywhere"


@dataclass(frozen=True, slots=True)
class KeyAction:
    """One action: ``name`` (what ``keys.toml`` and ``papertray keys`` call it), its default
    ``keys`` (Textual's key names), the Textual ``action`` it runs on its ``owner`` (``app``,
    ``table`` or ``reading``, the reading view), the footer's ``label``, what it does
    (``tooltip``: the help, the palette and ``papertray keys`` say it), whether the footer shows
    it, whether it is a ``priority`` binding (it acts before the focused widget sees the key)
    and ``where`` its keys work. An action of the results whose keys work in the reading view
    too (the marks, undo, help, the links and copies) names the app's action they run there in
    ``reading`` (a mark there stays on the paper shown)."""

    owner: str
    name: str
    keys: tuple[str, ...]
    action: str
    label: str
    tooltip: str
    show: bool = False
    priority: bool = False
    where: str = RESULTS
    reading: str = ""

    @property
    def id(self) -> str:
        """The binding's id, ``owner.name`` (``app.mark-read``): Textual's keymap is keyed by it."""
        return f"{self.owner}.{self.name}"

    @property
    def places(self) -> frozenset[str]:
        """Where its keys work: ``where``, and the reading view for an action with ``reading``."""
        return frozenset((self.where, READING) if self.reading else (self.where,))


def _app(name: str, keys: str, action: str, label: str, tooltip: str, **options) -> KeyAction:
    return KeyAction("app", name, tuple(keys.split(",")), action, label, tooltip, **options)


def _table(name: str, keys: str, action: str, label: str, tooltip: str) -> KeyAction:
    return KeyAction("table", name, tuple(keys.split(",")), action, label, tooltip)


def _reading(name: str, keys: str, action: str, label: str, tooltip: str,
             show: bool = False) -> KeyAction:
    return KeyAction("reading", name, tuple(keys.split(",")), action, label, tooltip, show,
                     where=READING)


_NEXT = "and go to the next one"

#: The app's actions, in the order the footer, the help and the palette list them.
APP_ACTIONS: tuple[KeyAction, ...] = (
    _app("help", "question_mark,f1", "show_help", "help",
         "Show all keys and the query syntax", show=True, reading="show_help"),
    # Entering and leaving the search bar are priority bindings: they act as their key
    # arrives, before later keys are routed, so "/wudi⏎t" typed ahead searches, then marks.
    # The footer leaves "/" out: the search bar shows it as its prompt (at 80 columns the
    # footer has room for the keys of triage and the palette's, not for a key shown twice).
    _app("search", "slash", "focus_search", "search",
         "Search: type a query (Enter, Down or Esc to return to the table)", priority=True),
    _app("leave-search", "escape", "leave_search", "results",
         "Back to the results (the query stays)", show=True, priority=True, where=SEARCH_BAR),
    _app("leave-search-enter", "enter", "leave_search", "results",
         "Back to the results (the query stays)", priority=True, where=SEARCH_BAR),
    # Enter on the table; in the search bar Enter leaves it (a priority binding there), so
    # "/wudi⏎⏎" searches, then reads the first hit full screen
    _app("open", "enter", "open_paper", "open", "Read the paper full screen: every field, the "
         "whole abstract; j/k the next/previous paper, the mark keys, Esc back to the list",
         show=True),
    # the query history, walked as in a shell; the keys wait until the search bar has handled
    # the keys typed before them (tui.browser.keys), as they read the query it shows
    _app("history-back", "up", "history(1)", "earlier query",
         "In an empty search bar, or one showing a query of the history: the query searched "
         "before it", priority=True, where=SEARCH_BAR),
    _app("history-forward", "down", "history(-1)", "later query",
         "While walking the query history: the next newer query (past the newest, the empty "
         "line); else back to the results (the query stays)", priority=True, where=SEARCH_BAR),
    _app("mark-read", "r", "mark('read')", "read",
         f"Mark the paper read {_NEXT} (a read paper stays read)", show=True,
         reading="mark_shown('read')"),
    _app("mark-to-read", "t", "mark('to-read')", "to-read",
         f"Mark the paper to-read {_NEXT} (a to-read paper stays to-read)", show=True,
         reading="mark_shown('to-read')"),
    _app("mark-dismissed", "d", "mark('dismissed')", "dismiss",
         f"Mark the paper dismissed (not interested) {_NEXT}", show=True,
         reading="mark_shown('dismissed')"),
    _app("mark-new", "x", "mark('new')", "new",
         "Clear the mark (back to new) and go to the next paper", reading="mark_shown('new')"),
    _app("undo", "u", "undo", "undo", "Undo the latest mark made on this data folder, in this "
         "window or another (repeatable, even after a restart)", show=True, reading="undo"),
    _app("next-new", "n", "next_new(1)", "next new", "Jump to the next new paper"),
    _app("previous-new", "N", "next_new(-1)", "previous new", "Jump to the previous new paper"),
    _app("filter-all", "1", "filter('all')", "all", "Show all papers"),
    _app("filter-new", "2", "filter('new')", "new", "Show only new papers"),
    _app("filter-to-read", "3", "filter('to-read')", "to-read", "Show only to-read papers"),
    _app("filter-read", "4", "filter('read')", "read", "Show only read papers"),
    _app("filter-dismissed", "5", "filter('dismissed')", "dismissed",
         "Show only dismissed papers"),
    _app("clear-query", "backspace", "clear_query", "clear query",
         "Clear the query: every paper (with the status filter)"),
    _app("sort", "O", "sort", "sort", "Sort the papers: relevance, seed order, name, year, "
         "status (new first), latest marked; the next order at each press"),
    _app("select", "v", "select", "select", "Select the paper (again: unselect) and go to the "
         "next; the mark keys, # and e act on the selected papers"),
    _app("select-all", "V", "select_all", "select all",
         "Select every paper shown (the query and the filter)"),
    _app("clear-selection", "escape", "clear_selection", "clear selection",
         "Clear the selection"),
    _app("save-search", "b", "save_search", "save search",
         "Save the search shown (query, filter, sort) under a name"),
    _app("saved-searches", "B", "saved_searches", "saved searches",
         "List the saved searches: hits, new, arrived since last opened; Enter opens one"),
    _app("scroll-page", "space", "scroll_abstract('page')", "scroll",
         "Scroll the abstract down a page; at its end, go to the next paper"),
    _app("scroll-down", "J", "scroll_abstract('down')", "scroll down",
         "Scroll the abstract down a line"),
    _app("scroll-up", "K", "scroll_abstract('up')", "scroll up", "Scroll the abstract up a line"),
    _app("similar", "s", "similar", "similar", "Papers most like this one (the query like:ID)"),
    _app("like-to-read", "S", "like_to_read", "like to-read",
         "New papers most like your to-read list (the query like:to-read)"),
    _app("note", "a", "edit_note", "note", "Write a note on the paper (Enter saves, Esc cancels)"),
    _app("tag", "number_sign", "add_tags", "tag",
         "Tag the paper (find tags with tag:NAME; -NAME removes one)"),
    _app("open-link", "o", "open_link('paper')", "open link",
         "Open the paper's link (its page, else its code, else a search for it); over SSH, "
         "send it to the terminal's clipboard", reading="open_link('paper')"),
    _app("open-code", "C", "open_link('code')", "open code",
         "Open the paper's code link; over SSH, send it to the terminal's clipboard",
         reading="open_link('code')"),
    _app("copy-link", "y", "copy('link')", "copy link",
         "Send the paper's link (the one o opens) to the terminal's clipboard (OSC 52, over "
         "SSH too)", reading="copy('link')"),
    _app("copy-abstract", "Y", "copy('abstract')", "copy abstract",
         "Send the abstract to the terminal's clipboard (OSC 52)", reading="copy('abstract')"),
    _app("copy-citation", "c", "copy('citation')", "copy BibTeX",
         "Send a BibTeX citation of the paper to the terminal's clipboard",
         reading="copy('citation')"),
    _app("layout", "L", "cycle_layout", "layout",
         "Switch the layout: automatic, stacked, side by side"),
    _app("export", "e", "export", "export",
         "Export the papers shown (query and filter) to a Markdown checklist in the data folder"),
    _app("export-to", "E", "export_to", "export to",
         "Export the papers shown (or selected) to a file you name; its ending picks the "
         "format (.md .csv .json .bib)"),
    _app("quit", "q", "quit", "quit", "Quit (marks are saved as you make them)", show=True),
    # the terminal is in raw mode: ctrl+z reaches the app as a key, not as SIGTSTP; a
    # priority binding, so that it works over the editors, the help and the palette too
    _app("suspend", "ctrl+z", "suspend_process", "suspend",
         "Suspend papertray to the shell (fg brings it back)", priority=True, where=ANYWHERE),
    _app("quit-anywhere", "ctrl+q", "quit", "quit", "Quit (marks are saved as you make them)",
         priority=True, where=ANYWHERE),
    _app("palette", "ctrl+p", "command_palette", "palette", "Open the command palette",
         priority=True, where=ANYWHERE),
)

#: The results table's actions (moving the cursor).
TABLE_ACTIONS: tuple[KeyAction, ...] = (
    _table("down", "down,j", "cursor_down", "down", "Move to the next paper"),
    _table("up", "up,k", "cursor_up", "up", "Move to the previous paper"),
    _table("page-down", "pagedown", "page_down", "page down", "Move down one screen of papers"),
    _table("page-up", "pageup", "page_up", "page up", "Move up one screen of papers"),
    _table("first", "home,g", "first", "first", "Go to the first paper"),
    _table("last", "end,G", "last", "last", "Go to the last paper"),
)

#: The reading view's own actions (:mod:`tui.browser.reading_screen`): the papers of the list
#: one by one (the app's actions: the list is the app's), scrolling the one shown and going
#: back. The mark keys, undo, help, the links and copies work there too (the app's actions with
#: a ``reading``).
READING_ACTIONS: tuple[KeyAction, ...] = (
    _reading("read-next", "j", "app.read_step(1)", "next", "Read the next paper of the list",
             show=True),
    _reading("read-previous", "k", "app.read_step(-1)", "previous",
             "Read the previous paper of the list", show=True),
    _reading("read-page-down", "space,pagedown", "scroll('page-down')", "scroll",
             "Scroll the paper down a page; at its end, read the next paper"),
    _reading("read-page-up", "pageup", "scroll('page-up')", "scroll up",
             "Scroll the paper up a page"),
    _reading("read-line-down", "down,J", "scroll('down')", "line down",
             "Scroll the paper down a line"),
    _reading("read-line-up", "up,K", "scroll('up')", "line up", "Scroll the paper up a line"),
    _reading("read-top", "home,g", "scroll('top')", "top", "Go to the top of the paper"),
    _reading("read-end", "end,G", "scroll('end')", "end", "Go to the end of the paper"),
    _reading("read-close", "escape,q", "close", "back",
             "Back to the list, the cursor on the paper shown", show=True),
)

#: Every action, by its name in ``keys.toml``: the table's first (as the help lists them).
ACTIONS: dict[str, KeyAction] = {a.name: a for a in (*TABLE_ACTIONS, *APP_ACTIONS,
                                                     *READING_ACTIONS)}
