"""What the rooms hold (issue 51): a name another module uses is public, and no module keeps
mutable state of a run (state travels with the session, or with a worker set up from it)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

from .conftest import ROOT


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _trees() -> dict[str, tuple[Path, ast.Module]]:
    return _parsed(ROOT)


@functools.cache
def _parsed(root: Path) -> dict[str, tuple[Path, ast.Module]]:
    """hwlint's modules, parsed once for every test here (the trees are only read)."""
    return {name: (path, ast.parse(path.read_text())) for name, path in _modules().items()}


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
    modules = _trees()
    found = []
    for name, (path, tree) in modules.items():
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


#: Calls that build a mutable container.
MUTABLE_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "bytearray",
        "defaultdict",
        "OrderedDict",
        "Counter",
        "deque",
        "WeakKeyDictionary",
    }
)
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "remove",
        "discard",
    }
)

#: Module-level state that is there today, each with why; the list only shrinks (issue 51: state
#: belongs to the session). A pool worker may keep per-process state its initializer set up from
#: the session's values; the other entries are process-wide memos.
KNOWN_STATE = {
    # a pool worker's per-process state, set by its initializer from the session's values
    # (or, while a run analyses files in this process, that run's own: restored when it is done)
    ("hwlint.pipeline.engine", "_worker"),
    ("hwlint.model.syntax", "_deferred"),  # a worker's trees, freed when it starts the next file
    # memos of pure functions of their key (a type, a taxonomy, a model), bounded or tiny
    ("hwlint.pipeline.cache", "_field_names"),
    ("hwlint.pipeline.cache", "_decoders"),
    ("hwlint.model.devices", "_VOCABULARIES"),
    ("hwlint.model.syntax", "_CHILD_FIELDS"),  # node type -> its child fields
    ("hwlint.project", "_loaded"),  # flake8's models of imported modules, by path, taxonomy, trees, stamp
    ("hwlint.fix.write", "_CLEANED"),  # when this process last swept a directory's stale temporaries
    # the rule table, filled as the rule modules are imported (each rule registers itself)
    ("hwlint.rules.base", "RULES"),
}


def _mutable_value(node: ast.expr) -> bool:
    if isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in MUTABLE_CALLS
    return False


def module_state() -> set[tuple[str, str]]:
    """(module, name) of every module-level name hwlint's code rebinds (``global``) or changes in
    place, and of every module-level mutable container not spelled as a constant (UPPER_CASE)."""
    found = set()
    for name, (_, tree) in _trees().items():
        top: set[str] = set()
        for node in tree.body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign)
                else []
            )
            value = getattr(node, "value", None)
            for t in targets:
                if isinstance(t, ast.Name):
                    top.add(t.id)
                    constant = t.id.lstrip("_").isupper() or t.id == "__all__"
                    if value is not None and _mutable_value(value) and not constant:
                        found.add((name, t.id))
        # what runs at import builds a constant; what a function does to a module's name is state
        inside = [
            n
            for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(f)
        ]
        for node in inside:
            if isinstance(node, ast.Global):
                found.update((name, n) for n in node.names)
            elif (  # CONSTANT[key] = ..., del CONSTANT[key]
                isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete))
                and any(
                    isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in top
                    for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target])
                )
            ):
                targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
                found.update((name, t.value.id) for t in targets if isinstance(t, ast.Subscript))  # type: ignore[union-attr]
            elif (  # CONSTANT.append(...)
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in MUTATORS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in top
            ):
                found.add((name, node.func.value.id))
    return found


def test_no_module_keeps_state_of_a_run():
    """No module-level mutable state outside constants: what a run decides travels with its session."""
    assert sorted(module_state() - KNOWN_STATE) == []


def test_the_known_state_is_still_there():
    """An entry of :data:`KNOWN_STATE` whose state is gone leaves the list."""
    assert sorted(KNOWN_STATE - module_state()) == []


def test_the_state_scan_finds_what_it_forbids(tmp_path, monkeypatch):
    package = tmp_path / "hwlint"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(
        "seen = []\nTABLE = {}\nFIXED = {'a': 1}\ncount = 0\n"
        "def f(k):\n    global count\n    count += 1\n    TABLE[k] = 1\n    return FIXED[k]\n"
    )
    monkeypatch.setattr(__import__(__name__, fromlist=["ROOT"]), "ROOT", tmp_path)
    assert module_state() == {("hwlint.a", "seen"), ("hwlint.a", "count"), ("hwlint.a", "TABLE")}
