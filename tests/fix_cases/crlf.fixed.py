# A Windows file: every line ends with CRLF, and so do the inserted lines.
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
    run_tests,
)


class TestCrlf(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_a(self):
        pass
