import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_sync(self, device):
        torch.accelerator.synchronize()
        n = torch.accelerator.device_count()
        i = torch.accelerator.current_device_index()
        torch.accelerator.set_device_index(0)
        before = torch.accelerator.memory_allocated(0)
        after = torch.cuda.memory_allocated(device=0)  # keywords: left alone
        return n, i, before, after

    def test_literals(self, device):
        x = torch.ones(3, device=device)
        y = torch.zeros(3).to(device)
        z = torch.zeros(3).to(device, non_blocking=True)
        w = x.to(device)
        with torch.autocast(self.device_type):
            pass
        self.assertEqual(x.device.type, self.device_type)
        if device == "cuda":  # guarded: stays
            torch.cuda.synchronize()
        return y, z, w


instantiate_device_type_tests(TestOps, globals(), except_for="cpu")

if __name__ == "__main__":
    run_tests()
