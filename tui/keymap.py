"""Your own keys: ``keys.toml`` in papertray's config folder maps action names to keys.

::

    # ~/.config/papertray/keys.toml
    mark-read = "R"                 # one key
    mark-to-read = ["T", "ctrl+t"]  # or several
    down = "j,down,ctrl+n"          # or several, as Textual writes them

A name is an action of :data:`tui.actions.ACTIONS` (``papertray keys`` lists them); the keys
given replace all of its default keys, and every action the file does not name keeps its own.
A key is one of Textual's key names (:func:`key_name`). A bad file (not TOML, an unknown action
or key, two actions on one key, a key the browser cannot give an action) is one line naming the
file and the line (:attr:`Keymap.notice`), and then every key is the default.

No Textual here: the command line reads the file too (``papertray keys``).
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from tui.actions import ACTIONS, ANYWHERE, SEARCH_BAR, KeyAction

KEYS_FILE = "keys.toml"

#: Modifiers as Textual names them; a key names its modifiers in this (alphabetical) order.
MODIFIERS = ("alt", "ctrl", "hyper", "meta", "shift", "super")
#: Named keys that are not characters (Textual's ``textual.keys.Keys``, without modifiers).
NAMED_KEYS = frozenset({
    "escape", "enter", "tab", "space", "backspace", "delete", "insert", "home", "end",
    "pageup", "pagedown", "up", "down", "left", "right", *(f"f{n}" for n in range(1, 25)),
})
#: The names the help and the footer show for some keys, taken as the key they show.
SHOWN_NAMES = {"esc": "escape", "return": "enter", "pgup": "pageup", "pgdn": "pagedown",
               "del": "delete"}
#: Textual's names of characters whose Unicode names are obscure (``textual.keys``).
_REPLACEMENTS = {"solidus": "slash", "reverse_solidus": "backslash", "commercial_at": "at",
                 "hyphen_minus": "minus", "plus_sign": "plus", "low_line": "underscore"}
#: Keys no action can have: why, in a few words.
RESERVED = {
    "ctrl+c": "the terminal's interrupt and Textual's copy",
    "tab": "Textual's key to move the focus", "shift+tab": "Textual's key to move the focus",
    "ctrl+h": "terminals send it for Backspace", "ctrl+i": "terminals send it for Tab",
    "ctrl+j": "terminals send it for Enter", "ctrl+m": "terminals send it for Enter",
}
#: Keys that edit text in the search bar and the note and tag editors (Textual's ``Input``,
#: Enter aside, and the editors' ctrl+s): an action that works while you type cannot have them.
EDITING_KEYS = frozenset({
    "alt+backspace", "backspace", "ctrl+a", "ctrl+backspace", "ctrl+d", "ctrl+e", "ctrl+k",
    "ctrl+left", "ctrl+right", "ctrl+shift+a", "ctrl+shift+left", "ctrl+shift+right", "ctrl+u",
    "ctrl+v", "ctrl+w", "ctrl+x", "delete", "end", "home", "left", "right", "shift+end",
    "shift+home", "shift+left", "shift+right", "super+backspace", "super+c", "ctrl+s",
})


def character_key(character: str) -> str:
    """Textual's name of the key that types ``character``: letters and digits are themselves,
    others their Unicode name in lower case (``?`` ``question_mark``, ``/`` ``slash``).
    Raises ValueError for a character without a name (a control character)."""
    if character.isalnum():
        return character
    if character == " ":
        return "space"
    name = unicodedata.name(character).lower().replace("-", "_").replace(" ", "_")
    return _REPLACEMENTS.get(name, name)


#: Textual's names of the printable ASCII characters that are not letters or digits.
CHARACTER_NAMES = frozenset(character_key(c) for c in map(chr, range(33, 127))
                            if not c.isalnum())


def key_name(written: str) -> str:
    """The key ``written`` names, as Textual names it: ``?`` is ``question_mark``, ``Esc``
    ``escape``, ``shift+r`` ``R``, ``shift+ctrl+x`` ``ctrl+shift+x``.

    Raises ValueError (saying why) for a text that names no key: an unknown name (``pgdown``),
    an unknown or repeated modifier, a modifier with no key.
    """
    text = written.strip()
    if len(text) == 1:
        return character_key(text) if text.isprintable() else _unknown(written)
    if text.endswith("++"):  # "ctrl++": the key "+"
        modifiers, base = text[:-2].split("+"), "+"
    else:
        *modifiers, base = text.split("+")
    modifiers = [m.strip().lower() for m in modifiers]
    if (any(m not in MODIFIERS for m in modifiers) or len(set(modifiers)) < len(modifiers)
            or not base.strip()):
        _unknown(written)
    return "+".join(_with_base(modifiers, base.strip(), written))


def _with_base(modifiers: list[str], base: str, written: str) -> list[str]:
    """The parts of a key's name, modifiers sorted, for ``modifiers`` and ``base``."""
    if len(base) > 1:
        base = SHOWN_NAMES.get(base.lower(), base.lower())
        if base not in NAMED_KEYS and base not in CHARACTER_NAMES:
            _unknown(written)
        return [*sorted(modifiers), base]
    if not base.isprintable():
        _unknown(written)
    if modifiers == ["shift"] and base.isalpha():
        return [base.upper()]  # shift+r is R, as a terminal sends it
    if modifiers and base.isupper():  # ctrl+A is ctrl+shift+a
        modifiers, base = sorted({*modifiers, "shift"}), base.lower()
    return [*sorted(modifiers), character_key(base)]


def _unknown(written: str) -> str:
    raise ValueError(f'unknown key "{written}"')


def types_a_character(key: str) -> bool:
    """True for a key that types text in the search bar: a character, with shift at most."""
    *modifiers, base = key.split("+") if key != "plus" else ["plus"]
    return set(modifiers) <= {"shift"} and (
        len(base) == 1 or base in CHARACTER_NAMES or base == "space")


@dataclass(frozen=True)
class Keymap:
    """The keys in force: ``keys`` maps each action's name (every one of
    :data:`~tui.actions.ACTIONS`) to its keys; ``rebound`` names the actions ``path`` gave keys;
    ``notice`` is the one line that says why the file was not used (None when it was, or when
    there is none)."""

    path: Path
    keys: dict[str, tuple[str, ...]] = field(
        default_factory=lambda: {name: a.keys for name, a in ACTIONS.items()})
    rebound: tuple[str, ...] = ()
    notice: str | None = None

    def for_textual(self) -> dict[str, str]:
        """Textual's keymap (``App.set_keymap``): binding id to comma-separated keys, for the
        actions rebound and, when there is one, those the footer shows. Textual puts the
        bindings its keymap names after the others: with all of the footer's in it, the
        footer keeps their order (a rebound key is not moved to its end), and the keymap stays
        short (Textual applies it each time it looks up the bindings, at every key)."""
        if not self.rebound:
            return {}
        return {action.id: ",".join(self.keys[name]) for name, action in ACTIONS.items()
                if name in self.rebound or action.show}


class KeymapError(ValueError):
    """A bad ``keys.toml``: ``line`` (1-based; 0 when no line is to blame) and what is wrong."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message


def config_dir() -> Path:
    """papertray's config folder: ``$PAPERTRAY_CONFIG_DIR``, else platformdirs'
    ``user_config_dir("papertray")`` (``~/.config/papertray`` on Linux)."""
    chosen = os.environ.get("PAPERTRAY_CONFIG_DIR")
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_config_dir("papertray"))


def load_keymap(path: Path | None = None) -> Keymap:
    """The keys in force with ``path`` (default: ``keys.toml`` in :func:`config_dir`). No file
    means the defaults; a bad or unreadable file too, with a :attr:`Keymap.notice`. Never
    raises."""
    path = path if path is not None else config_dir() / KEYS_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Keymap(path)
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        return Keymap(path, notice=f"{_shown(path)}: cannot be read ({reason}); "
                                   "the default keys are used")
    try:
        rebound = parse_keymap(text)
    except KeymapError as error:
        where = f" line {error.line}" if error.line else ""
        return Keymap(path, notice=f"{_shown(path)}{where}: {error.message}; "
                                   "the default keys are used")
    keys = {name: rebound.get(name, a.keys) for name, a in ACTIONS.items()}
    return Keymap(path, keys, tuple(rebound))


def _shown(path: Path) -> str:
    """``path`` as a notice names it: under the home folder with ``~``."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def parse_keymap(text: str) -> dict[str, tuple[str, ...]]:
    """The keys ``text`` (a ``keys.toml``) gives, by action name, in the file's order.

    Raises :class:`KeymapError` naming the line: not TOML, an unknown action, a value that is
    not a key or a list of keys, an unknown or reserved key, a key that types a character for
    an action that works while you type, a key given to two actions, or a key of an action the
    file leaves alone (that one must be moved too).
    """
    data = _toml(text)
    lines = text.splitlines()
    rebound: dict[str, tuple[str, ...]] = {}
    for name, value in data.items():
        action = ACTIONS.get(name)
        if action is None:
            if isinstance(value, dict) and value:  # app.mark-read = "R", or a [table]
                name = f"{name}.{next(iter(value))}"
            raise KeymapError(_line_of(lines, name.partition(".")[0]),
                              f'unknown action "{name}"{_did_you_mean(name)}')
        rebound[name] = _keys_of(action, value, _line_of(lines, name))
    given: list[str] = []
    for name in rebound:
        _check_clashes(name, given, rebound, _line_of(lines, name))
        given.append(name)
    return rebound


def _toml(text: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        found = re.search(r"\(at line (\d+), column \d+\)", message)
        line = int(found.group(1)) if found else len(text.splitlines())
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        raise KeymapError(line, f"not TOML ({reason[:1].lower() + reason[1:]})") from None


def _line_of(lines: list[str], name: str) -> int:
    """The line (1-based) where the key ``name`` is given, or 0."""
    pattern = re.compile(rf"""^\s*(\[\s*)?(["']?){re.escape(name)}\2\s*[=.\]]""")
    return next((n for n, line in enumerate(lines, 1) if pattern.match(line)), 0)


def _did_you_mean(name: str) -> str:
    close = difflib.get_close_matches(name.rpartition(".")[2], list(ACTIONS), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def _keys_of(action: KeyAction, value: object, line: int) -> tuple[str, ...]:
    """The keys ``value`` gives ``action``: a string (one key, or several joined by commas)
    or a list of strings."""
    if isinstance(value, str):
        written = value.split(",") if value.strip() not in (",", "") else [value]
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        written = value
    else:
        raise KeymapError(line, f"{action.name} takes a key or a list of keys, in quotes")
    keys: list[str] = []
    for text in written:
        try:
            key = key_name(text) if text.strip() != "," else "comma"
        except ValueError as error:
            raise KeymapError(line, str(error)) from None
        _check_key(action, key, line)
        if key not in keys:
            keys.append(key)
    if not keys:
        raise KeymapError(line, f"{action.name} is given no key")
    return tuple(keys)


def _check_key(action: KeyAction, key: str, line: int) -> None:
    if key in RESERVED:
        raise KeymapError(line, f'"{key}" cannot be a key of papertray\'s ({RESERVED[key]})')
    if action.where in (SEARCH_BAR, ANYWHERE) and (types_a_character(key) or key in EDITING_KEYS):
        raise KeymapError(line, f'{action.name} works while you type, so "{key}" cannot be '
                                "its key (it types or edits text)")


def _meet(one: KeyAction, other: KeyAction) -> bool:
    """Whether the keys of two actions work in the same place (a shared key would clash): the
    mark keys work in the reading view as well as on the results (:attr:`KeyAction.places`)."""
    return ANYWHERE in (one.where, other.where) or bool(one.places & other.places)


def _check_clashes(name: str, given: list[str], rebound: dict[str, tuple[str, ...]],
                   line: int) -> None:
    """``name``'s keys against those of the actions ``given`` before it in the file, and the
    default keys of the actions the file does not name."""
    action = ACTIONS[name]
    for other, other_action in ACTIONS.items():
        if other == name or not _meet(action, other_action) or (
                other in rebound and other not in given):
            continue
        keys = rebound.get(other, other_action.keys)
        shared = next((key for key in rebound[name] if key in keys), None)
        if shared is None:
            continue
        if other in rebound:
            raise KeymapError(line, f'"{shared}" is given to two actions, {other} and {name}')
        raise KeymapError(line, f'"{shared}" is already the key of {other} (give {other} '
                                "another key in this file too)")
