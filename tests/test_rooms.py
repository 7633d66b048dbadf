"""What the rooms hold (issue 51): a name another module uses is public, and no module keeps
mutable state of a run (state travels with the session, or with a worker set up from it)."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _imported_from(name: str, path: Path, node: ast.ImportFrom) -> str:
    """The dotted module an ``from ... import`` in module *name* (at *path*) reads."""
    if node.level == 0:
        return node.module or ""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def private_imports() -> list[str]:
    """Every private name of an hwlint module that another hwlint module reads: imported by name
    (``from .text import _offset``) or through the module (``syntax._WordIndex``)."""
    modules = _modules()
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text())
        aliases: dict[str, str] = {}  # a local name bound to an hwlint module -> that module
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            source = _imported_from(name, path, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
                elif _private(alias.name) and source != name and source.startswith("hwlint"):
                    found.append(f"{name}:{node.lineno}: from {source} import {alias.name}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in aliases
                and _private(node.attr)
                and aliases[node.value.id] != name
            ):
                found.append(f"{name}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_is_used_by_another_module():
    """A name another module uses is public (no leading underscore), or the code moves."""
    assert private_imports() == []


def test_the_private_name_scan_finds_what_it_forbids(tmp_path, monkeypatch):
    """The scan above is not vacuous: it sees both spellings of a private name read from outside."""
    package = tmp_path / "hwlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("_hidden = 1\n")
    (package / "b.py").write_text("from .a import _hidden\nfrom . import a\nx = a._hidden\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    assert private_imports() == ["hwlint.b:1: from hwlint.a import _hidden", "hwlint.b:3: hwlint.a._hidden"]
