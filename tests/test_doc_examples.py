"""Every ``console`` block of the README and of docs/ is run, and its output compared exactly.

A block is one or more ``$ command`` lines, each followed by what it prints on standard output
(a command that wants its standard error shown redirects it, as a reader would). Commands run
with bash in a copy of the repository's ``examples/`` (so ``examples/test/...`` paths work), or,
after an ``<!-- console: cwd=DIR -->`` line, in a copy of DIR. A block that needs what the
suite does not have (PyTorch's test/ tree, torch) says so with ``<!-- console: skip: WHY -->``;
this test keeps that list short and explicit (SKIPPED below)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"(?:<!-- console: (?P<marker>[^>]*?) -->\n)?```console\n(?P<body>.*?)```", re.S)
#: the blocks that are not run, by document and first command: each needs something named
SKIPPED: dict[tuple[str, str], str] = {}


def _blocks():
    for doc in DOCS:
        text = doc.read_text()
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("body"))
            yield pytest.param(doc, m.group("marker") or "", m.group("body"), id=f"{doc.name}:{line}")


def _commands(body: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for line in body.splitlines(keepends=True):
        if line.startswith("$ "):
            out.append((line[2:].rstrip("\n"), ""))
        else:
            assert out, f"output before any command: {line!r}"
            out[-1] = (out[-1][0], out[-1][1] + line)
    return out


@pytest.mark.parametrize(("doc", "marker", "body"), list(_blocks()))
def test_console_block_prints_what_it_shows(doc, marker, body, tmp_path):
    commands = _commands(body)
    assert commands, "a console block holds `$ command` lines (use ```sh for commands alone)"
    if marker.startswith("skip:"):
        assert SKIPPED.get((doc.name, commands[0][0])) == marker[5:].strip(), (
            "a skipped block is listed in SKIPPED with its reason"
        )
        pytest.skip(marker)
    if marker.startswith("cwd="):
        cwd = tmp_path / "work"
        shutil.copytree(ROOT / marker[4:].strip(), cwd)
    else:
        assert not marker, f"unknown marker {marker!r}"
        cwd = tmp_path
        shutil.copytree(ROOT / "examples", cwd / "examples")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HWLINT_CACHE_DIR": str(tmp_path / "cache"),
        "NO_COLOR": "1",
        "COLUMNS": "100",
    }
    for command, expected in commands:
        res = subprocess.run(
            ["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=env, timeout=300
        )
        assert res.stdout == expected, f"{doc.name}: $ {command}\nstderr: {res.stderr}"


def test_skipped_blocks_are_few_and_listed():
    markers = [m for _, m, _ in (p.values for p in _blocks()) if m.startswith("skip:")]
    assert len(markers) == len(SKIPPED) <= 3
