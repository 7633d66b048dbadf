"""The pytest plugin as the first way to run a share (issue 48, item 1): it never imports a file
that holds none of the runner's tests, and sets or checks ``PYTORCH_TESTING_DEVICE_ONLY_FOR``.

Plain unittest classes with the enum defined in the file (the runtime's filter reads member names),
so no torch is needed; each case is one real ``pytest --collect-only`` session.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.pytest_server import pytest_env

ENUM = """import enum
import os
import unittest

HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")
"""

FILES = {
    "test_generic.py": ENUM
    + """
DEVICE = os.environ.get("PYTORCH_TESTING_DEVICE_ONLY_FOR")


class TestGeneric(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_sees_the_device(self):
        pass


class TestCudaHere(unittest.TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_c(self):
        pass


def test_device_variable():
    pass


print(f"device variable at import: {DEVICE}")
""",
    # importing it fails: collected only where one of its classes runs
    "test_cuda_only.py": ENUM
    + """

class TestCudaOnly(unittest.TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_k(self):
        pass


raise RuntimeError("test_cuda_only.py was imported")
""",
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("share")
    for name, body in FILES.items():
        (root / name).write_text(body)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


def collect(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = pytest_env(env)
    if env is None or "PYTORCH_TESTING_DEVICE_ONLY_FOR" not in env:
        environment.pop("PYTORCH_TESTING_DEVICE_ONLY_FOR", None)
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-s", *args]
    return subprocess.run(cmd, cwd=root, env=environment, capture_output=True, text=True, timeout=300)


@pytest.mark.slow
def test_a_file_without_the_runners_tests_is_not_imported(tree):
    cpu = collect(tree, "--hw-runner", "cpu", ".")
    assert cpu.returncode == 0, cpu.stdout + cpu.stderr
    assert "test_cuda_only.py was imported" not in cpu.stdout + cpu.stderr
    assert "hwselect: 1 test file without a test of runner cpu not imported" in cpu.stdout
    assert "test_generic.py::TestGeneric::test_sees_the_device" in cpu.stdout.splitlines()
    # on the cuda runner it holds tests, so it is imported (and fails, as it was written to)
    cuda = collect(tree, "--hw-runner", "cuda", ".")
    assert "test_cuda_only.py was imported" in cuda.stdout
    # a file named on the command line is not imported either (pytest's ignore hook would not see it)
    named = collect(tree, "--hw-runner", "cpu", "test_cuda_only.py", "test_generic.py")
    assert named.returncode == 0, named.stdout + named.stderr
    assert "test_cuda_only.py was imported" not in named.stdout
    # a node id in it is: the user asked for that test, and the plugin deselects it
    by_id = collect(tree, "--hw-runner", "cpu", "test_cuda_only.py::TestCudaOnly")
    assert "test_cuda_only.py was imported" in by_id.stdout


def test_the_device_variable_is_set_for_the_runner(tree):
    proc = collect(tree, "--hw-runner", "xpu", "test_generic.py::TestGeneric")  # imported: named by id
    assert "device variable at import: xpu" in proc.stdout


def test_a_conflicting_device_variable_is_an_error_that_names_it(tree):
    proc = collect(tree, "--hw-runner", "cuda", ".", env={"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu"})
    assert proc.returncode == 4, proc.stdout + proc.stderr
    assert (
        "ERROR: --hw-runner cuda: PYTORCH_TESTING_DEVICE_ONLY_FOR='cpu' leaves out the runner's device "
        "cuda, so torch would generate none of its classes; set PYTORCH_TESTING_DEVICE_ONLY_FOR=cuda or "
        "unset it"
    ) in proc.stderr
    agreeing = collect(
        tree, "--hw-runner", "cuda", "test_generic.py", env={"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cuda,cpu"}
    )
    assert agreeing.returncode == 0, agreeing.stdout + agreeing.stderr


def test_the_plugin_intersects_with_k_on_the_files_it_imports(tree):
    proc = collect(tree, "--hw-runner", "cuda", "test_generic.py", "-k", "not test_c")
    assert proc.returncode == 5, proc.stdout + proc.stderr  # TestCudaHere::test_c was its only test


COMPOSE = (
    ENUM
    + """
if os.environ.get("HW_NEVER_SET", "1"):  # a class under a condition: no certain node id

    class TestMaybe(unittest.TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_fast(self):
            pass

        def test_slow_path(self):
            pass


class TestCudaNext(unittest.TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_fast_cuda(self):
        pass


class TestElsewhere(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_fast_elsewhere(self):
        pass
"""
)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["nodeids", "k"])
def test_an_argsfile_composes_with_the_users_own_k(tmp_path, fmt):
    """``pytest @sel.args -k "not slow"`` (issue 48, item 2): a file listed whole ends the argument
    file with the plugin's options, not a ``-k`` of its own that the user's would replace (pytest
    keeps the last ``-k``), so the CUDA class next to it never runs on the cpu runner."""
    from tests.conftest import run_tool

    (tmp_path / "test_compose.py").write_text(COMPOSE)
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    out = run_tool("hwselect", "cpu", "--format", fmt, "--argsfile", "sel.args", ".", cwd=tmp_path)
    assert (out.returncode, out.stdout) == (0, "@sel.args\n"), out.stderr
    assert (tmp_path / "sel.args").read_text().splitlines() == ["test_compose.py", "--hw-runner", "cpu"]
    assert "the node ids end with `--hw-runner cpu` for the files listed whole" in out.stderr
    expected = {"test_compose.py::TestMaybe::test_fast", "test_compose.py::TestMaybe::test_slow_path"}
    expected |= {"test_compose.py::TestElsewhere::test_fast_elsewhere"}
    assert set(collect(tmp_path, "@sel.args").stdout.splitlines()) >= expected
    composed = collect(tmp_path, "@sel.args", "-k", "not slow")
    assert composed.returncode == 0, composed.stdout + composed.stderr
    got = {line for line in composed.stdout.splitlines() if "::" in line}
    assert got == expected - {"test_compose.py::TestMaybe::test_slow_path"}
    # what the file held before: its -k, replaced by the user's, let the CUDA class in
    (tmp_path / "old.args").write_text("test_compose.py\n-k\nTestMaybe or TestElsewhere\n")
    old = collect(tmp_path, "@old.args", "-k", "not slow")
    assert "test_compose.py::TestCudaNext::test_fast_cuda" in old.stdout
