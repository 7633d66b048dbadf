import torch
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestStreams(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_stream(self):
        s = torch.cuda.current_stream()
        s.synchronize()

    def test_empty(self):
        torch.cuda.empty_cache()
        x = torch.empty(4, device="cuda:0")
        self.assertEqual(x.numel(), 4)


if __name__ == "__main__":
    run_tests()
