# Inference cases written from the rules of issue 10, one or more per rule (not from real classes).
import unittest

import torch
from torch.testing._internal.common_cuda import TEST_CUDA
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyCPU,
    onlyCUDA,
    skipIfXpu,
)
from torch.testing._internal.common_distributed import MultiProcessTestCase, requires_nccl, skip_if_lt_x_gpu
from torch.testing._internal.common_utils import TestCase, run_tests
from torch.utils._triton import XpuInterface, check_code_for_cuda_kernel_launches, gpu_trace


# only_for resolving to exactly one known device: that device (safe)
class TestOnlyForCuda(TestCase):  # expect: CUDA
    def test_a(self, device):
        torch.ones(1, device=device)


# only_for naming two device types, one the taxonomy does not know: ACCELERATOR (unsafe)
class TestOnlyForCudaHpu(TestCase):  # expect: ACCELERATOR
    def test_a(self, device):
        pass


# instantiated, every test takes device, none pinned: ACCELERATOR (safe)
class TestEveryDevice(TestCase):  # expect: ACCELERATOR
    def test_a(self, device):
        pass

    def test_b(self, device):
        torch.zeros(2, device=device)


# instantiated, every test pinned to one device: that device
class TestAllPinnedCpu(TestCase):  # expect: CPU
    @onlyCPU
    def test_a(self, device):
        pass

    @onlyCPU
    def test_b(self, device):
        pass


# instantiated, some tests pinned: ACCELERATOR (unsafe), HWC004 names the outliers
class TestSomePinned(TestCase):  # expect: ACCELERATOR
    @onlyCUDA
    def test_a(self, device):
        pass

    def test_b(self, device):
        pass


# not instantiated, no evidence: GENERIC (safe); identifiers that merely contain a device word
class TestIdentifiersOnly(TestCase):  # expect: GENERIC
    def test_launches(self):
        check_code_for_cuda_kernel_launches("")

    def test_interface(self):
        XpuInterface()
        gpu_trace.register()


# guards only: GENERIC (unsafe)
class TestGuardedOnly(TestCase):  # expect: GENERIC
    @unittest.skipIf(not TEST_CUDA, "needs CUDA")
    def test_a(self):
        pass

    @skipIfXpu
    def test_b(self):
        torch.ones(1, pin_memory=TEST_CUDA)


# code under `if TEST_CUDA:` is guarded, not hard
class TestGuardedBranch(TestCase):  # expect: GENERIC
    def test_a(self):
        x = torch.ones(1)
        if TEST_CUDA:
            x = x.cuda()
        device = "cuda" if TEST_CUDA else "cpu"
        torch.zeros(1, device=device)


# every test hard-uses exactly one device: that device (unsafe)
class TestAllHardCuda(TestCase):  # expect: CUDA
    def test_a(self):
        torch.cuda.synchronize()

    def test_b(self):
        torch.ones(1, device="cuda:0")


# a helper's uses count for the tests that call it, transitively
class TestHelperForAll(TestCase):  # expect: CUDA
    def _device_tensor(self):
        return torch.ones(1).cuda()

    def _make(self):
        return self._device_tensor()

    def test_a(self):
        self._make()

    def test_b(self):
        self._device_tensor()


# a helper called by one test of four: a minority hard-uses a device, GENERIC (unsafe) + HWC004
class TestHelperForOne(TestCase):  # expect: GENERIC
    def _sync(self):
        torch.cuda.synchronize()

    def test_a(self):
        self._sync()

    def test_b(self):
        pass

    def test_c(self):
        pass

    def test_d(self):
        pass


# setUpClass applies to every test
class TestSetUpClassCuda(TestCase):  # expect: CUDA
    @classmethod
    def setUpClass(cls):
        cls.stream = torch.cuda.Stream()

    def test_a(self):
        pass


# a class-level device applies to every test
class TestClassDevice(TestCase):  # expect: CUDA
    device = "cuda"

    def test_a(self):
        torch.ones(1, device=self.device)


# gpu words never count as a second device
class TestGpuAndCuda(TestCase):  # expect: CUDA
    def test_a(self):
        torch.accelerator.synchronize()
        torch.cuda.synchronize()


# distributed bases go through the same rules: nccl needs cuda in every test
class TestNcclGroup(MultiProcessTestCase):  # expect: CUDA
    @requires_nccl()
    @skip_if_lt_x_gpu(2)
    def test_allreduce(self):
        torch.distributed.init_process_group("nccl")

    def test_broadcast(self):
        torch.cuda.set_device(self.rank)


instantiate_device_type_tests(TestOnlyForCuda, globals(), only_for="cuda")
instantiate_device_type_tests(TestOnlyForCudaHpu, globals(), only_for=("cuda", "hpu"))
instantiate_device_type_tests(TestEveryDevice, globals())
instantiate_device_type_tests(TestAllPinnedCpu, globals())
instantiate_device_type_tests(TestSomePinned, globals())

if __name__ == "__main__":
    run_tests()
