import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_sync(self, device):
        torch.cuda.synchronize()
        n = torch.cuda.device_count()
        i = torch.cuda.current_device()
        torch.cuda.set_device(0)
        before = torch.cuda.memory_allocated(0)
        after = torch.cuda.memory_allocated(device=0)  # keywords: left alone
        return n, i, before, after

    def test_literals(self, device):
        x = torch.ones(3, device="cuda")
        y = torch.zeros(3).cuda()
        z = torch.zeros(3).cuda(non_blocking=True)
        w = x.to("cuda:0")
        with torch.autocast("cuda"):
            pass
        self.assertEqual(x.device.type, "cuda")
        if device == "cuda":  # guarded: stays
            torch.cuda.synchronize()
        return y, z, w


instantiate_device_type_tests(TestOps, globals(), except_for="cpu")

if __name__ == "__main__":
    run_tests()
