# ACCELERATOR classes instantiated with only_for: the fix writes the except_for that generates the
# same device types on every runner (HWC103); one it cannot resolve stays, with its reason.
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TEST_HPU, TEST_WITH_ROCM, HardwareClassification, TestCase

devices = ("cuda", "hpu")
# a device appended where it exists: instantiation generates it only there anyway
grown = ["cpu", "cuda"]
if TEST_HPU:
    grown.append("hpu")
# a value a condition picks: stays, with its reason
picked = ("cuda",) if TEST_WITH_ROCM else ("cpu", "cuda")
if TEST_WITH_ROCM:
    narrowed = ("cuda",)
else:
    narrowed = ("cpu", "cuda")


class TestConstant(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestWithCpu(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestOptedIn(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestPositional(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestGrown(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestNarrowed(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestRebound(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


class TestBoth(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_a(self, device):
        pass


instantiate_device_type_tests(TestConstant, globals(), only_for=devices)
instantiate_device_type_tests(TestWithCpu, globals(), only_for=["cpu", "cuda"])
instantiate_device_type_tests(TestOptedIn, globals(), only_for=("cuda", "xpu"), allow_xpu=True)
instantiate_device_type_tests(TestPositional, globals(), None, ("cuda", "hpu"))
instantiate_device_type_tests(TestBoth, globals(), except_for="cpu", only_for=("cuda", "hpu"))
instantiate_device_type_tests(TestGrown, globals(), only_for=grown)
instantiate_device_type_tests(TestNarrowed, globals(), only_for=narrowed)
instantiate_device_type_tests(TestNarrowed, globals(), only_for=picked)
only_for = ("cpu", "cuda")
instantiate_device_type_tests(TestRebound, globals(), only_for=only_for)
only_for = ("cpu",)
