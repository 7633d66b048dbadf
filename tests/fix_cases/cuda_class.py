import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestKernels(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_sum(self, device):
        x = torch.ones(3, device=device)
        torch.cuda.synchronize()
        self.assertEqual(x.sum().item(), 3)

    def test_move(self, device):
        y = torch.zeros(2).cuda()
        self.assertEqual(y.device.type, "cuda")


instantiate_device_type_tests(TestKernels, globals(), only_for="cuda")

if __name__ == "__main__":
    run_tests()
