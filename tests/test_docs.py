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
