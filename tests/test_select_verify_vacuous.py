"""``hwselect verify`` never passes on nothing (issue 48, item 3).

A comparison that cannot fail is worse than none: a module pytest cannot collect, no torch in the
interpreter that collects, or no class collected at all is exit 2 with the reason, not "no
difference". The files here need no torch (the runtime's ``getattr`` test by member name decides);
"no torch" is made by a ``-p`` plugin that hides it, as a venv without torch would.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pytest_server import pytest_env

pytestmark = pytest.mark.slow  # each test runs hwselect and a pytest session (2 to 4 s)

ENUM = """import enum
import unittest

HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")
"""

FILES = {
    "test_a.py": ENUM
    + """

class TestA(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_x(self):
        pass

    def test_y(self):
        pass


class TestB(unittest.TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_z(self):
        pass
""",
    "test_empty.py": ENUM,
    "broken/test_broken.py": "import hwlint_no_such_module_anywhere\n",
    "_no_torch.py": "import sys\n\nsys.modules['torch'] = None  # as in an interpreter without torch\n",
}

needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("vacuous")
    for name, body in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


def verify(root: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "hwselect"
    env = pytest_env({"PYTHONPATH": f"{root}:{pytest_env().get('PYTHONPATH', '')}"})
    return subprocess.run([str(exe), "verify", *args], cwd=root, env=env, capture_output=True, text=True)


@needs_torch
def test_a_sound_comparison_passes_and_says_what_it_compared(tree):
    proc = verify(tree, "cpu", "test_a.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "hwselect verify: no difference; compared 2 classes (3 tests)"
    assert proc.stderr == ""


@needs_torch
def test_a_module_that_fails_to_collect_is_exit_2_unless_allowed(tree):
    proc = verify(tree, "cpu", "test_a.py", "broken")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "hwselect verify: error: 1 module failed to collect and could not be compared: " in proc.stderr
    assert "test_broken.py" in proc.stderr
    allowed = verify(tree, "cpu", "test_a.py", "broken", "--allow-uncollectable")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "1 module failed to collect (not compared): " in allowed.stdout


@needs_torch
def test_no_class_collected_is_exit_2(tree):
    proc = verify(tree, "cpu", "test_empty.py")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pytest collected no test class, so nothing was compared" in proc.stderr
    assert proc.stdout.splitlines()[-1] == "hwselect verify: no difference; compared 0 classes (0 tests)"


def test_no_torch_is_exit_2_naming_the_interpreter(tree):
    proc = verify(tree, "cpu", "test_a.py", "--", "-p", "_no_torch")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"hwselect verify: error: torch is not installed in {sys.executable}" in proc.stderr


def test_everything_failing_is_exit_2_even_when_allowed(tree):
    proc = verify(tree, "cpu", "broken", "--allow-uncollectable")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pytest collected no test class" in proc.stderr


@needs_torch
def test_the_plugin_verify_exits_2_when_it_compared_nothing(tree):
    env = pytest_env({"PYTHONPATH": f"{tree}:{pytest_env().get('PYTHONPATH', '')}"})
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "--hw-runner", "cpu", "--hw-verify"]
    empty = subprocess.run([*cmd, "test_empty.py"], cwd=tree, env=env, capture_output=True, text=True)
    assert empty.returncode == 2, empty.stdout + empty.stderr
    assert "hwselect verify: error: pytest collected no test class" in empty.stdout
    fine = subprocess.run([*cmd, "test_a.py"], cwd=tree, env=env, capture_output=True, text=True)
    assert fine.returncode == 0, fine.stdout + fine.stderr
