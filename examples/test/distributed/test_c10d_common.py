"""Distributed tests spawn processes instead of being instantiated per device."""

from torch.testing._internal.common_distributed import MultiProcessTestCase
from torch.testing._internal.common_utils import HardwareClassification, run_tests


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
