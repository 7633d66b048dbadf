# ACCELERATOR tests without `device` (HWC202): instantiation passes `device` only to a test whose
# signature has it, so the parameter is added where the test cannot tell; not where the body reads
# `device` before binding it (the parameter would change what it reads), a decorator hwlint does not
# read may hide the signature, or nothing instantiates the class. A test with `device` and a default
# takes it: instantiation passes it whatever the default.
import unittest

import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase

device = torch.device("cpu")


def local_decorator(fn):
    def wrapper(self):
        return fn(self)

    return wrapper


class TestOps(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_takes_it(self, device):
        pass

    def test_plain(self, device):
        pass

    @dtypes(torch.float)
    @unittest.skipIf(False, "never")
    def test_dtype(self, device, dtype):
        pass

    def test_reads_the_module_device(self):
        torch.ones(1, device=device)

    @local_decorator
    def test_local_decorator(self):
        pass

    def test_binds_it_first(self, device):
        device = self.device_type
        torch.ones(1, device=device)

    def test_loop_binds_it(self, device):
        for device, _ in (("cpu", 0),):
            torch.ones(1, device=device)

    def test_nested_function_binds_it(self, device):
        def run(device):
            return torch.ones(1, device=device)

        run("cpu")

    def test_nested_function_reads_it(self):
        def run():
            return torch.ones(1, device=device)

        run()

    def test_reads_then_binds(self):
        torch.ones(1, device=device)
        device = "cpu"  # noqa: F841

    def test_takes_it_with_a_default(self, device="cpu"):
        pass


class TestNeverInstantiated(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_plain(self):
        pass


instantiate_device_type_tests(TestOps, globals())
