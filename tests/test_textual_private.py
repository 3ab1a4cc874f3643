"""The private Textual names the browser uses are all listed in tui.browser.textual_private, and
each is still in the installed Textual: a Textual upgrade that drops or changes one fails here,
not in front of a reader."""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import re

import pytest
import textual

from tests.db_support import REPO
from tui.browser import textual_private
from tui.browser.textual_private import PRIVATE_NAMES, Private


def _owner(dotted: str) -> object:
    """The module or class named ``dotted`` (``textual.widgets.DataTable``)."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        module, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module), name)


def _defines(owner: object, name: str) -> bool:
    """Whether ``owner`` has ``name``: as an attribute, or (for a class) as an attribute its
    own or a Textual base's ``__init__`` or methods assign (``self._data = ...``)."""
    if hasattr(owner, name):
        return True
    if not inspect.isclass(owner):
        return False
    assigned = re.compile(rf"\bself\.{re.escape(name)}\b\s*(:[^=]*)?=[^=]")
    return any(assigned.search(inspect.getsource(cls)) for cls in owner.__mro__
               if cls.__module__.startswith("textual."))


@pytest.mark.parametrize("private", PRIVATE_NAMES, ids=lambda p: f"{p.owner}.{p.name}")
def test_each_private_name_is_in_the_installed_textual(private: Private) -> None:
    assert private.name.startswith("_") or private.owner.split(".")[1].startswith("_")
    assert private.why and private.checked == textual_private.CHECKED
    assert _defines(_owner(private.owner), private.name), (
        f"{private.owner}.{private.name} is gone from Textual {textual.__version__} (checked "
        f"with {private.checked}): {private.why}")


def test_the_copied_input_loop_is_textuals_as_checked() -> None:
    """PasteSafeDriver.run_input_thread follows Textual's line for line: Textual's changed."""
    linux_driver = pytest.importorskip("textual.drivers.linux_driver")
    source = inspect.getsource(linux_driver.LinuxDriver.run_input_thread)
    assert hashlib.sha256(source.encode()).hexdigest() == \
        textual_private.RUN_INPUT_THREAD_SHA256, (
            f"LinuxDriver.run_input_thread changed in Textual {textual.__version__}: carry the "
            "change over to PasteSafeDriver.run_input_thread, then update the checksum")


def _imports(path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
    return names


def test_only_textual_private_imports_private_textual_modules() -> None:
    found = {}
    for path in sorted((REPO / "tui").rglob("*.py")):
        private = [m for m in _imports(path) if m.startswith("textual.")
                   and any(part.startswith("_") for part in m.split(".")[1:])]
        if private:
            found[str(path.relative_to(REPO))] = private
    assert found == {"tui/browser/textual_private.py": ["textual._parser", "textual._xterm_parser"]}


def test_every_handler_of_a_workers_message_drops_it_once_the_app_stops() -> None:
    """A worker's answer may arrive as the app closes, its widgets gone (messages.while_running)."""
    from tui.browser.app import PapertrayApp
    from tui.browser.messages import WorkerMessage

    handlers = {}
    for cls in PapertrayApp.__mro__:
        for message_type, methods in vars(cls).get("_decorated_handlers", {}).items():
            if issubclass(message_type, WorkerMessage):
                for method, _selectors in methods:
                    handlers[method.__name__] = hasattr(method, "__wrapped__")
    assert len(handlers) == 13
    assert all(handlers.values()), handlers
