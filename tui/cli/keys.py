"""``papertray keys``: every action of the browser, its keys in force and what it does, with the
names ``keys.toml`` takes (:mod:`tui.keymap`). It reads no library."""

from __future__ import annotations

import sys

import click

from tui.actions import ACTIONS
from tui.cli.output import emit_json
from tui.keymap import Keymap, load_keymap


def keys_json(keymap: Keymap) -> dict[str, object]:
    """``{"file", "found", "notice", "actions": [{"name", "id", "keys", "default", "where",
    "description"}]}``: the ``--json`` contract (docs/cli.md)."""
    return {
        "file": str(keymap.path), "found": keymap.path.exists(), "notice": keymap.notice,
        "actions": [{"name": name, "id": action.id, "keys": list(keymap.keys[name]),
                     "default": list(action.keys), "where": action.where,
                     "description": action.tooltip}
                    for name, action in ACTIONS.items()],
    }


def _print(keymap: Keymap) -> None:
    if keymap.rebound:
        click.echo(f"{keymap.path}: your keys for {', '.join(keymap.rebound)}")
    elif keymap.notice is None:
        state = "" if keymap.path.exists() else "no such file, "
        click.echo(f"{keymap.path}: {state}the default keys")
    rows = [(name, " ".join(keymap.keys[name]), action.tooltip
             + ("" if keymap.keys[name] == action.keys else
                f" (default: {' '.join(action.keys)})"))
            for name, action in ACTIONS.items()]
    name_width = max(len(name) for name, _, _ in rows)
    keys_width = max(len(keys) for _, keys, _ in rows)
    click.echo(f"{'action':<{name_width}}  {'keys':<{keys_width}}  what it does")
    for name, keys, description in rows:
        click.echo(f"{name:<{name_width}}  {keys:<{keys_width}}  {description}")


def register(cli: click.Group) -> None:
    """Add ``keys`` to the command group ``cli``."""

    @cli.command()
    @click.option("--json", "as_json", is_flag=True, help="Print the actions and keys as JSON.")
    def keys(as_json: bool) -> None:
        """Every action of the browser, its keys in force and what it does: the names and keys
        keys.toml in the config folder takes ($PAPERTRAY_CONFIG_DIR overrides the folder). A
        bad file: one line on stderr, the default keys, exit status 1."""
        keymap = load_keymap()
        if keymap.notice:
            click.echo(f"papertray: {keymap.notice}", err=True)
        if as_json:
            emit_json(keys_json(keymap))
        else:
            _print(keymap)
        if keymap.notice:
            sys.exit(1)
