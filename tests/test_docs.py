"""The docs are the user's contract. The README keeps the two set-up commands (CI runs the test
command verbatim) and links every page of docs/; docs/cli.md documents every CLI command, option
and JSON key; every relative link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from db.marks.transfer import ImportSummary
from db.models import FileReport, Hit, SearchResult, SyncReport
from tests.db_support import REPO
from tui.cli.keys import keys_json
from tui.cli.main import cli
from tui.keymap import load_keymap

DOCS = REPO / "docs"
README = (REPO / "README.md").read_text(encoding="utf-8")
CLI_DOC = (DOCS / "cli.md").read_text(encoding="utf-8")
TEST_COMMAND = ("python3 -m venv .venv && .venv/bin/pip install -q -e '.[test]' && "
                ".venv/bin/python -m pytest -q")


def _code_lines() -> list[str]:
    """Every line inside a fenced ```sh / ```bash / ```console block of the README."""
    blocks = re.findall(r"```(?:sh|bash|shell|console)\n(.*?)```", README, re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def _section(text: str, heading: str) -> str:
    """The text under ``heading`` (a whole heading line, e.g. "## Set up") up to the next heading
    of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    return re.split(rf"\n#{{1,{len(level)}}} ", body, maxsplit=1)[0]


def test_readme_has_the_test_command_and_ci_runs_it_verbatim():
    assert TEST_COMMAND in _code_lines()
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert TEST_COMMAND in ci.splitlines()


def test_readme_has_exactly_two_one_line_set_up_commands():
    setup = _section(README, "## Set up")
    commands = [line.strip() for block in re.findall(r"```\w*\n(.*?)```", setup, re.DOTALL)
                for line in block.splitlines() if line.strip()]
    assert len(commands) == 2, commands
    run, test = commands
    assert run.startswith("python3 -m venv .venv && ") and run.endswith(".venv/bin/papertray")
    assert test == TEST_COMMAND


def test_readme_stays_a_guide():
    """A newcomer's page: the reference lives in docs/."""
    assert len(README.splitlines()) <= 150


def test_readme_links_every_docs_page():
    linked = {Path(target).name for target in re.findall(r"\]\((docs/[^)#\s]+)", README)}
    pages = {page.name for page in DOCS.glob("*.md")}
    assert pages and pages <= linked, sorted(pages - linked)


def _relative_links(path: Path) -> list[tuple[str, str]]:
    """``(target, anchor)`` of every Markdown link in ``path`` that is not a URL."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    links = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:...
            continue
        file, _, anchor = target.partition("#")
        links.append((file, anchor))
    return links


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of ``path``."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


@pytest.mark.parametrize("page", [REPO / "README.md", *sorted(DOCS.glob("*.md"))],
                         ids=lambda p: p.name)
def test_relative_links_resolve(page: Path):
    broken = []
    for file, anchor in _relative_links(page):
        target = (page.parent / file).resolve() if file else page
        if not target.exists():
            broken.append(f"{file}: no such file")
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{file}#{anchor}: no such heading")
    assert broken == []


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
    return [o for o in found if o != "--help"]


@pytest.mark.parametrize(("path", "command"), list(_commands(cli)), ids=lambda v: str(v))
def test_every_command_and_option_is_in_the_cli_page(path, command):
    """Each command has its own section in docs/cli.md with a row for every option, and a line
    in the table of commands that names them too."""
    heading = next((h for h in (f"## `{path}`", f"### `{path}`") if f"\n{h}\n" in CLI_DOC), None)
    assert heading, f"docs/cli.md has no section for {path}"
    options = [line for line in _section(CLI_DOC, heading).splitlines()
               if line.startswith("| `")]
    rows = [line for line in CLI_DOC.splitlines() if line.startswith(f"| `{path}")]
    if not isinstance(command, click.Group):
        assert rows, f"{path} is not in the table of commands"
    for option in _long_options(command):
        assert any(option in row.split(" | ")[0] for row in options), \
            f"{path} {option} has no row in its section of docs/cli.md"
        assert option in rows[0], f"{path} {option} is not on its line of the table"


def test_global_options_are_in_the_cli_page():
    section = _section(CLI_DOC, "## Global options")
    for option in _long_options(cli):
        assert f"`{option}" in section, option
    assert "PAPERTRAY_SEEDS" in section and "PAPERTRAY_DATA_DIR" in section


def test_json_keys_are_documented():
    hit = Hit("0" * 16, None, None, "", "new", 0.0, "", None)
    keys = set(hit.to_json()) | set(SearchResult("", "", "", 0, []).to_json())
    keys |= set(SyncReport().to_json()) | set(FileReport("", "loaded").to_json())
    keys |= {"abstract", "abstract_source", "urls", "orphan_marks", "problems", "collections",
             "entries", "files", "changed", "old", "new", "updated_at", "label", "authors",
             "year", "venue", "format", "version", "exported_at", "marks", "anchor"}
    keys |= set(ImportSummary().to_json())
    actions = keys_json(load_keymap())
    keys |= set(actions) | set(actions["actions"][0])
    section = _section(CLI_DOC, "## JSON output")
    missing = sorted(k for k in keys if f'"{k}"' not in section)
    assert missing == []


QUERY_SYNTAX = ('"exact phrase"', "-word", "word*", "OR", "is:new", "is:to-read", "is:read",
                "is:dismissed",
                "has:code", "in:", "au:", "tag:", "like:")


@pytest.mark.parametrize("page", ["README.md", "docs/search.md"])
def test_query_syntax_is_documented(page):
    text = (REPO / page).read_text(encoding="utf-8")
    heading = "## Query syntax" if page == "README.md" else "## The query language"
    section = _section(text, heading)
    for syntax in QUERY_SYNTAX:
        assert syntax in section, syntax


def test_files_page_names_where_the_files_live():
    text = (DOCS / "files.md").read_text(encoding="utf-8")
    for name in ("index.sqlite", "marks.sqlite", "user_cache_dir", "user_data_dir", "--data-dir",
                 "PAPERTRAY_DATA_DIR", "settings.json", "keys.toml", "user_config_dir",
                 "PAPERTRAY_CONFIG_DIR"):
        assert name in text, name

