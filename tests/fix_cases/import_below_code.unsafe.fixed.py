# An import a fix adds goes into the first block of imports of its package, above module code (an
# import below code is E402), in sorted place, or after the last of them (an excerpt of PyTorch
# 2.6.0's test/inductor/test_max_autotune.py).
import os

import torch
from torch._dynamo import reset
from torch._inductor import config
from torch.testing._internal.common_device_type import instantiate_device_type_tests


aten = torch.ops.aten
from torch._inductor.test_case import TestCase
from torch.testing._internal.common_utils import (
    HardwareClassification,
    parametrize,
    TEST_WITH_ROCM,
)


class TestUndeclared(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_one(self, device):
        torch.ones(1).to(device)

    def test_two(self, device):
        torch.accelerator.synchronize()


instantiate_device_type_tests(
    TestUndeclared,
    globals(),
    except_for=("cpu",),
    allow_mps=True,
    allow_xpu=True,
)
