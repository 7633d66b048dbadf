# `device` added to a signature that would grow longer than 79 characters: the parameters are
# written as the formatters write them (on a line of their own, else one a line), as in PyTorch
# 2.6.0's test/inductor/test_fp8.py and test/distributed/fsdp/test_fsdp_core.py.
import torch
from torch.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestFP8Lowering(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR

    @dtypes(torch.float)
    def test_amax_along_with_fp8_quant(
        self, device, dtype, float8_dtype: torch.dtype = None
    ):
        pass

    def test_valid_cast(
        self,
        device,
        shape: str,
        has_bias: bool,
        use_fast_accum: bool,
        persistent_matmul: bool = False,
    ) -> None:
        pass

    def test_short(self, device, shape: str):
        pass


instantiate_device_type_tests(TestFP8Lowering, globals())
