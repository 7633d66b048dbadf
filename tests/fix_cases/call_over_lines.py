# A call a fix changes keeps under 80 characters a line: an instantiation written over lines whose
# arguments' line would grow too long is written one argument a line (PyTorch 2.6.0's
# test/profiler/test_execution_trace.py); a signature that gains `device` is wrapped even where a
# parameter's name holds a device's (test/distributed/fsdp/test_fsdp_core.py).
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase

devices = ["cpu", "cuda"]


class TestExecutionTrace(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_execution_trace_with_kineto(self, device):
        pass


class TestHooks(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    def test_register_functions_called(self, cuda_first: bool, mixed_precision: bool = False):
        pass


instantiate_device_type_tests(
    TestExecutionTrace, globals(), allow_xpu="xpu" in devices, only_for=("cpu", "cuda")
)
instantiate_device_type_tests(TestHooks, globals())
