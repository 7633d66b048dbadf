"""hwlint: check and select PyTorch test classes by their ``hw_classification``."""

__version__ = "0.1.0"
