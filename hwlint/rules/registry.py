"""The rule table: every family of rules imported, so that :data:`RULES` holds them all, in code order.

The checker, the CLI, flake8, lintrunner and the docs read the rules from here, and only from here.
"""

from __future__ import annotations

from . import declarations, devices, files, instantiation, methods  # noqa: F401  (they register their rules)
from .base import RULES, Rule, rule_by_name_or_code

# in code order whatever order the families were imported in: the docs, `hwlint rule --all` and
# the order rules run in follow it
_ordered = sorted(RULES.items())
RULES.clear()
RULES.update(_ordered)

__all__ = ["RULES", "Rule", "rule_by_name_or_code"]
