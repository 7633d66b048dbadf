# What a fix stops using is not left imported (pyflakes' F401): `@onlyNativeDeviceTypes` and
# `@onlyNativeDeviceTypesAnd` deleted, `@onlyCUDA` made `@onlyAccelerator`. A name the file still
# writes elsewhere (`onlyCPU` in a string) stays; so does a name on an import marked noqa.
import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    onlyNativeDeviceTypes,
)
from torch.testing._internal.common_device_type import onlyNativeDeviceTypesAnd, skipCUDAIf
from torch.testing._internal.common_device_type import skipMeta, skipXLA  # noqa: F401
from torch.testing._internal.common_utils import TestCase

__all__ = ["onlyCPU"]


class TestPooling(TestCase):
    @onlyNativeDeviceTypes
    def test_zero_batch(self, device):
        self.assertEqual(torch.ones(0, device=device).numel(), 0)

    @onlyNativeDeviceTypesAnd(["meta"])
    def test_meta(self, device):
        self.assertEqual(torch.ones(1, device=device).numel(), 1)

    @onlyCUDA
    @dtypes(torch.float)
    def test_sum(self, device, dtype):
        x = torch.ones(2, device=device, dtype=dtype)
        self.assertEqual(x.sum().item(), 2)

    @skipXLA
    @skipCUDAIf(True, "not on CUDA")
    def test_xla(self, device):
        self.assertEqual(torch.ones(1, device=device).numel(), 1)


instantiate_device_type_tests(TestPooling, globals())
