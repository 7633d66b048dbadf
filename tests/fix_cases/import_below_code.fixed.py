# An import a fix adds goes into the first block of imports of its package, above module code (an
# import below code is E402), in sorted place, or after the last of them (an excerpt of PyTorch
# 2.6.0's test/inductor/test_max_autotune.py).
import os

import torch
from torch._dynamo import reset
from torch._inductor import config


aten = torch.ops.aten
from torch._inductor.test_case import TestCase
from torch.testing._internal.common_utils import parametrize, TEST_WITH_ROCM


class TestUndeclared(TestCase):
    def test_one(self):
        torch.ones(1).cuda()

    def test_two(self):
        torch.cuda.synchronize()
