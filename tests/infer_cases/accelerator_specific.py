# Inference cases: classes that are not instantiated but use one accelerator throughout.
import unittest

import torch
from torch.testing._internal.common_cuda import TEST_CUDA, TEST_MULTIGPU
from torch.testing._internal.common_utils import TEST_MPS, TEST_XPU, TestCase, run_tests


@unittest.skipIf(not TEST_CUDA, "CUDA not available")
class TestCudaApi(TestCase):  # expect: CUDA
    def test_device_count(self):
        self.assertGreater(torch.cuda.device_count(), 0)

    def test_tensor_on_gpu(self):
        x = torch.ones(1)
        self.assertEqual(x.sum().item(), 1)


class TestCudaMemory(TestCase):  # expect: CUDA
    def test_allocated(self):
        torch.cuda.memory_allocated()

    def test_reserved(self):
        torch.cuda.memory_reserved()


class TestCudnnSettings(TestCase):  # expect: CUDA
    def test_enabled(self):
        self.assertIsInstance(torch.backends.cudnn.enabled, bool)

    def test_benchmark(self):
        torch.backends.cudnn.benchmark = False


@unittest.skipIf(not TEST_MPS, "MPS not available")
class TestMpsApi(TestCase):  # expect: MPS
    def test_sync(self):
        torch.mps.synchronize()

    def test_tensor(self):
        torch.ones(1, device="mps")


class TestXpuApi(TestCase):  # expect: XPU
    @unittest.skipIf(not TEST_XPU, "no XPU")
    def test_count(self):
        torch.xpu.device_count()

    @unittest.skipIf(not TEST_XPU, "no XPU")
    def test_sync(self):
        torch.xpu.synchronize()


class TestCudaMethod(TestCase):  # expect: CUDA
    @unittest.skipIf(not TEST_CUDA, "no CUDA")
    def test_cuda_method(self):
        self.assertTrue(torch.ones(1).cuda().is_cuda)


class TestAutocastStrings(TestCase):  # expect: CUDA
    def test_autocast(self):
        with torch.autocast("cuda"):
            pass

    def test_autocast_dtype(self):
        with torch.autocast(device_type="cuda", dtype=torch.half):
            pass


class TestAcceleratorApi(TestCase):  # expect: ACCELERATOR
    @unittest.skipIf(not torch.accelerator.is_available(), "no accelerator")
    def test_current(self):
        torch.accelerator.current_device_index()


class TestCudaThenCpu(TestCase):  # expect: SPLIT
    def test_cpu_fallback(self):
        torch.ones(1)

    @unittest.skipIf(not TEST_MULTIGPU, "needs two GPUs")
    def test_peer(self):
        torch.cuda.can_device_access_peer(0, 1)


if TEST_CUDA:

    class TestCudaGuarded(TestCase):  # expect: CUDA
        def test_stream(self):
            torch.cuda.Stream()


class TestCudaSetUp(TestCase):  # expect: CUDA
    def setUp(self):
        super().setUp()
        if not torch.cuda.is_available():
            self.skipTest("CUDA only")

    def test_one(self):
        torch.ones(1)

    def test_two(self):
        torch.zeros(1)


if __name__ == "__main__":
    run_tests()
