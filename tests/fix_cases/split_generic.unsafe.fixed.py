# Excerpts of PyTorch 2.6.0's test/test_out_dtype_op.py and test/nn/test_pooling.py: tests that a
# device guard skips without CUDA, in classes whose other tests need no device.
import unittest

import torch
from torch.testing._internal.common_cuda import TEST_CUDA
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
    instantiate_parametrized_tests,
    parametrize,
)


@unittest.skipIf(not torch._dynamo.is_dynamo_supported(), "dynamo isn't support")
class TestOutDtypeOp(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_out_dtype_make_fx(self):
        x = torch.randint(-128, 127, (5, 5), dtype=torch.int8)
        self.assertEqual(x.dtype, torch.int8)

    def test_out_dtype_wrong_output(self) -> None:
        inp = (torch.randn(10),)
        self.assertEqual(len(inp), 1)


@unittest.skipIf(
    not torch._dynamo.is_dynamo_supported(), "dynamo isn't support"
)
class TestOutDtypeOpCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    # the int_mm kernel
    @unittest.skipIf(not TEST_CUDA, "cuda only")
    def test_out_dtype_inductor_decomp_trace(self) -> None:
        x = torch.randint(-128, 127, (32, 32), dtype=torch.int8, device="cuda")
        self.assertEqual(x.device.type, "cuda")


class TestPoolingNN(TestCase):
    hw_classification = HardwareClassification.GENERIC

    _do_cuda_memory_leak_check = True
    _do_cuda_non_default_stream = True

    def _pool(self, x):
        return torch.nn.functional.avg_pool2d(x, 2)

    def test_adaptive_pooling_size_none(self):
        self.assertEqual(self._pool(torch.ones(1, 4, 4)).shape, (1, 2, 2))

    def test_adaptive_pooling_size_overflow(self):
        self.assertEqual(self._pool(torch.ones(1, 2, 2)).shape, (1, 1, 1))


class TestPoolingNNCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    _do_cuda_memory_leak_check = True
    _do_cuda_non_default_stream = True

    def _pool(self, x):
        return torch.nn.functional.avg_pool2d(x, 2)

    @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
    @parametrize("memory_format", ["contiguous", "channels_last"])
    def test_adaptive_avg_pooling_overflow(self, memory_format):
        input = torch.randint(-256, 256, (2, 3, 8, 8), dtype=torch.half, device="cuda")
        self.assertFalse(torch.isinf(self._pool(input)).any())


# over lines, as test/test_stateless.py writes it
instantiate_parametrized_tests(
    TestPoolingNN,
)
instantiate_parametrized_tests(
    TestPoolingNNCudaOnly,
)
