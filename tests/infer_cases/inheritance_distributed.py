# Inference cases: inherited classifications, distributed bases, classes instantiated elsewhere.
import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_distributed import MultiProcessTestCase
from torch.testing._internal.common_fsdp import FSDPTest
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class AcceleratorBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_base(self, device):
        pass


class TestAcceleratorChild(AcceleratorBase):  # expect: ACCELERATOR
    def test_child(self, device):
        pass


class CudaBase(TestCase):
    hw_classification = HardwareClassification.CUDA

    def setUp(self):
        super().setUp()
        torch.cuda.empty_cache()

    def test_base(self):
        pass


class TestCudaChild(CudaBase):  # expect: CUDA
    def test_plain_looking(self):
        self.assertTrue(True)


class TestGenericChildInstantiated(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_base(self):
        pass


class TestWronglyInherits(TestGenericChildInstantiated):  # expect: ACCELERATOR
    def test_device(self, device):
        pass


class TestProcessGroup(MultiProcessTestCase):  # expect: CUDA
    def test_allreduce(self):
        torch.ones(1)


class TestFsdpWrap(FSDPTest):  # expect: CUDA
    def test_wrap(self):
        pass


class TestInstantiatedElsewhere(TestCase):  # expect: ACCELERATOR
    def test_step(self, device):
        pass


class TestPlainHelpers(TestCase):  # expect: GENERIC
    def _helper(self):
        return 1

    def test_helper(self):
        self.assertEqual(self._helper(), 1)


class TestDevicesParam(TestCase):  # expect: ACCELERATOR
    def test_multi(self, devices):
        pass


instantiate_device_type_tests(AcceleratorBase, globals())
instantiate_device_type_tests(TestAcceleratorChild, globals())
instantiate_device_type_tests(TestWronglyInherits, globals())
instantiate_device_type_tests(TestDevicesParam, globals())

if __name__ == "__main__":
    run_tests()
