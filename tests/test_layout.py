"""The package's layout is its architecture (issue 24, docs/design.md): layers that import only
downwards, no import cycle, selection blind to the rules, and modules and functions small enough
to read, or saying why they are not."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import ROOT

#: hwlint's layers, from the ground up: a module may import its own layer and those below it,
#: never one above. A name stands for the module or the package of that name.
LAYERS = (
    ("hwlint", "hwlint.words", "hwlint.roots", "hwlint.effects", "hwlint.keystore", "hwlint.taxonomy"),
    ("hwlint.model",),
    ("hwlint.collection", "hwlint.project", "hwlint.edits", "hwlint.context"),
    ("hwlint.infer", "hwlint.neutral"),
    ("hwlint.rules",),
    ("hwlint.pipeline",),
    ("hwlint.fix", "hwlint.select", "hwlint.report"),
    ("hwlint.cli", "hwlint.flake8_plugin", "hwlint.lintrunner", "hwlint.pytest_plugin", "hwlint.__main__"),
)
FRONT_ENDS = LAYERS[-1]

#: Imports that run against the layers today, each with its reason; the list only shrinks.
KNOWN_UPWARD: set[tuple[str, str]] = set()

MAX_MODULE_LINES = 800
MAX_UNEXPLAINED_FUNCTION_LINES = 60


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / "hwlint").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(module_level_only: bool) -> dict[str, set[str]]:
    """hwlint's modules (dotted) -> the hwlint modules they import: at module level only (what
    runs at import, and can make a cycle), or anywhere (an import in a function is a dependency
    too). ``if TYPE_CHECKING:`` imports nothing at run time and is left out."""
    modules = _modules()
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        tree = ast.parse(path.read_text())
        nodes = tree.body if module_level_only else list(ast.walk(tree))
        checking = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        found = set()
        for node in nodes:
            if id(node) in checking:
                continue
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                for alias in node.names:
                    candidate = f"{target}.{alias.name}"
                    found.add(candidate if candidate in modules else target)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        out[name] = {m for m in found if m != name and (m == "hwlint" or m.startswith("hwlint."))}
    return out


def _layer(module: str) -> int:
    best, layer = -1, -1
    for i, names in enumerate(LAYERS):
        for n in names:
            if (module == n or module.startswith(n + ".")) and len(n) > best:
                best, layer = len(n), i
    assert layer >= 0, f"{module} is on no layer: add it to LAYERS (and to docs/design.md)"
    return layer


def test_every_module_is_on_a_layer():
    for name in _modules():
        _layer(name)


def test_no_import_points_up_a_layer():
    """Layers point one way: report, select, rules and the rest never import a front end; the
    model never imports the rules; nothing imports the pipeline from below."""
    upward = sorted(
        (name, m)
        for name, imported in _imports(module_level_only=False).items()
        for m in imported
        if _layer(m) > _layer(name)
    )
    assert set(upward) <= KNOWN_UPWARD, [u for u in upward if u not in KNOWN_UPWARD]
    assert set(upward) == KNOWN_UPWARD, "an import of KNOWN_UPWARD is gone: strike it from the list"


def test_front_ends_do_not_import_one_another():
    """Each front end translates for itself; what two share lives below them (``hwlint.cli.common``)."""

    def owner(m: str) -> str:
        return next(f for f in FRONT_ENDS if m == f or m.startswith(f + "."))

    for name, imported in _imports(module_level_only=False).items():
        if _layer(name) != len(LAYERS) - 1 or name == "hwlint.__main__":
            continue
        others = {m for m in imported if _layer(m) == len(LAYERS) - 1 and owner(m) != owner(name)}
        assert not others, (name, others)


def test_no_import_cycle_between_hwlint_modules():
    """No module of hwlint imports, at module level, one that imports it back."""
    graph = _imports(module_level_only=True)

    def resolve(m: str) -> str:
        return m if m in graph else m.rpartition(".")[0]

    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(resolve(x) for x in graph.get(m, ())):
            if n not in graph or n == m:
                continue
            if state.get(n) == 1:
                cycle = [*stack[stack.index(n) :], n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_selection_does_not_import_rules():
    """hwselect mirrors the runtime's collection: it reads the collection model, never the rules
    (nor the inference the rules' fixes use)."""
    for name, imported in _imports(module_level_only=False).items():
        if name.startswith("hwlint.select"):
            bad = {m for m in imported if m.startswith(("hwlint.rules", "hwlint.infer", "hwlint.neutral"))}
            assert not bad, (name, bad)


@pytest.mark.parametrize("name", sorted(_modules()))
def test_no_module_is_over_800_lines(name):
    lines = len(_modules()[name].read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{name}: {lines} lines; split it along a seam"


def test_no_long_function_without_a_docstring():
    """A function over 60 lines is split, or its docstring says why it is one piece."""
    long = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if length > MAX_UNEXPLAINED_FUNCTION_LINES and not ast.get_docstring(node):
                    long.append(f"{name}.{node.name}: {length} lines")
    assert not long


def test_the_layout_checks_can_fail(tmp_path):
    """The import reader sees what the checks above rely on: a nested import, a relative one from a
    package's __init__, and none under ``if TYPE_CHECKING:``."""
    graph = _imports(module_level_only=False)
    assert "hwlint.rules.registry" in graph["hwlint.pipeline.baseline"]
    assert "hwlint.roots" in graph["hwlint.pipeline.config"]  # imported in a function
    assert "hwlint.taxonomy.load" in graph["hwlint.taxonomy"]  # from the package's __init__
    assert "hwlint.rules.check" not in graph["hwlint.cli.output"]  # only under TYPE_CHECKING
    assert _layer("hwlint.cli.check") > _layer("hwlint.report.render") > _layer("hwlint.words")
