"""Every command that opens, copies, moves, backs up, checks or repairs a database file, run
while another papertray process holds the library open.

The holder is a real process with a library open (as a browser has). After each command it must
still hold its locks on both files, the ``-wal`` files must still be there, and a mark it makes
must reach the disk that the next command reads.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.db_support import console_script
from tests.test_locks import locked

PARM, WUDI = "0412d482", "655e745a"

HOLDER = """
import json, sys
from db import Library
lib = Library([sys.argv[1]], sys.argv[2])
lib.sync()
print("open", flush=True)
for line in sys.stdin:
    word, *rest = line.split()
    if word == "mark":
        lib.set_status([rest[0]], rest[1])
        print("ok", flush=True)
    else:  # the browser's poll: notices a replaced index, then reads the counts
        lib.needs_sync()
        print(json.dumps(lib.counts()), flush=True)
"""


class Holder:
    """A process that keeps the library open and answers ``mark ID STATUS`` and ``counts``."""

    def __init__(self, seeds: Path, data: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(seeds), str(data)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.ask() == "open"

    def ask(self, line: str | None = None) -> str:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if line is not None:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def holder(seeds_copy, data_dir):
    held = Holder(seeds_copy, data_dir)
    yield held
    held.close()


def _papertray(seeds: Path, data: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*console_script(), "--seeds", str(seeds), "--data-dir", str(data),
                           *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def _still_shared(holder: Holder, seeds: Path, data: Path, status: str) -> None:
    """The holder keeps its locks and its ``-wal`` files, and its next mark reaches the disk."""
    counts = json.loads(holder.ask("counts"))
    assert sum(counts[s] for s in ("new", "to-read", "read")) == counts["all"] == 35
    for name in ("index.sqlite", "marks.sqlite"):
        assert locked(data / name, holder.proc.pid), f"the holder lost its lock on {name}"
        assert (data / f"{name}-wal").exists(), f"{name}-wal was deleted under the holder"
    assert holder.ask(f"mark {PARM} {status}") == "ok"
    listed = json.loads(_papertray(seeds, data, "list", "--status", status, "--json").stdout)
    assert [h["short_id"] for h in listed["hits"]] == [PARM]


def _damage_index(data: Path) -> None:
    """Turn the index's pages after the first two to noise (in another process: this one must
    not open a database file by other means, see db.store.files)."""
    code = ("import sqlite3, sys\nfrom pathlib import Path\npath = Path(sys.argv[1])\n"
            "conn = sqlite3.connect(path)\nconn.execute('PRAGMA wal_checkpoint(TRUNCATE)')\n"
            "conn.close()\nwith path.open('r+b') as fh:\n"
            "    for offset in range(2 * 16384, path.stat().st_size, 16384):\n"
            "        fh.seek(offset); fh.write(bytes(range(200)))\n")
    subprocess.run([sys.executable, "-c", code, str(data / "index.sqlite")], check=True)


COMMANDS = {
    "marks backup": ["marks", "backup"],
    "marks repair (a sound file: checked only)": ["marks", "repair"],
    "stats (checks the marks file)": ["stats"],
    "sync --force": ["sync", "--force"],
    "export to a file": ["export", "-o", "{tmp}/papers.md"],
    "marks export and import": ["marks", "export", "{tmp}/marks.json"],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_beside_a_holder(name, holder, seeds_copy, data_dir, tmp_path):
    args = [a.format(tmp=tmp_path) for a in COMMANDS[name]]
    done = _papertray(seeds_copy, data_dir, *args)
    assert done.returncode == 0, done.stderr
    if args[:2] == ["marks", "export"]:
        imported = _papertray(seeds_copy, data_dir, "marks", "import", str(tmp_path /
                                                                            "marks.json"))
        assert imported.returncode == 0, imported.stderr
    _still_shared(holder, seeds_copy, data_dir, "read")
    _still_shared(holder, seeds_copy, data_dir, "to-read")


def test_a_restore_is_refused_beside_a_holder(holder, seeds_copy, data_dir):
    assert holder.ask(f"mark {WUDI} to-read") == "ok"
    assert _papertray(seeds_copy, data_dir, "marks", "backup").returncode == 0
    refused = _papertray(seeds_copy, data_dir, "marks", "restore")
    assert refused.returncode == 1 and "is open in another papertray" in refused.stderr
    _still_shared(holder, seeds_copy, data_dir, "read")


def test_a_damaged_index_rebuilt_elsewhere_is_picked_up_by_the_holder(holder, seeds_copy,
                                                                      data_dir):
    """Another papertray sets the damaged index aside and builds a new one: the holder moves to
    the new file at its next poll, keeps its locks there, and its marks land."""
    assert holder.ask(f"mark {WUDI} to-read") == "ok"
    _damage_index(data_dir)
    rebuilt = _papertray(seeds_copy, data_dir, "search", "graph", "--json")
    assert rebuilt.returncode == 0
    assert "moved it to index.sqlite.broken-" in rebuilt.stderr
    assert json.loads(holder.ask("counts"))["to-read"] == 1
    _still_shared(holder, seeds_copy, data_dir, "read")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_serve_beside_a_holder_opens_no_database_file(holder, seeds_copy, data_dir):
    """``serve`` starts a browser process per visitor; the server itself holds no file."""
    port = _free_port()
    server = subprocess.Popen([*console_script(), "--seeds", str(seeds_copy), "--data-dir",
                               str(data_dir), "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    try:
        end = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    assert page.status == 200
                break
            except (urllib.error.URLError, ConnectionError):
                assert server.poll() is None and time.monotonic() < end, "serve never answered"
                time.sleep(0.1)
        files = [str(p.readlink()) for p in Path(f"/proc/{server.pid}/fd").iterdir()
                 if p.is_symlink()]
        assert [f for f in files if str(data_dir) in f] == []
        _still_shared(holder, seeds_copy, data_dir, "read")
    finally:
        server.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            server.wait(timeout=10)
        if server.poll() is None:
            server.kill()
            server.wait()
