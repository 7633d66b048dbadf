# -*- coding: latin-1 -*-
"""Café: a latin-1 file keeps its encoding declaration and its bytes."""
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestCafé(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_été(self):
        self.assertEqual("é", "é")
