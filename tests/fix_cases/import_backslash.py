# A name added to an import continued by backslashes whose line would grow too long goes on a line
# of its own, a backslash ending each line (PyTorch 2.6.0's test/test_nn.py).
import torch
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests, onlyCPU, onlyCUDA, toleranceOverride, tol, skipMeta)
from torch.testing._internal.common_utils import TEST_CUDA, TEST_WITH_ROCM, TestCase, \
    freeze_rng_state, gradcheck, gradgradcheck, parametrize, run_tests, set_default_dtype

__all__ = ["TEST_CUDA", "TEST_WITH_ROCM", "freeze_rng_state", "gradcheck", "gradgradcheck"]
__all__ += ["parametrize", "run_tests", "set_default_dtype", "onlyCPU", "toleranceOverride", "tol"]


class TestModule(TestCase):
    @onlyCUDA
    def test_sum(self, device):
        x = torch.randn(2, 3, 4, 4, device=device)
        self.assertEqual(x.shape, (2, 3, 4, 4))

    @skipMeta
    def test_mean(self, device):
        self.assertEqual(torch.ones(2, device=device).mean().item(), 1)


instantiate_device_type_tests(TestModule, globals())
