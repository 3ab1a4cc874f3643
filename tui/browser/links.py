"""Opening a paper's links from the browser: ``o`` the paper's own link, ``C`` its code (a mixin
for :class:`tui.browser.app.PapertrayApp`, whose bindings name the keys).

A link opens in a web browser where one can show on this screen: a desktop session (``DISPLAY``
or ``WAYLAND_DISPLAY``, or macOS) not reached over SSH. Over SSH, or with no display, the browser
would open on the remote box (or a text browser would take over the terminal), so the link is
sent to the reader's own clipboard with OSC 52 instead, as ``y`` does, and the notification says
so; in the web page of ``papertray serve`` it opens in a tab of the reader's browser. The
opener (``xdg-open``, macOS's ``open``) runs detached with its output discarded: a message it
prints would land on the browser's screen.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from db.models import Paper
from db.text import one_line
from tui.browser.terminal import clipboard_hint


def can_open_here(environ: os._Environ | dict = os.environ) -> bool:
    """Whether a web browser opened by this process shows on the reader's screen: not over SSH
    (``SSH_CONNECTION``, ``SSH_TTY``) and with a display (macOS; ``DISPLAY`` or
    ``WAYLAND_DISPLAY`` elsewhere)."""
    if environ.get("SSH_CONNECTION") or environ.get("SSH_TTY"):
        return False
    return sys.platform == "darwin" or bool(environ.get("DISPLAY") or
                                            environ.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str) -> bool:
    """Hand ``url`` to the desktop's opener (``open`` on macOS, ``xdg-open`` elsewhere), detached
    and silent; False when there is none or it cannot start."""
    opener = shutil.which("open" if sys.platform == "darwin" else "xdg-open")
    if opener is None:
        return False
    try:
        subprocess.Popen([opener, url], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return False
    return True


def link_of(paper: Paper, kind: str) -> str | None:
    """The paper's link ``kind``: ``paper`` its first link (:attr:`db.models.Paper.links`: its
    own page, else its code, else a scholarly search), ``code`` its code link."""
    if kind == "code":
        return paper.code_url
    return paper.links[0][1] if paper.links else None


class LinkTools:
    """The actions that open links; the app provides the cursor paper and the notifications."""

    def action_open_link(self, kind: str) -> None:
        """Open the cursor paper's ``paper`` or ``code`` link, or copy it where it cannot open
        here (:func:`can_open_here`)."""
        paper = self._shown_paper()
        if paper is None:
            return
        url = link_of(paper, kind)
        if url is None:
            self.notify("this paper has no code link; o opens its link", timeout=4)
            return
        shown = one_line(url)
        if self.is_web:  # the web page of `papertray serve`: a tab of the reader's own browser
            self.open_url(url)
        elif not (can_open_here() and open_in_browser(url)):
            self.copy_to_clipboard(url)
            hint = clipboard_hint(self.is_web)
            self.notify(f"no browser here: sent {shown} to the terminal's clipboard (OSC 52)"
                        + (f"; {hint}" if hint else ""), timeout=8, markup=False)
            return
        self.notify(f"opened {shown}", timeout=4, markup=False)
