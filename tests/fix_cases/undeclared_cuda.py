import torch
from torch.testing._internal.common_utils import TestCase


class TestUndeclared(TestCase):
    def test_one(self):
        torch.ones(1).cuda()

    def test_two(self):
        torch.cuda.synchronize()
