"""HWC302's conversion against torch's real ``instantiate_device_type_tests`` (torch 2.13, CPU build).

The CUDA, XPU, MPS and PrivateUse1 device bases are faked in a fresh interpreter (present, with a
primary device and no device set-up), as the hwselect torch tests fake a PrivateUse1 backend; the
converted classes must then generate, for every accelerator and not for the CPU, exactly the tests
the CUDA-only classes had.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.cli.check import main
from tests.test_select_torch import PRELUDE

# torch is imported by the processes the tests start, never at collection: every xdist worker
# would pay seconds for it
if importlib.util.find_spec("torch") is None:
    pytest.skip("torch is not installed", allow_module_level=True)
pytestmark = pytest.mark.torch

CUDA_ONLY = """

class TestFoo(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_add(self):
        x = torch.ones(2, device="cuda")
        torch.cuda.synchronize()
        self.assertEqual(x.device.type, "cuda")

    def test_move(self):
        return torch.zeros(2).cuda()


instantiate_device_type_tests(TestFoo, globals(), only_for="cuda")


class TestBar(TestCase):
    def test_one(self):
        torch.ones(1).cuda(non_blocking=True)

    def test_two(self):
        torch.cuda.empty_cache()
        return torch.empty(1, device="cuda:0")
"""

# Prints {class name: its test methods} for the Test* classes of each module named on the command line.
PROBE = """
import importlib, json, sys
from torch.testing._internal import common_device_type as cdt

for base in (cdt.CUDATestBase, cdt.XPUTestBase, cdt.MPSTestBase, cdt.PrivateUse1TestBase):
    base.primary_device = base.device_type + ":0"
    base.setUpClass = classmethod(lambda cls: None)
cdt.device_type_test_bases[:] = [cdt.CPUTestBase, cdt.CUDATestBase, cdt.PrivateUse1TestBase]
cdt.TEST_XPU = cdt.TEST_MPS = True
sys.path.insert(0, ".")
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    print(json.dumps({
        name: sorted(m for m in vars(c) if m.startswith("test"))
        for name, c in vars(module).items()
        if isinstance(c, type) and name.startswith("Test") and name != "TestCase"
    }))
"""

# torch's suffix per generated class (an unregistered PrivateUse1 backend is "privateuseone")
SUFFIXES = {"CUDA": "cuda", "XPU": "xpu", "MPS": "mps", "PRIVATEUSE1": "privateuseone"}


def _classes(root: Path, *modules: str) -> list[dict[str, list[str]]]:
    proc = subprocess.run(
        [sys.executable, "probe.py", *modules],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [json.loads(line) for line in proc.stdout.splitlines()]


@pytest.mark.slow  # an interpreter that imports torch: about 10 s of CPU
def test_generalized_classes_generate_the_same_tests_for_every_accelerator(tmp_path, capsys):
    (tmp_path / "probe.py").write_text(PROBE)
    (tmp_path / "test_cuda_only.py").write_text(PRELUDE + CUDA_ONLY)
    target = tmp_path / "test_gen.py"
    target.write_text(PRELUDE + CUDA_ONLY)

    assert main(["check", "--isolated", "--no-cache", "--unsafe-fixes", "--fix", str(target)]) == 0
    text = target.read_text()[len(PRELUDE) :]
    assert text.count("HardwareClassification.ACCELERATOR") == 2
    assert '"cuda' not in text and ".cuda(" not in text
    assert "torch.accelerator.synchronize()" in text and "torch.accelerator.empty_cache()" in text
    capsys.readouterr()
    assert main(["check", "--isolated", "--no-cache", str(target)]) == 0
    assert capsys.readouterr().out == "All checks passed!\n"

    before, after = _classes(tmp_path, "test_cuda_only", "test_gen")
    assert before == {"TestFooCUDA": ["test_add_cuda", "test_move_cuda"], "TestBar": ["test_one", "test_two"]}
    original = {"TestFoo": {"test_add", "test_move"}, "TestBar": {"test_one", "test_two"}}
    expected = {
        generic + upper: sorted(f"{name}_{suffix}" for name in names)
        for generic, names in original.items()
        for upper, suffix in SUFFIXES.items()
    }
    assert after == expected  # every accelerator, the original names; nothing for cpu
