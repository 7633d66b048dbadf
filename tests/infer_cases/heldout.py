# Held-out inference cases, written before seeing the inference's answers for them, measured as they came.
import unittest

import torch
from torch.testing._internal.common_cuda import SM80OrLater, tf32_on_and_off
from torch.testing._internal.common_device_type import (
    deviceCountAtLeast,
    dtypes,
    instantiate_device_type_tests,
    largeTensorTest,
    onlyCUDA,
    skipMeta,
)
from torch.testing._internal.common_quantization import override_qengines
from torch.testing._internal.common_utils import (
    IS_WINDOWS,
    TestCase,
    instantiate_parametrized_tests,
    parametrize,
    run_tests,
    skipIfTorchDynamo,
)
from torch.testing._internal.inductor_utils import HAS_CUDA, requires_gpu


class TestSparseCsr(TestCase):  # expect: ACCELERATOR
    @skipMeta
    @dtypes(torch.float)
    def test_to_dense(self, device, dtype):
        torch.eye(2, device=device, dtype=dtype).to_sparse_csr().to_dense()

    @skipIfTorchDynamo("slow")
    def test_nnz(self, device):
        self.assertEqual(torch.eye(2, device=device).to_sparse_csr()._nnz(), 2)


class TestProfilerCuda(TestCase):  # expect: CUDA
    @unittest.skipIf(not torch.cuda.is_available(), "CUDA is required")
    def test_kineto(self):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):
            torch.ones(1, device="cuda")

    @unittest.skipIf(not torch.cuda.is_available(), "CUDA is required")
    def test_memory(self):
        torch.cuda.reset_peak_memory_stats()


class TestPinMemory(TestCase):  # expect: SPLIT
    def test_default(self):
        self.assertFalse(torch.ones(1).is_pinned())

    @unittest.skipIf(not torch.cuda.is_available(), "pinning needs CUDA")
    def test_pin(self):
        self.assertTrue(torch.ones(1).pin_memory().is_pinned())


class TestNNInit(TestCase):  # expect: GENERIC
    @parametrize("gain", [1.0, 2.0])
    def test_xavier(self, gain):
        w = torch.empty(3, 5)
        torch.nn.init.xavier_uniform_(w, gain=gain)

    @unittest.skipIf(IS_WINDOWS, "flaky on Windows")
    def test_zeros(self):
        torch.nn.init.zeros_(torch.empty(2))


instantiate_parametrized_tests(TestNNInit)


class TestTensorCreation(TestCase):  # expect: ACCELERATOR
    def test_empty(self, device):
        if self.device_type != "cpu":
            self.skipTest("checked on CPU only")
        torch.empty(1, device=device)

    @largeTensorTest("1GB")
    def test_large(self, device):
        torch.empty(1 << 20, device=device)


class TestMultiDevice(TestCase):  # expect: ACCELERATOR
    @deviceCountAtLeast(2)
    def test_copy_between(self, devices):
        torch.ones(1, device=devices[0]).to(devices[1])


class TestQuantizedLinear(TestCase):  # expect: GENERIC
    @override_qengines
    def test_linear(self):
        torch.ao.nn.quantized.Linear(2, 2)


@requires_gpu()
class TestInductorGpu(TestCase):  # expect: ACCELERATOR
    def test_compile(self):
        torch.compile(lambda x: x + 1)(torch.ones(1, device="cuda"))


class TestTf32(TestCase):  # expect: CUDA
    @onlyCUDA
    @tf32_on_and_off(0.005)
    def test_matmul(self, device):
        torch.ones(2, 2, device=device) @ torch.ones(2, 2, device=device)


class TestAmpperes(TestCase):  # expect: CUDA
    @unittest.skipIf(not SM80OrLater, "needs sm80")
    def test_bf16(self):
        torch.ones(1, device="cuda", dtype=torch.bfloat16)


@unittest.skipIf(not HAS_CUDA, "needs CUDA")
class TestTritonKernels(TestCase):  # expect: CUDA
    def test_kernel(self):
        torch.compile(torch.sin)(torch.ones(4, device="cuda"))

    def test_kernel_twice(self):
        torch.compile(torch.cos)(torch.ones(4, device="cuda"))


class TestPlainModule(TestCase):  # expect: GENERIC
    def test_state_dict(self):
        m = torch.nn.Linear(2, 2)
        self.assertEqual(set(m.state_dict()), {"weight", "bias"})

    def test_repr(self):
        self.assertIn("Linear", repr(torch.nn.Linear(1, 1)))


instantiate_device_type_tests(TestSparseCsr, globals(), except_for="meta")
instantiate_device_type_tests(TestTensorCreation, globals())
instantiate_device_type_tests(TestMultiDevice, globals())
instantiate_device_type_tests(TestTf32, globals())

if __name__ == "__main__":
    run_tests()
