"""The README stays a first-hour read, and every page it or docs/ links to exists."""

from __future__ import annotations

import re

from .conftest import ROOT


def test_readme_fits_and_opens_with_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < 200
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("  #")[0].strip() for line in first_block.splitlines()]
    assert commands == [
        "pip install -e . && hwlint check examples/",
        "pip install -e '.[test]' && python -m pytest -q",
    ]
    for tool in ("## `hwlint check`", "## flake8", "## lintrunner", "## hwselect", "## Report"):
        assert tool in text


def test_relative_links_resolve():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    missing = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            path = (page.parent / target).resolve()
            if not path.exists():
                missing.append(f"{page.relative_to(ROOT)} -> {target}")
    assert missing == []


#: ``hwlint.x.y`` where it names code: not a TOML table (``tool.hwlint.per-file-ignores``) nor a
#: file or URL (``hwlint.git``, ``hwlint.toml``).
_DOTTED = re.compile(r"(?<![\w./-])hwlint(?:\.[A-Za-z_]\w*)+(?![\w-])")
_FILE_SUFFIXES = (".py", ".toml", ".yaml", ".md", ".git", ".json", ".txt")


def _resolves(name: str) -> bool:
    """Whether the dotted *name* is a module of hwlint, or an attribute (or dataclass field) of one."""
    import dataclasses
    import importlib

    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            fields = {f.name for f in dataclasses.fields(obj)} if dataclasses.is_dataclass(obj) else set()
            if not hasattr(obj, attr) and attr not in fields:
                return False
            obj = getattr(obj, attr, None)
        return True
    return False


def test_every_dotted_hwlint_name_in_the_code_and_docs_resolves():
    """A docstring or a page that names ``hwlint.kexpr`` after the module moved sends the reader
    nowhere: every ``hwlint.x.y`` in hwlint's sources, docs/ and the README names what exists."""
    pages = [
        *sorted((ROOT / "hwlint").rglob("*.py")),
        *sorted((ROOT / "docs").glob("*.md")),
        ROOT / "README.md",
    ]
    missing = set()
    for page in pages:
        for name in _DOTTED.findall(page.read_text()):
            if not name.endswith(_FILE_SUFFIXES) and not _resolves(name):
                missing.add(f"{page.relative_to(ROOT)}: {name}")
    assert sorted(missing) == []
    assert not _resolves("hwlint.kexpr") and _resolves("hwlint.pipeline.check.ProjectCheck.linked")


#: A date (2026-12-03) or a commit id (seven or more hex digits with a digit and a letter) in docs/:
#: the pages are a reference of what is true now; the history is git's.
_HISTORY = re.compile(r"\b20\d\d-\d\d(?:-\d\d)?\b|\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")


def test_docs_hold_no_dates_or_commit_ids():
    found = []
    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for row, line in enumerate(page.read_text().splitlines(), 1):
            found += [f"{page.relative_to(ROOT)}:{row}: {m}" for m in _HISTORY.findall(line)]
    assert found == []
