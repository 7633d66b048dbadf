# A class no call instantiates whose tests ask for CUDA in their bodies (PyTorch 2.6.0's
# test/test_torch.py TestTorch shape): `test_pickle_generator` checks torch.cuda.is_available() and
# runs its CUDA part where CUDA is; `test_to` reaches torch.cuda through a helper only it calls;
# `test_forked_process`, skipped where CUDA is, stays (and so does its finding).
import pickle
import unittest

import torch
from torch.testing._internal.common_utils import TestCase


class TestTorch(TestCase):
    def _test_to_with_layout(self, layout):
        a = torch.tensor([1, 2], layout=layout)
        self.assertIs(a, a.to("cpu"))
        if torch.cuda.is_available():
            b = a.to(torch.cuda.current_device())
            self.assertEqual(b.device.type, "cuda")

    def test_to(self):
        self._test_to_with_layout(torch.strided)

    def test_pickle_generator(self):
        devices = ["cpu"]
        if torch.cuda.is_available():
            devices += ["cuda"]
        for device in devices:
            generator = torch.Generator(device=device).manual_seed(12345)
            reserialized = pickle.loads(pickle.dumps(generator))
            self.assertEqual(generator.device, reserialized.device)

    @unittest.skipIf(torch.cuda.is_available(), "CUDA complains about forking after init")
    def test_forked_process(self):
        self.assertEqual(torch.ones(2).sum(), 2)

    def test_element_size(self):
        self.assertEqual(torch.ByteStorage().element_size(), 1)
