"""Shared fixtures: the repository's taxonomies and a way to run the installed console scripts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.taxonomy import Taxonomy, load_taxonomy

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DEFAULT_TAXONOMY = ROOT / "taxonomy.yaml"
STRICT_TAXONOMY = EXAMPLES / "taxonomy-strict.yaml"
VENDOR_TAXONOMY = EXAMPLES / "taxonomy-vendor.yaml"

# test_*.py files under fixtures/ are checked, never collected (they import each other as modules)
collect_ignore_glob = ["fixtures/*"]


@pytest.fixture(scope="session")
def taxonomy() -> Taxonomy:
    return load_taxonomy(DEFAULT_TAXONOMY)


@pytest.fixture(scope="session")
def strict_taxonomy() -> Taxonomy:
    return load_taxonomy(STRICT_TAXONOMY)


@pytest.fixture(scope="session")
def vendor_taxonomy() -> Taxonomy:
    return load_taxonomy(VENDOR_TAXONOMY)


def run_tool(
    *args: str, cwd: Path | str | None = None, input: str | None = None
) -> subprocess.CompletedProcess:
    """Run a console script installed next to this interpreter (hwlint, hwselect, flake8, ...)."""
    exe = Path(sys.executable).parent / args[0]
    cmd = [str(exe) if exe.exists() else args[0], *args[1:]]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    return subprocess.run(cmd, cwd=cwd, input=input, capture_output=True, text=True, env=env, timeout=300)


def property_examples(default: int) -> int:
    """How many examples a property test draws: *default* (kept small, so the suite stays fast), or
    every property test's count in the long mode, ``HWLINT_PROPERTY_EXAMPLES=5000 python -m pytest``."""
    return int(os.environ.get("HWLINT_PROPERTY_EXAMPLES", default))


_MARK = re.compile(r"\b(HWC\d{3})(?:\[(!?\w+)\])?")


def expected(path: Path, taxonomy: str = "default") -> set[tuple[int, str]]:
    """(line, code) pairs marked in *path*'s trailing comments: `# HWC001`, `# HWC104[strict]`
    (only under that taxonomy) or `# HWC002[!vendor]` (under every other one)."""
    out = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue  # whole-line comments describe; trailing comments mark
        comment = line.partition("#")[2]
        for code, only in _MARK.findall(comment):
            if not only or only == taxonomy or (only.startswith("!") and only[1:] != taxonomy):
                out.add((lineno, code))
    return out
