import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestStreams(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_stream(self, device):
        s = torch.accelerator.current_stream()
        s.synchronize()

    def test_empty(self, device):
        torch.accelerator.empty_cache()
        x = torch.empty(4, device=device)
        self.assertEqual(x.numel(), 4)


instantiate_device_type_tests(
    TestStreams, globals(), except_for=("cpu",), allow_mps=True, allow_xpu=True
)


if __name__ == "__main__":
    run_tests()
