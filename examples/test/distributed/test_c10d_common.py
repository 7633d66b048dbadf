"""Distributed tests spawn processes instead of being instantiated per device."""

import enum

from torch.testing._internal.common_distributed import MultiProcessTestCase
from torch.testing._internal.common_utils import run_tests

try:
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:  # torch < 2.14 does not define it; the runtime only reads member names
    HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")


class TestProcessGroupGloo(MultiProcessTestCase):
    hw_classification = HardwareClassification.CPU

    def test_allreduce(self):
        pass


class TestProcessGroupNCCL(MultiProcessTestCase):
    hw_classification: HardwareClassification = HardwareClassification.CUDA

    def test_allreduce(self):
        pass


if __name__ == "__main__":
    run_tests()
