"""Device-specific tests: CUDA classes run only on CUDA (and ROCm) runners."""

import enum

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests

try:
    from torch.testing._internal.common_utils import HardwareClassification
except ImportError:  # torch < 2.14 does not define it; the runtime only reads member names
    HardwareClassification = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")

TEST_CUDA = torch.cuda.is_available()
CUDA_ONLY = ("cuda",)


class TestCudnn(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_conv(self, device):
        pass


class TestCudnnDeterministic(TestCudnn):
    hw_classification = HardwareClassification.CUDA

    def test_conv_deterministic(self, device):
        pass


if TEST_CUDA:

    class TestCudaGraphs(TestCase):
        hw_classification = HardwareClassification.CUDA

        def test_capture(self):
            pass

    class TestCudaStreams(TestCase):
        hw_classification = HardwareClassification.GPU  # HWC002: not a classification

        def test_sync(self):
            pass


instantiate_device_type_tests(TestCudnn, globals(), only_for=CUDA_ONLY)
instantiate_device_type_tests(TestCudnnDeterministic, globals(), only_for="cuda")

if __name__ == "__main__":
    run_tests()
