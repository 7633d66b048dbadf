#!/usr/bin/env python3
"""No import of the enum yet: one is added after the last import above the first class."""
from __future__ import annotations

import unittest

import torch


class TestPlain(unittest.TestCase):
    def test_one(self):
        self.assertEqual(torch.tensor(1).item(), 1)
