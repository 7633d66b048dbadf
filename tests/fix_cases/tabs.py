# Indented with tabs: the declaration is indented with the same tab.
from torch.testing._internal.common_utils import TestCase


class TestTabs(TestCase):
	def test_a(self):
		pass


class TestTabsDoc(TestCase):
	"""Doc."""

	def test_b(self):
		pass
