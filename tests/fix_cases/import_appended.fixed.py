from torch.testing._internal.common_utils import (
    GradcheckTestCase,
    FileCheck,
    HardwareClassification
)
from torch.testing._internal.common_utils import run_tests, TestCase


class TestGrad(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_grad(self):
        pass
