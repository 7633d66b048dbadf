"""HWC102 says what stands in the way of instantiating an ACCELERATOR class nothing instantiates,
as `hwlint check --show-fixes` (and `hwlint report`) print it: one row per blocker hwlint sees."""

from __future__ import annotations

import textwrap

import pytest

from .conftest import run_tool

HEAD = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase
from torch._inductor.test_case import TestCase as InductorTestCase
from torch.testing._internal.common_distributed import MultiProcessTestCase
"""

CASES = [
    (
        "no_device",
        """
        class TestX(TestCase):
            hw_classification = HardwareClassification.ACCELERATOR

            def test_a(self):
                pass
        """,
        "none of its tests takes `device`",
    ),
    (
        "some_device",
        """
        class TestX(TestCase):
            hw_classification = HardwareClassification.ACCELERATOR

            def test_a(self):
                pass

            def test_b(self, device):
                pass
        """,
        "1 of its 2 tests take no `device`",
    ),
    (
        "inductor_base",
        """
        class TestX(InductorTestCase):
            hw_classification = HardwareClassification.ACCELERATOR

            def test_a(self, device):
                pass
        """,
        "the `setUpClass` of its base from `torch._inductor.test_case` runs in the generated classes "
        "only where torch's instantiation calls it (2.13's does; 2.6's calls the device base's alone)",
    ),
    (
        "own_setup_class",
        """
        class TestX(TestCase):
            hw_classification = HardwareClassification.ACCELERATOR

            @classmethod
            def setUpClass(cls):
                super().setUpClass()

            def test_a(self, device):
                pass
        """,
        "`TestX.setUpClass` (line 9) runs in the generated classes only where torch's instantiation "
        "calls it (2.13's does; 2.6's calls the device base's alone)",
    ),
    (
        "distributed_base",
        """
        class TestX(MultiProcessTestCase):
            hw_classification = HardwareClassification.ACCELERATOR

            def test_a(self, device):
                x = "cuda"
        """,
        "its base `MultiProcessTestCase` runs its own processes: it is not instantiated per device",
    ),
]


@pytest.mark.parametrize(("source", "reason"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hwc102_names_what_blocks_instantiation(tmp_path, source, reason):
    (tmp_path / "test_x.py").write_text(HEAD + textwrap.dedent(source))
    out = run_tool(
        "hwlint",
        "check",
        "--isolated",
        "--no-cache",
        "--select",
        "HWC102",
        "--show-fixes",
        "test_x.py",
        cwd=tmp_path,
    ).stdout
    assert f"HWC102 no fix: instantiating `TestX` is no neutral fix: {reason}\n" in out, out


def test_hwc102_without_a_blocker_keeps_its_advice(tmp_path):
    (tmp_path / "test_x.py").write_text(
        HEAD
        + textwrap.dedent(
            """
            class TestX(TestCase):
                hw_classification = HardwareClassification.ACCELERATOR

                def test_a(self, device):
                    pass
            """
        )
    )
    out = run_tool(
        "hwlint",
        "check",
        "--isolated",
        "--no-cache",
        "--select",
        "HWC102",
        "--show-fixes",
        "test_x.py",
        cwd=tmp_path,
    ).stdout
    assert "HWC102 ACCELERATOR test class `TestX` is never passed" in out
    assert "no neutral fix" not in out
