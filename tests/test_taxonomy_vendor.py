"""A vendor adds a device, its classification and its runner by YAML alone: HPU, backend hccl.

The recipe in docs/taxonomy.md is the YAML below, merged into the bundled default; everything is
checked through the installed commands (`hwlint check`, `--fix --unsafe-fixes`, `hwselect`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from .conftest import DEFAULT_TAXONOMY, ROOT, run_tool

# what the vendor adds under the default's devices, classifications and runners
HPU = """\
devices:
  hpu:
    collective_backends: [hccl]
classifications:
  HPU:
    description: Runs only on HPU runners.
    device: hpu
runners:
  hpu:
    device: hpu
    runs: [ACCELERATOR, HPU]
"""

SUITE = """\
import torch
import torch.distributed as dist
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_distributed import requires_hccl
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestDeclaredHPU(TestCase):
    hw_classification = HardwareClassification.HPU

    def test_a(self):
        pass


class TestCollectives(TestCase):
    def test_init(self):
        dist.init_process_group(backend="hccl")

    def test_all_reduce(self):
        dist.init_process_group(backend="hccl")
        dist.all_reduce(torch.ones(1))


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_add(self, device):
        pass


instantiate_device_type_tests(TestOps, globals())


class TestGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_x(self):
        pass
"""

GUARDED = """\
from torch.testing._internal.common_distributed import requires_hccl
from torch.testing._internal.common_utils import TestCase


class TestOnlyGuarded(TestCase):
    @requires_hccl()
    def test_init(self):
        pass
"""


@pytest.fixture
def hpu_taxonomy(tmp_path: Path) -> Path:
    data = yaml.safe_load(DEFAULT_TAXONOMY.read_text())
    for section, entries in yaml.safe_load(HPU).items():
        data[section].update(entries)
    path = tmp_path / "taxonomy-hpu.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _check(taxonomy: Path, *args: str, cwd: Path) -> tuple[int, list[dict]]:
    res = run_tool(
        "hwlint", "check", "--isolated", "--no-cache", "--taxonomy", str(taxonomy), "--output-format", "json",
        *args, cwd=cwd,
    )  # fmt: skip
    assert res.returncode in (0, 1), res.stderr
    return res.returncode, json.loads(res.stdout)


def test_the_recipe_in_the_docs_is_the_one_tested():
    assert HPU in (ROOT / "docs" / "taxonomy.md").read_text()


def test_a_vendor_adds_hpu_by_yaml_alone(hpu_taxonomy, tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_hpu.py").write_text(SUITE)
    ok = run_tool("hwlint", "taxonomy", "check", str(hpu_taxonomy))
    assert ok.returncode == 0, ok.stderr

    # an HPU declaration is legal; the undeclared class is the only finding, and only an unsafe
    # fix declares it: every test hard-uses hpu through its collective backend
    _, found = _check(hpu_taxonomy, "test_hpu.py", cwd=suite)
    assert [(f["code"], f["location"]["row"]) for f in found] == [("HWC001", 15)]
    assert found[0]["fix"]["applicability"] == "unsafe"
    assert found[0]["fix"]["message"] == (
        "Declare `hw_classification = HardwareClassification.HPU` in `TestCollectives`"
    )
    # under the default taxonomy HPU is no classification, and "hccl" no device
    _, default = _check(DEFAULT_TAXONOMY, "test_hpu.py", cwd=suite)
    assert [f["code"] for f in default] == ["HWC002", "HWC001"]
    assert "GENERIC" in default[1]["fix"]["message"]

    fixed = run_tool(
        "hwlint", "check", "--isolated", "--no-cache", "--taxonomy", str(hpu_taxonomy),
        "--fix", "--unsafe-fixes", "test_hpu.py", cwd=suite,
    )  # fmt: skip
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    text = (suite / "test_hpu.py").read_text()
    assert "class TestCollectives(TestCase):\n    hw_classification = HardwareClassification.HPU\n" in text
    assert _check(hpu_taxonomy, "test_hpu.py", cwd=suite) == (0, [])

    # the hpu runner runs the HPU classes and the ACCELERATOR classes' HPU instances, nothing else
    selected = {}
    for runner in ("hpu", "cpu", "cuda"):
        res = run_tool(
            "hwselect", runner, "-q", "--no-cache", "--taxonomy", str(hpu_taxonomy), "test_hpu.py", cwd=suite
        )
        assert res.returncode == 0, res.stderr
        selected[runner] = res.stdout.split()
    assert selected == {
        "hpu": [
            "test_hpu.py::TestDeclaredHPU",
            "test_hpu.py::TestCollectives",
            "test_hpu.py::TestOpsHPU",
        ],
        "cpu": ["test_hpu.py::TestOpsCPU", "test_hpu.py::TestGeneric"],
        "cuda": ["test_hpu.py::TestOpsCUDA"],
    }


def test_requires_hccl_names_hpu(hpu_taxonomy, tmp_path):
    (tmp_path / "test_guarded.py").write_text(GUARDED)
    reasons = {}
    for name, taxonomy in (("hpu", hpu_taxonomy), ("default", DEFAULT_TAXONOMY)):
        res = run_tool(
            "hwlint", "check", "--isolated", "--no-cache", "--taxonomy", str(taxonomy), "--unsafe-fixes",
            "--diff", "test_guarded.py", cwd=tmp_path,
        )  # fmt: skip
        assert res.returncode == 1, res.stderr
        reasons[name] = res.stderr
    # the vendor's `@requires_hccl()` skips the test without an HPU: the test needs the device
    # (a judgement call), as a test that hard-uses it does
    assert (
        "HPU` in `TestOnlyGuarded` (unsafe; every test hard-uses one device: never instantiated; every "
        "test uses hpu: `requires_hccl` (line 6))" in reasons["hpu"]
    )
    assert "GENERIC` in `TestOnlyGuarded` (safe; no device evidence" in reasons["default"]
