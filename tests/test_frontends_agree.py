"""flake8 and ``hwlint check`` report the same findings: the same file scope (files named as the
configuration's ``include`` says, or named on the command line) and the same file-level exemption
(``# hwlint: noqa[: CODES]`` is read by both; ``# ruff: noqa`` is ruff's and by neither). One
difference, on purpose: flake8 skips a file holding ``# flake8: noqa`` in any form before the plugin
sees it, and ``hwlint check`` checks it, as upstream's TEST_LINTER does (issue 51). Issue 28."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, run_tool

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
    "test_flake8_top.py": "# flake8: noqa\n" + BAD,  # flake8 skips the file; hwlint check does not
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


#: The files flake8 skips whole for their flake8 file-level noqa comment, which hwlint check checks.
FLAKE8_EXEMPT = {"test_flake8_top.py", "test_flake8_codes.py"}


def test_both_front_ends_report_the_same_findings(tree):
    flake8, check = _flake8(".", cwd=tree), _check(".", cwd=tree)
    assert flake8 == {f for f in check if f[0] not in FLAKE8_EXEMPT}
    assert sorted({(path, code) for path, _, _, code, _ in check}) == [
        ("test_flake8_codes.py", "HWC001"),
        ("test_flake8_top.py", "HWC001"),
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
    assert flake8 == {f for f in check if f[0] not in FLAKE8_EXEMPT}
    paths = {path for path, *_ in check}
    assert "helper.py" in paths and "test_plain.py" not in paths


def test_a_directive_inside_a_string_exempts_nothing_in_hwlint_check(tree):
    # flake8 matches its pattern on physical lines, strings included, and skips this file
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
SKIPPED_BY_FLAKE8 = {f"test/{rel}" for rel in REAL_FILES[:3]}


@pytest.mark.slow  # flake8 and hwlint check on real files, twice
@pytest.mark.skipif(not os.path.isdir(REAL_TREE), reason="PyTorch's test/ tree is not on this machine")
def test_both_front_ends_agree_on_real_files(tmp_path):
    root = tmp_path / "test"
    for rel in REAL_FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(REAL_TREE) / rel, root / rel)
    flake8, check = _flake8("test", cwd=tmp_path), _check("test", cwd=tmp_path)
    assert flake8 == {f for f in check if f[0] not in SKIPPED_BY_FLAKE8}
    assert {path for path, *_ in flake8} == {
        "test/ao/sparsity/test_data_scheduler.py",
        "test/autograd/test_complex.py",
        "test/test_type_info.py",
    }
    # hwlint check reads no flake8 file-level comment: the files flake8 skips are checked
    assert {path for path, *_ in check} >= SKIPPED_BY_FLAKE8
    # the directive is all that keeps flake8 from test_aotdispatch.py: without it, the two agree there
    aot = root / "functorch/test_aotdispatch.py"
    aot.write_text(aot.read_text().replace("# flake8: noqa: TOR901", "# (no directive)"))
    skipped = SKIPPED_BY_FLAKE8 - {"test/functorch/test_aotdispatch.py"}
    assert _flake8("test", cwd=tmp_path) == {f for f in _check("test", cwd=tmp_path) if f[0] not in skipped}


# -- every front end, on real files: the class another module instantiates ---------------------------

PRE_COMMIT_CONFIG = """repos:
  - repo: local
    hooks:
      - id: hwlint
        name: hwlint
        entry: {hwlint} check --force-exclude
        language: system
        types: [python]
        files: (^|/)(test_[^/]*|[^/]*_test)\\.py$
        require_serial: true
"""
CROSS_FILES = ["test_optim.py", "optim/test_swa_utils.py", "optim/test_lrscheduler.py", "optim/test_optim.py"]


def _four_front_ends(repo: Path, tmp_path: Path) -> dict[str, set]:
    """(path, line, col, code) of every finding of each front end, run from the root of *repo*."""

    def key(found: set) -> set:
        return {f[:4] for f in found}

    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "NO_COLOR": "1"}
    env.pop("PRE_COMMIT", None)
    hook = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color", "never"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert hook.returncode in (0, 1), hook.stdout + hook.stderr
    files = sorted(str(p.relative_to(repo)) for p in (repo / "test").rglob("test_*.py"))
    return {
        "tree": key(_check("test", cwd=repo)),
        "flake8": key(_flake8("test", cwd=repo)),
        "pre-commit": {f[:4] for f in _findings(hook.stdout)},
        "each file": set().union(*(key(_check(f, cwd=repo)) for f in files)),
        "flake8, each file": set().union(*(key(_flake8(f, cwd=repo)) for f in files)),
    }


@pytest.mark.slow  # pre-commit, flake8 and a check per file
@pytest.mark.skipif(not os.path.isdir(REAL_TREE), reason="PyTorch's test/ tree is not on this machine")
def test_every_front_end_sees_a_class_instantiated_in_another_module(tmp_path):
    # test/test_optim.py imports TestSWAUtils from test/optim/test_swa_utils.py; migrated as
    # upstream later did: the class declares ACCELERATOR and test_optim.py instantiates it
    repo = tmp_path / "pytorch"
    for rel in CROSS_FILES:
        (repo / "test" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(REAL_TREE) / rel, repo / "test" / rel)
    swa = repo / "test/optim/test_swa_utils.py"
    declared = "class TestSWAUtils(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
    swa.write_text(swa.read_text().replace("class TestSWAUtils(TestCase):\n", declared, 1))
    optim = repo / "test/test_optim.py"
    call = "instantiate_device_type_tests(TestSWAUtils, globals())\n"
    main = '\nif __name__ == "__main__":'
    optim.write_text(optim.read_text().replace(main, call + main, 1))
    (repo / "pyproject.toml").write_text((ROOT / "examples/pytorch/pyproject.toml").read_text())
    hwlint = Path(sys.executable).parent / "hwlint"
    (repo / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG.format(hwlint=hwlint))
    for args in (["init", "-q"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    found = _four_front_ends(repo, tmp_path)
    assert all(got == found["tree"] for got in found.values()), found
    swa_codes = {code for path, _, _, code in found["tree"] if path == "test/optim/test_swa_utils.py"}
    assert "HWC102" not in swa_codes and found["tree"]

    # without the call, every front end says the class is never instantiated
    optim.write_text(optim.read_text().replace(call, "", 1))
    again = _four_front_ends(repo, tmp_path)
    assert all(got == again["tree"] for got in again.values()), again
    assert again["tree"] - found["tree"] == {("test/optim/test_swa_utils.py", 26, 1, "HWC102")}
