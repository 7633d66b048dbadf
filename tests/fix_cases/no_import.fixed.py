#!/usr/bin/env python3
"""No import of the enum yet: one is added after the last import above the first class."""
from __future__ import annotations

import unittest

import torch
from torch.testing._internal.common_utils import HardwareClassification


class TestPlain(unittest.TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_one(self):
        self.assertEqual(torch.tensor(1).item(), 1)
