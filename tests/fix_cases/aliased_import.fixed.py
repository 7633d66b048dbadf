from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification as HC, TestCase


class TestDeclared(TestCase):
    hw_classification = HC.GENERIC

    def test_a(self):
        pass


class TestMps(TestCase):
    hw_classification = HC.MPS

    def test_b(self, device):
        pass


instantiate_device_type_tests(TestMps, globals(), only_for="mps", allow_mps=True)
