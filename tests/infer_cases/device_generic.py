# Inference cases: instantiated classes (ACCELERATOR, or a device's classification).
import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    dtypesIfCUDA,
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    onlyNativeDeviceTypes,
    skipCUDAIf,
)
from torch.testing._internal.common_utils import TestCase, run_tests

GPU_DEVICES = ("cuda",)


def get_devices():
    return ["cuda", "xpu"]


class TestTorchDeviceType(TestCase):  # expect: ACCELERATOR
    @dtypes(torch.float, torch.double)
    def test_add(self, device, dtype):
        x = torch.ones(2, device=device, dtype=dtype)
        self.assertEqual(x + x, 2 * x)

    def test_zeros(self, device):
        self.assertEqual(torch.zeros(2, device=device).sum().item(), 0)


class TestIndexing(TestCase):  # expect: ACCELERATOR
    @skipCUDAIf(True, "flaky on CUDA")
    def test_index(self, device):
        x = torch.arange(4, device=device)
        self.assertEqual(x[1].item(), 1)

    @dtypesIfCUDA(torch.half)
    @dtypes(torch.float)
    def test_index_put(self, device, dtype):
        if self.device_type == "cuda":
            torch.cuda.synchronize()


class TestSortExceptMps(TestCase):  # expect: ACCELERATOR
    def test_sort(self, device):
        self.assertEqual(torch.tensor([2, 1], device=device).sort().values[0].item(), 1)


class TestCudaSpecificInstantiated(TestCase):  # expect: CUDA
    def test_streams(self, device):
        torch.cuda.current_stream(device)


class TestXpuSpecific(TestCase):  # expect: XPU
    def test_xpu(self, device):
        torch.ones(1, device=device)


class TestMpsSpecific(TestCase):  # expect: MPS
    def test_mps(self, device):
        torch.ones(1, device=device)


class TestCpuSpecific(TestCase):  # expect: CPU
    def test_mkldnn(self, device):
        torch.ones(1, device=device).to_mkldnn()


class TestGpuConstant(TestCase):  # expect: CUDA
    def test_gpu(self, device):
        torch.ones(1, device=device)


class TestStaleOnlyFor(TestCase):  # expect: ACCELERATOR
    def test_op(self, device):
        torch.ones(1, device=device)


class TestAllOnlyCuda(TestCase):  # expect: CUDA
    @onlyCUDA
    def test_graphs(self, device):
        torch.cuda.CUDAGraph()

    @onlyCUDA
    def test_caching(self, device):
        torch.cuda.empty_cache()


class TestAllOnlyCpu(TestCase):  # expect: CPU
    @onlyCPU
    def test_threads(self, device):
        torch.set_num_threads(1)

    @onlyCPU
    def test_mkl(self, device):
        self.assertTrue(torch.backends.mkl.is_available() in (True, False))


class TestSomeOnlyCuda(TestCase):  # expect: ACCELERATOR
    def test_add(self, device):
        torch.ones(1, device=device)

    @onlyCUDA
    def test_cudnn(self, device):
        torch.backends.cudnn.version()


class TestNativeOnly(TestCase):  # expect: ACCELERATOR
    @onlyNativeDeviceTypes
    def test_native(self, device):
        pass

    def test_any(self, device):
        pass


class TestDynamicDevices(TestCase):  # expect: ACCELERATOR
    def test_op(self, device):
        pass


class TestSomeWithoutDevice(TestCase):  # expect: ACCELERATOR
    def test_with(self, device):
        pass

    def test_without(self):
        pass


class TestPrivateUse1Only(TestCase):  # expect: ACCELERATOR
    def test_backend(self, device):
        pass


instantiate_device_type_tests(TestTorchDeviceType, globals())
instantiate_device_type_tests(TestIndexing, globals())
instantiate_device_type_tests(TestSortExceptMps, globals(), except_for="mps")
instantiate_device_type_tests(TestCudaSpecificInstantiated, globals(), only_for="cuda")
instantiate_device_type_tests(TestXpuSpecific, globals(), only_for="xpu", allow_xpu=True)
instantiate_device_type_tests(TestMpsSpecific, globals(), only_for=("mps",), allow_mps=True)
instantiate_device_type_tests(TestCpuSpecific, globals(), only_for="cpu")
instantiate_device_type_tests(TestGpuConstant, globals(), only_for=GPU_DEVICES)
instantiate_device_type_tests(TestStaleOnlyFor, globals(), only_for=("cuda", "xpu"), allow_xpu=True)
instantiate_device_type_tests(TestAllOnlyCuda, globals())
instantiate_device_type_tests(TestAllOnlyCpu, globals())
instantiate_device_type_tests(TestSomeOnlyCuda, globals())
instantiate_device_type_tests(TestNativeOnly, globals())
instantiate_device_type_tests(TestDynamicDevices, globals(), only_for=get_devices())
instantiate_device_type_tests(TestSomeWithoutDevice, globals())
instantiate_device_type_tests(TestPrivateUse1Only, globals(), only_for="privateuse1")

if __name__ == "__main__":
    run_tests()
