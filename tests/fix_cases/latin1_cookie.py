# -*- coding: latin-1 -*-
"""Café: a latin-1 file keeps its encoding declaration and its bytes."""
from torch.testing._internal.common_utils import TestCase


class TestCafé(TestCase):
    def test_été(self):
        self.assertEqual("é", "é")
