"""The README is the user's contract: its set-up commands, every CLI command and option, the JSON
keys and the query syntax are documented, and CI runs the README's test command verbatim."""

from __future__ import annotations

import re

import click
import pytest

from db.marks.transfer import ImportSummary
from db.models import FileReport, Hit, SearchResult, SyncReport
from tests.db_support import REPO
from tui.cli.main import cli

README = (REPO / "README.md").read_text(encoding="utf-8")
TEST_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
                ".venv/bin/python -m pytest -q")


def _code_lines() -> list[str]:
    """Every line inside a fenced ```sh / ```bash / ```console block of the README."""
    blocks = re.findall(r"```(?:sh|bash|shell|console)\n(.*?)```", README, re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_has_the_test_command_and_ci_runs_it_verbatim():
    assert TEST_COMMAND in _code_lines()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in ci.splitlines()


def test_readme_has_exactly_two_one_line_set_up_commands():
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = [line.strip() for block in re.findall(r"```\w*\n(.*?)```", setup, re.DOTALL)
                for line in block.splitlines() if line.strip()]
    assert len(commands) == 2, commands
    run, test = commands
    assert run.startswith("python3 -m venv .venv && ") and run.endswith(".venv/bin/papertray")
    assert test == TEST_COMMAND


def _commands(group: click.Group, prefix: str = "papertray"):
    for name, command in sorted(group.commands.items()):
        yield f"{prefix} {name}", command
        if isinstance(command, click.Group):
            yield from _commands(command, f"{prefix} {name}")


def _long_options(command: click.Command) -> list[str]:
    found = []
    for param in command.params:
        if isinstance(param, click.Option):
            found += [o for o in param.opts + param.secondary_opts if o.startswith("--")]
    return found


@pytest.mark.parametrize(("path", "command"), list(_commands(cli)), ids=lambda v: str(v))
def test_every_command_and_option_is_in_the_readme(path, command):
    assert f"`{path}" in README, f"{path} is not documented"
    documented = README.split(f"`{path}", 1)[1]
    line = documented.split("\n", 1)[0]
    for option in _long_options(command):
        if option == "--help":
            continue
        assert option in line, f"{path} {option} is not on the README's line for {path}"


def test_global_options_are_in_the_readme():
    for option in _long_options(cli):
        assert f"`{option}" in README, option
    assert "PAPERTRAY_SEEDS" in README and "PAPERTRAY_DATA_DIR" in README


def test_json_keys_are_documented():
    hit = Hit("0" * 16, None, None, "", "new", 0.0, "", None)
    keys = set(hit.to_json()) | set(SearchResult("", "", "", 0, []).to_json())
    keys |= set(SyncReport().to_json()) | set(FileReport("", "loaded").to_json())
    keys |= {"abstract", "abstract_source", "urls", "orphan_marks", "problems", "collections",
             "entries", "files", "changed", "old", "new", "updated_at", "label", "authors",
             "year", "venue", "format", "version", "exported_at", "marks", "anchor"}
    keys |= set(ImportSummary().to_json())
    missing = sorted(k for k in keys if f'"{k}"' not in README)
    assert missing == []


def test_query_syntax_is_documented():
    section = README.split("## Query syntax", 1)[1].split("\n## ", 1)[0]
    for syntax in ('"exact phrase"', "-word", "word*", "OR", "is:new", "is:to-read", "is:read",
                   "has:code", "in:", "au:"):
        assert syntax in section, syntax


def test_readme_names_where_the_files_live():
    for text in ("index.sqlite", "marks.sqlite", "user_cache_dir", "user_data_dir", "--data-dir"):
        assert text in README
