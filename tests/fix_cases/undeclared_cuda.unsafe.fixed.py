import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestUndeclared(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_one(self, device):
        torch.ones(1).to(device)

    def test_two(self, device):
        torch.accelerator.synchronize()


instantiate_device_type_tests(
    TestUndeclared,
    globals(),
    except_for=("cpu",),
    allow_mps=True,
    allow_xpu=True,
)
