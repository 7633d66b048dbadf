# A class instantiated inside a block (as test/test_cuda.py's `if not TEST_WITH_ROCM:` does), with a
# test pinned to CUDA: the split-off class's call goes into the same block, wrapped as the formatters
# wrap a line too long.
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA
from torch.testing._internal.common_utils import (
    TEST_WITH_ROCM,
    HardwareClassification,
    TestCase,
)


class TestDeviceTypeWithARatherLongDescriptiveName(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_neutral(self, device):
        self.assertEqual(torch.ones(2, device=device).sum().item(), 2)


class TestDeviceTypeWithARatherLongDescriptiveNameCudaOnly(
    TestDeviceTypeWithARatherLongDescriptiveName
):
    hw_classification = HardwareClassification.CUDA

    @onlyCUDA
    def test_synchronized(self, device):
        torch.cuda.synchronize()
        self.assertEqual(torch.ones(2, device=device).sum().item(), 2)


if not TEST_WITH_ROCM:
    instantiate_device_type_tests(TestDeviceTypeWithARatherLongDescriptiveName, globals())
    instantiate_device_type_tests(
        TestDeviceTypeWithARatherLongDescriptiveNameCudaOnly,
        globals(),
        only_for="cuda",
    )
    print("instantiated")
