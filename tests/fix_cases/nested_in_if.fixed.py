import sys

from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests

if sys.platform != "win32":

    class TestPosixPaths(TestCase):
        hw_classification = HardwareClassification.GENERIC

        def test_sep(self):
            self.assertEqual("/", "/")

    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    else:
        class TestWithNumpy(TestCase):
            hw_classification = HardwareClassification.GENERIC

            def test_numpy(self):
                self.assertTrue(True)


if __name__ == "__main__":
    run_tests()
