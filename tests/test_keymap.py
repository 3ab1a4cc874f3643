"""Your own keys, read without the browser: keys.toml in the config folder (PAPERTRAY_CONFIG_DIR
or the platform's), its key names as Textual's, each kind of bad file as one line naming the
line and the defaults, and ``papertray keys [--json]``."""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.keys import _character_to_key
from textual.widgets import Input

from tests.db_support import REPO, console_script
from tui.actions import ACTIONS, APP_ACTIONS, READING_ACTIONS, TABLE_ACTIONS
from tui.browser.app import PapertrayApp
from tui.browser.editors import TextPrompt
from tui.browser.reading_screen import ReadingScreen
from tui.browser.widgets import ResultsTable
from tui.keymap import EDITING_KEYS, KEYS_FILE, config_dir, key_name, load_keymap

DEFAULTS = {name: action.keys for name, action in ACTIONS.items()}


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / KEYS_FILE
    path.write_text(text, encoding="utf-8")
    return path


def _shown() -> str:
    """The file as a notice names it: the config folder is in the tests' home folder."""
    return "~/" + (config_dir() / KEYS_FILE).relative_to(Path.home()).as_posix()


def test_the_config_folder_is_the_platforms_unless_papertray_config_dir_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixtures point XDG_CONFIG_HOME into tmp: no test reads the user's keys."""
    assert config_dir() == Path(os.environ["XDG_CONFIG_HOME"]) / "papertray"
    assert str(config_dir()).startswith(os.environ["HOME"])
    monkeypatch.setenv("PAPERTRAY_CONFIG_DIR", str(tmp_path / "mine"))
    assert config_dir() == tmp_path / "mine"
    _write(tmp_path / "mine", 'mark-read = "R"\n')
    assert load_keymap().keys["mark-read"] == ("R",)


def test_the_bindings_are_made_from_the_table_of_actions() -> None:
    """One source of truth: the app's and the table's bindings are the actions' defaults."""
    app = [(b.id, b.key, b.action, b.tooltip, b.show, b.priority)
           for b in PapertrayApp.BINDINGS if isinstance(b, Binding)]
    assert app == [(a.id, ",".join(a.keys), a.action, a.tooltip, a.show, a.priority)
                   for a in APP_ACTIONS]
    table = [(b.id, b.key) for b in ResultsTable.BINDINGS if isinstance(b, Binding)]
    assert table == [(a.id, ",".join(a.keys)) for a in TABLE_ACTIONS]
    # the reading view's: its own, and the app's that work there too, under the app's ids
    # (keys.toml gives a mark key to both places at once)
    reading = {b.id: (b.key, b.action) for b in ReadingScreen.BINDINGS if isinstance(b, Binding)}
    assert reading == {**{a.id: (",".join(a.keys), a.action) for a in READING_ACTIONS},
                       **{a.id: (",".join(a.keys), f"app.{a.reading}") for a in APP_ACTIONS
                          if a.reading}}
    assert {a.name for a in APP_ACTIONS if a.reading} == {
        "help", "mark-read", "mark-to-read", "mark-dismissed", "mark-new", "undo", "open-link",
        "open-code", "copy-link", "copy-abstract", "copy-citation"}
    # no name twice
    assert len(ACTIONS) == len(APP_ACTIONS) + len(TABLE_ACTIONS) + len(READING_ACTIONS)


def test_no_file_means_the_default_keys() -> None:
    keymap = load_keymap()
    assert (keymap.keys, keymap.rebound, keymap.notice) == (DEFAULTS, (), None)
    assert keymap.for_textual() == {}


def test_a_file_rebinds_the_actions_it_names_and_no_other(tmp_path: Path) -> None:
    path = _write(tmp_path, '# my keys\nmark-read = "R"\nmark-to-read = ["T", "ctrl+t"]\n'
                            'down = "j,down,ctrl+n"\nhelp = ["?", "F1"]\n')
    keymap = load_keymap(path)
    assert keymap.notice is None
    assert keymap.rebound == ("mark-read", "mark-to-read", "down", "help")
    assert keymap.keys == {**DEFAULTS, "mark-read": ("R",), "mark-to-read": ("T", "ctrl+t"),
                           "down": ("j", "down", "ctrl+n"), "help": ("question_mark", "f1")}
    textual = keymap.for_textual()
    assert textual["app.mark-read"] == "R" and textual["table.down"] == "j,down,ctrl+n"
    assert "app.sort" not in textual  # neither rebound nor in the footer


def test_the_reading_view_and_the_results_may_share_keys_not_the_marks(tmp_path: Path) -> None:
    """n is next-new on the results only: the reading view may give it to read-next; x marks
    new in both places, so read-close cannot have it."""
    keymap = load_keymap(_write(tmp_path, 'read-next = ["j", "n"]\n'))
    assert keymap.notice is None and keymap.keys["read-next"] == ("j", "n")
    keymap = load_keymap(_write(tmp_path, 'read-close = ["escape", "x"]\n'))
    assert keymap.notice is not None
    assert '"x" is already the key of mark-new' in keymap.notice


def test_two_actions_may_swap_their_keys(tmp_path: Path) -> None:
    keymap = load_keymap(_write(tmp_path, 'mark-read = "t"\nmark-to-read = "r"\n'))
    assert keymap.notice is None
    assert (keymap.keys["mark-read"], keymap.keys["mark-to-read"]) == (("t",), ("r",))


@pytest.mark.parametrize(("written", "name"), [
    ("?", "question_mark"), ("#", "number_sign"), ("/", "slash"), ("R", "R"), ("7", "7"),
    ("shift+r", "R"), ("Esc", "escape"), ("PgDn", "pagedown"), ("ctrl+A", "ctrl+shift+a"),
    ("shift+ctrl+left", "ctrl+shift+left"), ("f12", "f12"), ("space", "space"), ("+", "plus"),
    ("ctrl++", "ctrl+plus"), ("alt+x", "alt+x"), ("é", "é"),
])
def test_key_names_are_textuals(written: str, name: str) -> None:
    assert key_name(written) == name


def test_every_character_is_named_as_textual_names_it() -> None:
    for character in string.ascii_letters + string.digits + string.punctuation + "é§":
        assert key_name(character) == _character_to_key(character), character


@pytest.mark.parametrize("written", ["pgdown", "ctrl+", "x+y", "crtl+x", "ctrl+ctrl+x", "f25",
                                     "", "Enterr"])
def test_an_unknown_key_is_refused(written: str) -> None:
    with pytest.raises(ValueError, match="unknown key"):
        key_name(written)


def test_the_keys_kept_for_typing_are_textuals_input_keys() -> None:
    """An action that works while you type (leaving the search bar, quitting anywhere) can have
    none of the keys that edit its text: Textual's Input's (Enter aside) and the editors'."""
    textual = {k for b in Binding.make_bindings([*Input.BINDINGS, *TextPrompt.BINDINGS])
               for k in b.key.split(",")} - {"enter", "escape", "ctrl+c"}
    assert textual <= EDITING_KEYS


#: Each kind of bad file, and its one line (``~`` is the tests' home folder).
BAD_FILES = [
    ('mark-read = "R"\nmark-reed = "x"\n',
     'line 2: unknown action "mark-reed" (did you mean mark-read?)'),
    ('app.mark-read = "R"\n', 'line 1: unknown action "app.mark-read" (did you mean mark-read?)'),
    ('\n\nmark-read = "pgdown"\n', 'line 3: unknown key "pgdown"'),
    ('mark-read = "R"\nmark-to-read = "R"\n',
     'line 2: "R" is given to two actions, mark-read and mark-to-read'),
    ('similar = "t"\n', 'line 1: "t" is already the key of mark-to-read (give mark-to-read '
                        "another key in this file too)"),
    ('down = ["j", "n"]\n', 'line 1: "n" is already the key of next-new (give next-new '
                            "another key in this file too)"),
    # the mark keys work in the reading view too: there j reads the next paper
    ('mark-read = "j"\ndown = "down"\n', 'line 1: "j" is already the key of read-next (give '
                                         "read-next another key in this file too)"),
    ('mark-read = "R"\nmark-to-read = \n', "line 2: not TOML (invalid value)"),
    ('mark-read = "R"\nmark-read = "T"\n', "line 2: not TOML (cannot overwrite a value)"),
    ("mark-read = 3\n", "line 1: mark-read takes a key or a list of keys, in quotes"),
    ("mark-read = []\n", "line 1: mark-read is given no key"),
    ('mark-read = "ctrl+h"\n',
     'line 1: "ctrl+h" cannot be a key of papertray\'s (terminals send it for Backspace)'),
    ('quit-anywhere = "x"\n', 'line 1: quit-anywhere works while you type, so "x" cannot be '
                              "its key (it types or edits text)"),
    ('leave-search = "ctrl+w"\n', 'line 1: leave-search works while you type, so "ctrl+w" '
                                  "cannot be its key (it types or edits text)"),
]


@pytest.mark.parametrize(("text", "said"), BAD_FILES, ids=[s for _, s in BAD_FILES])
def test_a_bad_file_is_one_line_naming_the_line_and_the_defaults(text: str, said: str) -> None:
    path = _write(config_dir(), text)
    keymap = load_keymap()
    assert keymap.notice == f"{_shown()} {said}; the default keys are used"
    assert (keymap.keys, keymap.rebound, keymap.for_textual()) == (DEFAULTS, (), {})
    assert path.exists()


def test_a_file_that_is_no_text_is_one_line_and_the_defaults(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.setenv("PAPERTRAY_CONFIG_DIR", str(tmp_path))
    (tmp_path / KEYS_FILE).write_bytes(b"mark-read = \xff\n")
    keymap = load_keymap()
    assert keymap.notice == (f"{tmp_path / KEYS_FILE}: cannot be read (not UTF-8 text); "
                             "the default keys are used")
    assert keymap.keys == DEFAULTS


# -- papertray keys ----------------------------------------------------------------------------

def test_papertray_keys_prints_every_action_its_keys_and_what_it_does(run_cli) -> None:
    out = run_cli("keys")
    assert out.exit_code == 0 and out.stderr == ""
    lines = out.stdout.splitlines()
    assert lines[0] == f"{config_dir() / KEYS_FILE}: no such file, the default keys"
    assert lines[1].split() == ["action", "keys", "what", "it", "does"]
    rows = lines[2:]
    assert [row.split()[0] for row in rows] == list(ACTIONS)
    assert rows[0].split(None, 3) == ["down", "down", "j", "Move to the next paper"]
    mark = next(row for row in rows if row.startswith("mark-read "))
    assert mark.split(None, 2) == ["mark-read", "r", ACTIONS["mark-read"].tooltip]


def test_papertray_keys_shows_the_keys_in_force_and_the_defaults(run_cli) -> None:
    path = _write(config_dir(), 'mark-read = "R"\ndown = ["j", "ctrl+n"]\n')
    out = run_cli("keys")
    assert out.exit_code == 0
    lines = out.stdout.splitlines()
    assert lines[0] == f"{path}: your keys for mark-read, down"
    mark = next(row for row in lines if row.startswith("mark-read "))
    assert mark.split(None, 2) == ["mark-read", "R",
                                   f"{ACTIONS['mark-read'].tooltip} (default: r)"]
    down = next(row for row in lines if row.startswith("down "))
    assert down.split(None, 3)[:3] == ["down", "j", "ctrl+n"]
    assert down.endswith("(default: down j)")


def test_papertray_keys_json(run_cli) -> None:
    path = _write(config_dir(), 'mark-to-read = ["T", "ctrl+t"]\n')
    data = run_cli("keys", "--json").json()
    assert set(data) == {"file", "found", "notice", "actions"}
    assert (data["file"], data["found"], data["notice"]) == (str(path), True, None)
    assert [a["name"] for a in data["actions"]] == list(ACTIONS)
    entry = next(a for a in data["actions"] if a["name"] == "mark-to-read")
    assert entry == {"name": "mark-to-read", "id": "app.mark-to-read", "keys": ["T", "ctrl+t"],
                     "default": ["t"], "where": "results",
                     "description": ACTIONS["mark-to-read"].tooltip}


def test_papertray_keys_with_a_bad_file_says_the_line_prints_the_defaults_exits_1(
        run_cli) -> None:
    path = _write(config_dir(), 'mark-read = "R"\nmark-reed = "x"\n')
    out = run_cli("keys", "--json")
    assert out.exit_code == 1
    notice = (f'{_shown()} line 2: unknown action "mark-reed" (did you mean mark-read?); '
              "the default keys are used")
    assert out.stderr == f"papertray: {notice}\n"
    data = json.loads(out.stdout)
    assert (data["file"], data["notice"]) == (str(path), notice)
    assert {a["name"]: tuple(a["keys"]) for a in data["actions"]} == DEFAULTS


def test_papertray_keys_takes_papertray_config_dir_and_loads_no_textual(tmp_path: Path) -> None:
    """The real console script, in a new process: the folder of $PAPERTRAY_CONFIG_DIR, and the
    command line's keys come without the browser (Textual, Rich)."""
    _write(tmp_path / "conf", 'undo = "U"\n')
    env = {**os.environ, "PAPERTRAY_CONFIG_DIR": str(tmp_path / "conf")}
    out = subprocess.run([*console_script(), "keys"], capture_output=True, text=True, env=env,
                         timeout=60, check=True)
    assert out.stdout.splitlines()[0] == f"{tmp_path / 'conf' / KEYS_FILE}: your keys for undo"
    code = ("import sys; from tui.cli.main import cli; from tui.cli.keys import keys_json; "
            "from tui.keymap import load_keymap; keys_json(load_keymap()); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=REPO, timeout=60, check=True)
    assert out.stdout == "[]\n"
