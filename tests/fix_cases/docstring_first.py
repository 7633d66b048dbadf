"""A class whose body starts with a docstring: the declaration goes right after it."""

from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestParser(TestCase):
    """Parsing tests.

    Spread over two lines, with a blank line after.
    """

    def test_parse(self):
        self.assertEqual(int("1"), 1)


class TestOneLineDoc(TestCase):
    """One line."""
    def test_strip(self):
        self.assertEqual(" a ".strip(), "a")


if __name__ == "__main__":
    run_tests()
