# An excerpt of PyTorch 2.6.0's test/nn/test_pooling.py: a class instantiated for every device with
# tests pinned to one device, and `@onlyNativeDeviceTypes` on tests every generated device runs.
import torch
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyAccelerator,
    onlyCPU,
    onlyCUDA,
)
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestPoolingNNDeviceType(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_adaptive_pooling_zero_batch(self, device):
        inp = torch.ones(0, 10, device=device)
        self.assertEqual(inp.numel(), 0)

    def test_adaptive_avg_pool2d_output_size_one(self, device):
        x = torch.ones(1, 2, 3, device=device)
        self.assertEqual(x.dim(), 3)

    @onlyAccelerator
    def test_max_pool2d(self, device):
        x = torch.randn(2, 3, 4, 4, device=device)
        self.assertEqual(x.shape, (2, 3, 4, 4))


class TestPoolingNNDeviceTypeCpuOnly(TestPoolingNNDeviceType):
    hw_classification = HardwareClassification.CPU

    @onlyCPU
    def test_max_pool1d_corner_cases(self, device):
        self.assertEqual(torch.ones(3, device=device).sum(), 3)


class TestPoolingNNDeviceTypeCudaOnly(TestPoolingNNDeviceType):
    hw_classification = HardwareClassification.CUDA

    @onlyCUDA
    def test_pooling_large(self, device):
        x = torch.ones(2, device="cuda")
        torch.cuda.synchronize()
        self.assertEqual(x.device.type, device.split(":")[0])


instantiate_device_type_tests(TestPoolingNNDeviceType, globals(), allow_mps=True)
instantiate_device_type_tests(
    TestPoolingNNDeviceTypeCpuOnly, globals(), only_for="cpu"
)
instantiate_device_type_tests(
    TestPoolingNNDeviceTypeCudaOnly, globals(), only_for="cuda"
)
