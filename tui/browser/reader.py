"""The reader's tools in the browser: similar papers, notes and tags, copying, layout and the
remembered settings (a mixin for :class:`tui.browser.app.PapertrayApp`, whose ``BINDINGS`` name the
keys: ``s`` ``S`` ``a`` ``#`` ``y`` ``Y`` ``c`` ``L``).

Copying uses OSC 52 (Textual's ``copy_to_clipboard``): the text goes to the clipboard of the
terminal the reader sits at, also over SSH, where opening a link on the remote box is no use.
Whether the terminal takes it cannot be known, so the notification says the text was sent, and
how to let it through where it is known not to pass (:func:`clipboard_hint`).
"""

from __future__ import annotations

from db.marks.notes import MAX_NOTE_CHARS
from db.models import Paper
from db.seeds.render import render_plain
from db.text import one_line
from tui.browser.editors import TextPrompt, tags_problem
from tui.browser.messages import Follow
from tui.browser.settings import LAYOUTS, Settings, settings_path
from tui.browser.terminal import clipboard_hint
from tui.browser.workers import MarkOp

#: Textual breakpoints for each layout: ``auto`` is side by side from this many columns.
WIDE_AT = 120
BREAKPOINTS = {"auto": [(0, "-narrow"), (WIDE_AT, "-wide")], "stacked": [(0, "-narrow")],
               "side": [(0, "-wide")]}


class ReaderTools:
    """Actions of the reader's tools; the app provides the table, panel, search and queue."""

    def _init_reader(self, marks_file) -> None:
        self.settings_file = settings_path(marks_file)
        """The JSON file with the remembered filter, theme and layout (beside the marks)."""
        self.layout_choice = "auto"
        """The layout: auto (side by side from WIDE_AT columns), stacked or side."""
        self._settings_unsaved_said = False
        self.restored_cursor: Follow | None = None

    # -- settings ----------------------------------------------------------------------------
    def _restore_settings(self) -> None:
        """Apply the remembered filter, sort, theme and layout, and the session's query and
        cursor paper (before the first search: :attr:`restored_cursor`)."""
        settings, notice = Settings.load(self.settings_file)
        if notice:
            self.notify(notice, severity="warning", markup=False, timeout=8)
        if settings.theme in self.available_themes:
            self.theme = settings.theme
        self.status_filter = settings.filter
        self.header.status_filter = settings.filter
        self.sort_by = self.header.sort_by = settings.sort
        self.search_bar.input.value = self._query = settings.query
        #: where the first search puts the cursor: the paper it was on when the browser closed
        self.restored_cursor = Follow((settings.cursor,)) if settings.cursor else None
        self._apply_layout(settings.layout)
        self.theme_changed_signal.subscribe(self, lambda _theme: self._save_settings())

    def _save_settings(self) -> None:
        """Remember the filter, sort, theme and layout, and the session (the query and the
        cursor paper); when the settings file cannot be written, say so (once) rather than
        let them seem remembered."""
        if not self._save_session() and not self._settings_unsaved_said:
            self._settings_unsaved_said = True
            self.notify(f"the filter, sort, theme and layout are not remembered: "
                        f"{one_line(str(self.settings_file))} cannot be written",
                        severity="warning", markup=False, timeout=8)

    # -- layout ------------------------------------------------------------------------------
    def action_cycle_layout(self) -> None:
        """Switch the layout: automatic, stacked, side by side (remembered)."""
        layout = LAYOUTS[(LAYOUTS.index(self.layout_choice) + 1) % len(LAYOUTS)]
        self._apply_layout(layout)
        self._save_settings()
        self.notify(f"layout: {layout}", timeout=2)

    def _apply_layout(self, layout: str) -> None:
        self.layout_choice = layout
        breakpoints = BREAKPOINTS[layout]
        self.HORIZONTAL_BREAKPOINTS = breakpoints  # read by Textual at every resize
        width = self.main_screen.size.width or self.size.width
        name = [cls for at, cls in breakpoints if width >= at][-1]
        for cls in ("-narrow", "-wide"):
            self.main_screen.set_class(cls == name, cls)

    def _save_session(self) -> bool:
        """Write the settings and the session; False when the file cannot be written."""
        return Settings(self.status_filter, self.theme, self.layout_choice, self.sort_by,
                        self._query, self.cursor_paper).save(self.settings_file)

    # -- similar papers ----------------------------------------------------------------------
    def action_similar(self) -> None:
        """List the papers most like the cursor paper (the query ``like:ID``)."""
        paper_id = self.table.current_id
        if paper_id is not None:
            self._run_query(f"like:{paper_id[:8]}")

    def action_like_to_read(self) -> None:
        """List new papers like the whole to-read list (the query ``like:to-read``)."""
        self._run_query("like:to-read")

    # -- notes and tags ----------------------------------------------------------------------
    def _shown_paper(self) -> Paper | None:
        """The cursor paper as the panel shows it, or None (with a notice) while it loads."""
        paper = self.panel.paper
        if paper is None or paper.id != self.table.current_id:
            if self.table.current_id is not None:
                self.notify("the paper is still loading; try again", timeout=3)
            return None
        return paper

    def action_edit_note(self) -> None:
        """Edit the cursor paper's note (Enter or ctrl+s saves, Esc cancels; undo takes it
        back)."""
        paper = self._shown_paper()
        if paper is None:
            return

        def save(text: str | None) -> None:
            line = one_line(text).strip() if text is not None else None
            if line is not None and line != paper.note:
                self._queue(MarkOp("note", (paper.id,), text))
                length = len(line)
                if length > MAX_NOTE_CHARS:  # cut where it is stored: said, not silent
                    self.notify(f"note cut to its first {MAX_NOTE_CHARS} characters: the last "
                                f"{length - MAX_NOTE_CHARS} of {length} were not saved",
                                severity="warning", markup=False, timeout=10)

        self.push_screen(TextPrompt(
            "Note on", paper.label, paper.note,
            self.glyphs["sep"].lstrip().join((
                "Enter or ctrl+s saves ", "Esc cancels ", "an empty note deletes it ",
                "u undoes"))), save)

    def action_add_tags(self) -> None:
        """Tag the cursor paper, or the selected papers (words separated by spaces; ``-name``
        removes a tag)."""
        if self.tag_selection():
            return
        paper = self._shown_paper()
        if paper is None:
            return
        now = " ".join("#" + t for t in paper.tags) or "none"

        def save(text: str | None) -> None:
            if not text or not text.split():
                return
            problem = tags_problem(text)
            if problem:
                self.notify(problem, severity="warning", markup=False)
                return
            self._queue(MarkOp("tag", (paper.id,), text))

        self.push_screen(TextPrompt(
            "Tags for", paper.label, "",
            self.glyphs["sep"].lstrip().join((
                f"now: {now} ", "words separated by spaces; -name removes ",
                "find with tag:name")),
            placeholder="e.g. moe to-cite"), save)

    # -- copying -----------------------------------------------------------------------------
    def action_copy(self, what: str) -> None:
        """Send the cursor paper's ``link``, ``abstract`` or ``citation`` (BibTeX) to the
        terminal's clipboard (OSC 52), and say what was sent (and :func:`clipboard_hint`)."""
        paper = self._shown_paper()
        if paper is None:
            return
        if what == "link":
            text = paper.links[0][1]  # (every paper has one: at least a search for it)
            said = f"the link {one_line(text)}"
        elif what == "abstract":
            text = render_plain(paper.abstract_markup)
            if not text.strip():  # a paper known by its title: keep the clipboard as it is
                self.notify("this paper has no abstract; c copies a citation", timeout=4)
                return
            said = f"the abstract of {one_line(paper.label)} ({len(text):,} characters)"
        else:
            from db.library.export import bib_key, bibtex_entry  # the citation's writer, when asked

            text = bibtex_entry(paper, with_abstract=False)
            said = f"the BibTeX entry {bib_key(paper)}"
        self.copy_to_clipboard(text)
        hint = clipboard_hint(self.is_web)
        self.notify(f"sent {said} to the terminal's clipboard (OSC 52)"
                    + (f"; {hint}" if hint else ""), timeout=8 if hint else 4, markup=False)
