"""flake8 and ``hwlint check`` report the same findings: the same file scope (files named as the
configuration's ``include`` says, or named on the command line) and the same file-level exemptions
(``# flake8: noqa`` in any form skips the file in both, as flake8 skips it; ``# hwlint: noqa[:
CODES]`` is read by both; ``# ruff: noqa`` is ruff's and by neither). Issue 28."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import run_tool

BAD = "class TestA:\n    def test_x(self, device):\n        pass\n"  # HWC001 (and nothing else)
_LINE = re.compile(r"^(?:\./)?(.+?):(\d+):(\d+): (HWC\d{3}) (?:\[\w+\] )?(?:\[\*\] )?(.*)$")


def _findings(text: str) -> set[tuple[str, int, int, str, str]]:
    out = set()
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.add((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4), m.group(5)))
    return out


def _flake8(*args: str, cwd: Path) -> set:
    # flake8 as a module of this interpreter: a flake8 on PATH may load another hwlint
    res = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "HWC", "-j", "1", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode in (0, 1), res.stderr
    return _findings(res.stdout)


def _check(*args: str, cwd: Path) -> set:
    res = run_tool("hwlint", "check", "--no-cache", "--output-format", "concise", *args, cwd=cwd)
    assert res.returncode in (0, 1), res.stderr
    return _findings(res.stdout)


CASES = {
    "test_plain.py": BAD,  # reported by both
    "helper.py": BAD,  # not a test file name: neither (unless named)
    "test_flake8_top.py": "# flake8: noqa\n" + BAD,  # flake8 skips the file: so does hwlint check
    "test_flake8_codes.py": BAD + "\n\n# flake8: noqa: B950\n",  # any form, anywhere: the whole file
    "test_hwlint_all.py": "# hwlint: noqa\n" + BAD,
    "test_hwlint_codes.py": "# hwlint: noqa: HWC001\n" + BAD + "\n\nclass TestB:\n    hw_classification = 1\n"
    "\n    def test_y(self):\n        pass\n",  # HWC001 exempt, the HWC003 of TestB still reported
    "test_hwlint_other.py": "# hwlint: noqa: HWC2\n" + BAD,  # exempts HWC2xx only: HWC001 reported
    "test_hwlint_malformed.py": "# hwlint: noqa HWC001\n" + BAD,  # no colon: exempts nothing
    "test_ruff.py": "# ruff: noqa\n" + BAD,  # ruff's own directive: hwlint reports
    "test_trailing.py": "x = 1  # flake8: noqa\n" + BAD,  # not on a line of its own: flake8 ignores it
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for name, text in CASES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_both_front_ends_report_the_same_findings(tree):
    flake8, check = _flake8(".", cwd=tree), _check(".", cwd=tree)
    assert flake8 == check
    assert sorted({(path, code) for path, _, _, code, _ in check}) == [
        ("test_hwlint_codes.py", "HWC003"),
        ("test_hwlint_malformed.py", "HWC001"),
        ("test_hwlint_other.py", "HWC001"),
        ("test_plain.py", "HWC001"),
        ("test_ruff.py", "HWC001"),
        ("test_trailing.py", "HWC001"),
    ]


def test_a_file_named_on_the_command_line_is_checked_by_both(tree):
    assert _flake8("helper.py", cwd=tree) == _check("helper.py", cwd=tree) != set()


def test_the_configuration_sets_the_scope_of_both(tree):
    (tree / "hwlint.toml").write_text('include = ["*.py"]\nextend-exclude = ["test_plain.py"]\n')
    flake8, check = _flake8(".", cwd=tree), _check(".", cwd=tree)
    assert flake8 == check
    paths = {path for path, *_ in check}
    assert "helper.py" in paths and "test_plain.py" not in paths


def test_a_directive_inside_a_string_exempts_nothing_in_hwlint_check(tree):
    # flake8 matches its pattern on physical lines, strings included, and skips this file; hwlint
    # check reads comments only: the one place where they differ is on the side of reporting
    (tree / "test_string.py").write_text('DOC = """\n# flake8: noqa\n"""\n' + BAD)
    assert {p for p, *_ in _check("test_string.py", cwd=tree)} == {"test_string.py"}
    assert _flake8("test_string.py", cwd=tree) == set()


# -- on a copy of real files from PyTorch 2.6.0's test/ ----------------------------------------------

REAL_TREE = os.environ.get("HWLINT_REAL_TREE") or "/work/pt/src/pytorch-v2.6.0/test"
REAL_FILES = [
    "functorch/test_aotdispatch.py",  # "flake8: noqa: TOR901" at line 5,764: flake8 skips the file
    "export/test_swap.py",  # "flake8: noqa" at the top
    "higher_order_ops/test_invoke_subgraph.py",  # "flake8: noqa: B950"
    "export/opinfo_schema.py",  # not a test file name: flake8 read it, hwlint check did not
    "ao/sparsity/test_data_scheduler.py",  # plain files with findings
    "autograd/test_complex.py",
    "test_type_info.py",
]


@pytest.mark.skipif(not os.path.isdir(REAL_TREE), reason="PyTorch's test/ tree is not on this machine")
def test_both_front_ends_agree_on_real_files(tmp_path):
    root = tmp_path / "test"
    for rel in REAL_FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(REAL_TREE) / rel, root / rel)
    flake8, check = _flake8("test", cwd=tmp_path), _check("test", cwd=tmp_path)
    assert flake8 == check
    paths = {path for path, *_ in check}
    assert paths == {
        "test/ao/sparsity/test_data_scheduler.py",
        "test/autograd/test_complex.py",
        "test/test_type_info.py",
    }
    # the directive is what hides test_aotdispatch.py's findings, in both front ends
    aot = root / "functorch/test_aotdispatch.py"
    aot.write_text(aot.read_text().replace("# flake8: noqa: TOR901", "# (no directive)"))
    again = _check("test", cwd=tmp_path)
    assert {p for p, *_ in again} - paths == {"test/functorch/test_aotdispatch.py"}
    assert _flake8("test", cwd=tmp_path) == again
