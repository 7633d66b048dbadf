import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
    run_tests,
)


class TestGeneric(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_shape(self):
        self.assertEqual(torch.zeros(2, 3).shape, (2, 3))


class TestDevices(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_add(self, device):
        torch.ones(1, device=device)


class TestMixed(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_cpu_only(self, device):
        pass

    def test_needs_cuda(self, device):
        torch.accelerator.synchronize()


instantiate_device_type_tests(
    TestMixed, globals(), except_for=("cpu",), allow_mps=True, allow_xpu=True
)


class TestCudaOnly(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_stream(self, device):
        torch.accelerator.current_stream()


instantiate_device_type_tests(
    TestCudaOnly,
    globals(),
    except_for=("cpu",),
    allow_mps=True,
    allow_xpu=True,
)


class TestAlreadyDeclared(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_x(self):
        pass


instantiate_device_type_tests(TestDevices, globals())

if __name__ == "__main__":
    run_tests()
