# ACCELERATOR tests without `device` (HWC202): instantiation passes `device` only to a test whose
# signature has it, so the parameter is added where the test cannot tell; not where the body names
# `device` (shadowing), a decorator hwlint does not read may hide the signature, or nothing
# instantiates the class.
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


class TestNeverInstantiated(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_plain(self):
        pass


instantiate_device_type_tests(TestOps, globals())
