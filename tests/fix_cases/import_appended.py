from torch.testing._internal.common_utils import (
    GradcheckTestCase,
    FileCheck
)
from torch.testing._internal.common_utils import run_tests, TestCase


class TestGrad(TestCase):
    def test_grad(self):
        pass
