# A class an author declared GENERIC (an excerpt of PyTorch 2.6.0's test/test_dataloader.py's
# TestCustomPinFn shape): one test pins memory on CUDA behind a guard that skips it on the CPU runner.
import unittest

import torch
from torch.testing._internal.common_cuda import TEST_CUDA
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestCustomPinFn(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def setUp(self):
        super().setUp()
        self.dataset = torch.randn(10, 2)

    def test_len(self):
        self.assertEqual(len(self.dataset), 10)


class TestCustomPinFnCudaOnly(TestCase):
    hw_classification = HardwareClassification.CUDA

    def setUp(self):
        super().setUp()
        self.dataset = torch.randn(10, 2)

    @unittest.skipIf(not TEST_CUDA, "CUDA unavailable")
    def test_custom_batch_pin(self):
        self.assertTrue(self.dataset.pin_memory().is_pinned())
