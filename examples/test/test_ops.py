"""Operator tests that run on every accelerator: instantiated per device type."""

import enum

import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    instantiate_device_type_tests,
    onlyAccelerator,
    onlyCUDA,
)
from torch.testing._internal.common_utils import TestCase, run_tests

try:
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:  # torch < 2.14 does not define it; the runtime only reads member names
    HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")


class TestBinaryOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    @dtypes(torch.float32, torch.float64)
    def test_add(self, device, dtype):
        x = torch.ones(3, device=device, dtype=dtype)
        self.assertEqual(x + x, torch.full((3,), 2, device=device, dtype=dtype))

    @onlyAccelerator
    def test_add_non_blocking(self, device):
        x = torch.ones(3, device=device)
        self.assertEqual((x + x).cpu(), torch.full((3,), 2.0))


class TestReductions(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_sum(self, device):
        self.assertEqual(torch.arange(4, device=device).sum().item(), 6)

    @onlyCUDA  # HWC203: a CUDA-only test hides in an ACCELERATOR class
    def test_sum_cub(self, device):
        self.assertEqual(torch.ones(1 << 20, device=device).sum().item(), 1 << 20)

    def test_mean_cpu_only(self):  # HWC202: takes no device, so it runs the CPU path on every device
        self.assertEqual(torch.tensor([1.0, 3.0]).mean().item(), 2.0)


class TestReductionsCUDA(TestCase):  # HWC107: instantiating TestReductions generates this name
    hw_classification = HardwareClassification.CUDA

    def test_cub_segmented(self):
        pass


instantiate_device_type_tests(TestBinaryOps, globals(), allow_mps=True, allow_xpu=True)
instantiate_device_type_tests(TestReductions, globals(), except_for="mps")

if __name__ == "__main__":
    run_tests()
