# Two tests pinned to one device move to one class, a blank line between them as between the
# methods of the class they leave (pycodestyle's E301).
import torch
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyCPU,
)
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestShapes(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_view(self, device):
        self.assertEqual(torch.ones(4, device=device).view(2, 2).shape, (2, 2))


class TestShapesCpuOnly(TestShapes):
    hw_classification = HardwareClassification.CPU

    @onlyCPU
    def test_numpy(self, device):
        self.assertEqual(torch.ones(2, device=device).numpy().shape, (2,))

    @onlyCPU
    def test_tolist(self, device):
        self.assertEqual(torch.ones(2, device=device).tolist(), [1.0, 1.0])


instantiate_device_type_tests(TestShapes, globals())
instantiate_device_type_tests(TestShapesCpuOnly, globals(), only_for="cpu")
