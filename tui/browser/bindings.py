"""Textual's key bindings made from papertray's table of actions (:mod:`tui.actions`), and
those bindings with the keys in force (``keys.toml``, :mod:`tui.keymap`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding

from tui.actions import KeyAction


def bindings_of(actions: Iterable[KeyAction]) -> list[Binding]:
    """One binding per action, with its default keys, its id (``app.mark-read``) and tooltip."""
    return [Binding(",".join(action.keys), action.action, action.label, show=action.show,
                    priority=action.priority, id=action.id, tooltip=action.tooltip)
            for action in actions]


def in_force(actions: Iterable[KeyAction], keys: Mapping[str, tuple[str, ...]]) -> list[Binding]:
    """One binding per key in force of each action (``keys``: by action name), in the
    actions' order: what Textual's keymap makes of :func:`bindings_of`'s bindings."""
    return [Binding(key, action.action, action.label, show=action.show,
                    priority=action.priority, id=action.id, tooltip=action.tooltip)
            for action in actions for key in keys[action.name]]
