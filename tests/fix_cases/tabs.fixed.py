# Indented with tabs: the declaration is indented with the same tab.
from torch.testing._internal.common_utils import (
    HardwareClassification,
    TestCase,
)


class TestTabs(TestCase):
	hw_classification = HardwareClassification.GENERIC

	def test_a(self):
		pass


class TestTabsDoc(TestCase):
	"""Doc."""
	hw_classification = HardwareClassification.GENERIC

	def test_b(self):
		pass
