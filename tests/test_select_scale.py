"""hwselect at scale: 10,000 selected classes, and an expression too long for one argument."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.conftest import run_tool
from tests.pytest_server import shared_server
from tests.select_suite import HEADER

FILES, PER_FILE = 50, 200  # 10,000 selected classes
# pytest collects a plain class in half the time it takes for a unittest.TestCase (fewer attributes to
# scan for fixtures); the node ids, and what hwselect sees, are the same.
assert "\nTestCase = unittest.TestCase\n" in HEADER
PLAIN_HEADER = HEADER.replace("\nTestCase = unittest.TestCase\n", "\n\nclass TestCase:\n    pass\n")
CLASS = (
    "class {name}(TestCase):\n"
    "    hw_classification = HardwareClassification.{member}\n"
    "    def test_a(self): pass\n"
)


def pytest_collect(root: Path, *args: str) -> set[str]:
    # (--assert=plain: a collection runs no assert, and rewriting 50 modules of 200 classes costs 1 s)
    proc = shared_server().run(root, ["--collect-only", "-q", "--assert=plain", *args])
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    return {line for line in proc.stdout.splitlines() if "::" in line}


@pytest.mark.slow
def test_ten_thousand_selected_classes(tmp_path):
    """Every tenth class has a CUDA twin whose name contains it (TestS3x40 / TestS3x40Cuda)."""
    expected = set()
    for f in range(FILES):
        parts = []
        for i in range(PER_FILE):
            parts.append(CLASS.format(name=f"TestS{f}x{i}", member="GENERIC"))
            expected.add(f"test_big{f}.py::TestS{f}x{i}::test_a")
            if i % 10 == 0:
                parts.append(CLASS.format(name=f"TestS{f}x{i}Cuda", member="CUDA"))
        (tmp_path / f"test_big{f}.py").write_text(PLAIN_HEADER + "\n".join(parts))
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")

    start = time.perf_counter()
    proc = run_tool("hwselect", "cpu", "--format", "k", cwd=tmp_path)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, proc.stderr
    assert "total=11000, selected=10000, unclassified=0, mismatched=1000 classes" in proc.stderr
    expression = proc.stdout.strip()
    assert "\n" not in expression and len(expression.encode()) < 131_071
    assert elapsed < 30
    assert pytest_collect(tmp_path, "-k", expression) == expected


def test_expression_over_the_argument_limit_is_an_error_with_the_argsfile_way(tmp_path):
    """800 of 1,600 classes with 200-character names: either way about 160 KB, too much for one argument.

    --format k then fails (exit 2) with the reason and the --argsfile alternative, which works."""
    expected = set()
    for f in range(4):
        parts = []
        for i in range(200):
            name = f"TestLong{f}x{i}".ljust(200, "Z")
            parts.append(CLASS.format(name=name, member="GENERIC"))
            expected.add(f"test_long{f}.py::{name}::test_a")
            parts.append(CLASS.format(name=f"TestOther{f}x{i}".ljust(200, "Y"), member="CUDA"))
        (tmp_path / f"test_long{f}.py").write_text(PLAIN_HEADER + "\n".join(parts))
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")

    proc = run_tool("hwselect", "cpu", "--format", "k", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert "over the 131,071-byte limit of one argument" in proc.stderr
    assert "--format k --argsfile sel.args" in proc.stderr

    written = run_tool("hwselect", "cpu", "--format", "k", "--argsfile", "sel.args", cwd=tmp_path)
    assert written.returncode == 0 and written.stdout == "@sel.args\n"
    lines = (tmp_path / "sel.args").read_text().splitlines()
    assert len(lines) == 800 and all("::TestLong" in line for line in lines)
    assert pytest_collect(tmp_path, "@sel.args") == expected
