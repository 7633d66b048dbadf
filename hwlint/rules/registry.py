"""The rule table: every family of rules imported, so that :data:`RULES` holds them all, in code order.

The checker, the CLI, flake8, lintrunner and the docs read the rules from here, and only from here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from . import declarations, devices, files, instantiation, methods  # noqa: F401  (they register their rules)
from .base import RULES, Rule, rule_by_name_or_code

# in code order whatever order the families were imported in: the docs, `hwlint rule --all` and
# the order rules run in follow it
_ordered = sorted(RULES.items())
RULES.clear()
RULES.update(_ordered)


def counted(codes: Iterable[str]) -> str:
    """Findings of *codes* counted by severity, in one phrase: ``2 errors``, ``1 error and 3
    warnings``, ``2 errors, 1 warning and 11 advice`` (lintrunner's severities; advice is a mass
    noun). A code outside the table (none today) counts as an error."""
    by = Counter(RULES[c].severity if c in RULES else "error" for c in codes)
    parts = []
    for severity, one, many in (
        ("error", "error", "errors"),
        ("warning", "warning", "warnings"),
        ("advice", "advice", "advice"),
    ):
        n = by.get(severity, 0)
        if n:
            parts.append(f"{n} {one if n == 1 else many}")
    if not parts:
        return "0 errors"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


__all__ = ["RULES", "Rule", "counted", "rule_by_name_or_code"]
