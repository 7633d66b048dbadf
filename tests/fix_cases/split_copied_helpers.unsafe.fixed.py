# A class split by copy keeps, for the tests it takes, the private helpers they reach (through the
# helpers they call in turn), its class attributes, hooks and public or decorated helpers (code
# outside the class may call those); a private helper only the tests that stay call is not copied.
import unittest

import torch
from torch.testing._internal.common_cuda import TEST_CUDA
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestPoolingNN(TestCase):
    hw_classification = HardwareClassification.GENERIC

    _do_cuda_memory_leak_check = True

    def setUp(self):
        super().setUp()
        self.size = 4

    @property
    def channels(self):
        return 1

    def reference(self, x):
        return x

    def _pool(self, x):
        return torch.nn.functional.avg_pool2d(self._contiguous(x), 2)

    def _contiguous(self, x):
        return x.contiguous()

    def _expected_shape(self, n):
        return (self.channels, n, n)

    def test_adaptive_pooling_size_none(self):
        self.assertEqual(self._pool(torch.ones(1, 4, 4)).shape, self._expected_shape(2))

    def test_adaptive_pooling_size_overflow(self):
        self.assertEqual(self._pool(torch.ones(1, 2, 2)).shape, self._expected_shape(1))


class TestPoolingNNCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    _do_cuda_memory_leak_check = True

    def setUp(self):
        super().setUp()
        self.size = 4

    @property
    def channels(self):
        return 1

    def reference(self, x):
        return x

    def _pool(self, x):
        return torch.nn.functional.avg_pool2d(self._contiguous(x), 2)

    def _contiguous(self, x):
        return x.contiguous()

    @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
    def test_adaptive_avg_pooling_overflow(self):
        input = torch.randint(-256, 256, (2, 3, 8, 8), dtype=torch.half, device="cuda")
        self.assertFalse(torch.isinf(self._pool(input)).any())
