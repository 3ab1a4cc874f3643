"""The browser's export (key ``e`` and the palette) and a paper from a file with fields in the
abstract panel: real seed files in tmp, waits on conditions only."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events
from textual.command import CommandList
from textual.widgets import Static

from tests.tui_support import (
    app_on,
    copy_files,
    record_notifications,
    settle,
    shipped_app,
    shipped_copy,
    type_text,
    wait_for,
)

FORMATS = Path(__file__).resolve().parent / "data" / "formats"


async def _parm_to_read_alone(pilot) -> None:
    """Search "preference", mark its first hit (PARM) to-read, show to-read papers only."""
    await pilot.press("slash")
    await type_text(pilot, "preference")
    await settle(pilot)
    await pilot.press("enter", "t", "3")
    await settle(pilot)


async def test_e_exports_the_query_and_filter_and_says_where(tmp_path: Path) -> None:
    app, _seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _parm_to_read_alone(pilot)
        await pilot.press("e")
        await wait_for(pilot, lambda: any(n.startswith("exported") for n in notes), "export")
    written = sorted((data / "exports").glob("papertray-*.md"))
    assert [n for n in notes if n.startswith("exported")] == [
        f"exported 1 papers to {written[0]}"]
    lines = written[0].read_text(encoding="utf-8").splitlines()
    assert lines[0] == "# papertray: 1 papers matching `preference`"
    assert lines[2].startswith("- [ ] **PARM** — Multi-objective test-time alignment aims")
    assert lines[2].endswith("`0412d482` · to-read")


async def test_export_from_the_palette(tmp_path: Path) -> None:
    app = shipped_app(tmp_path)[0]
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await type_text(pilot, "export the papers shown")
        await wait_for(pilot, lambda: app.screen.query_one(CommandList).option_count > 0,
                       "palette hits")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.startswith("exported") for n in notes), "export")
    assert notes[-1].startswith("exported 35 papers to ")


async def test_the_panel_shows_title_authors_and_venue(tmp_path: Path) -> None:
    seeds, data = shipped_copy(tmp_path), tmp_path / "data"
    copy_files(seeds, [FORMATS / "icml_sample.json"])
    app = app_on(seeds, data)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await type_text(pilot, "au:malagon")
        await settle(pilot)
        assert app.table.row_count == 1
        content = app.panel.query_one("#abstract-body", Static).content
        text = content.plain if isinstance(content, Text) else str(content)
        lines = text.splitlines()
        assert lines[0].startswith("Craftium: Bridging Flexibility and Efficiency")
        assert lines[1] == "Craftium"
        assert lines[2] == "Mikel Malagón, Josu Ceberio, Jose A Lozano"
        assert lines[3].startswith("ICML 2025 · 002_877e65d5360e0aa3.txt:")


async def test_e_then_q_in_one_burst_still_writes_the_export(tmp_path: Path) -> None:
    """``e q`` typed together: the quit cancelled the export's worker before it had started,
    and no file was written, without a word (an ``e`` a moment earlier made the quit wait for
    the file). The export asked for before the quit is written as the browser closes."""
    app, _seeds, data = shipped_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await _parm_to_read_alone(pilot)
        app.post_message(events.Key("e", "e"))
        app.post_message(events.Key("q", "q"))
        await wait_for(pilot, lambda: not app.is_running, "the app to exit")
    written = sorted((data / "exports").glob("papertray-*.md"))
    assert len(written) == 1
    text = written[0].read_text(encoding="utf-8")
    assert "**PARM**" in text and text.count("\n- [") == 1


async def test_e_with_no_paper_shown_writes_no_file_and_says_so(tmp_path: Path) -> None:
    """``e`` with the to-read filter and nothing marked (or a query that finds nothing) wrote a
    checklist of no papers and said "exported 0 papers to ..."; it now says there is nothing
    to export and writes no file."""
    app, _seeds, data = shipped_app(tmp_path)
    notes = record_notifications(app)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        assert app.table.paper_ids == []
        await pilot.press("e")
        await wait_for(pilot, lambda: bool(notes), "a notification")
    assert notes == ["nothing to export: no paper matches the query and filter"]
    assert list((data / "exports").glob("*")) == []
