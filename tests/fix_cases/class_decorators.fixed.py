import unittest

from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


@unittest.skipIf(False, "never skipped")
@some_registry.register(
    name="ops",  # a decorator spanning lines
)
class TestOps(TestCase):  # the header keeps its comment
    hw_classification = HardwareClassification.ACCELERATOR

    # a comment before the first method stays where it is
    def test_add(self, device):
        self.assertEqual(1 + 1, 2)


instantiate_device_type_tests(TestOps, globals())

if __name__ == "__main__":
    run_tests()
