"""Mixed module: every classification can live in one file."""

import enum

import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests

try:
    from torch.testing._internal.common_utils import HardwareClassification as HC
except ImportError:  # torch < 2.14 does not define it; the runtime only reads member names
    HC = enum.Enum("HardwareClassification", "GENERIC ACCELERATOR CPU CUDA MPS XPU")


class TestParametrizeAPI(TestCase):
    hw_classification = HC.GENERIC

    def test_register(self):
        pass


class TestParametrizeDevices(TestCase):
    hw_classification = HC.ACCELERATOR

    def test_to_device(self, device):
        m = torch.nn.Linear(2, 2).to(device)
        self.assertEqual(m.weight.device.type, torch.device(device).type)


class TestParametrizeMPS(TestCase):
    hw_classification = HC.MPS

    def test_metal_kernels(self, device):
        pass


class TestParametrizeGeneric(TestCase):
    hw_classification = HC.GENERIC

    def test_cache(self, device):  # HWC201: a GENERIC test does not receive a device
        pass


class TestParametrizeStray(TestCase):  # HWC102: ACCELERATOR but never instantiated
    hw_classification = HC.ACCELERATOR  # declared, but instantiation was forgotten

    def test_stray(self, device):
        pass


instantiate_device_type_tests(TestParametrizeDevices, globals())
instantiate_device_type_tests(TestParametrizeMPS, globals(), only_for="mps", allow_mps=True)
instantiate_device_type_tests(TestParametrizeAPI, globals())  # HWC101: GENERIC is never instantiated

if __name__ == "__main__":
    run_tests()
