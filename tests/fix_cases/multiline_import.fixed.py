# The enum joins an existing parenthesized import, in case-insensitive sorted order.
import torch
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests,
    onlyCUDA,
)
from torch.testing._internal.common_utils import (
    HardwareClassification,
    instantiate_parametrized_tests,
    parametrize,  # a comment on a name
    run_tests,
    TestCase,
)


class TestCudnn(TestCase):
    hw_classification = HardwareClassification.CUDA

    def test_conv(self, device):
        torch.ones(1, device=device)


instantiate_device_type_tests(TestCudnn, globals(), only_for="cuda")

if __name__ == "__main__":
    run_tests()
