import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestKernels(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_sum(self, device):
        x = torch.ones(3, device=device)
        torch.accelerator.synchronize()
        self.assertEqual(x.sum().item(), 3)

    def test_move(self, device):
        y = torch.zeros(2).to(device)
        self.assertEqual(y.device.type, self.device_type)


instantiate_device_type_tests(
    TestKernels, globals(), except_for=("cpu",), allow_mps=True, allow_xpu=True
)

if __name__ == "__main__":
    run_tests()
