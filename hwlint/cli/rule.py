"""``hwlint rule``: a rule's documentation (text, JSON, or the whole reference as markdown)."""

from __future__ import annotations

import sys

from .common import EXIT_CLEAN
from .common import UserError as _UserError


def cmd_rule(code: str | None, every: bool, output_format: str) -> int:
    """``hwlint rule CODE`` (or ``--all``, *every*) in *output_format*."""
    import json

    from ..rules.registry import RULES, rule_by_name_or_code

    if every:
        chosen = list(RULES.values())
    elif code:
        r = rule_by_name_or_code(code)
        if r is None:
            raise _UserError(f"unknown rule {code!r}; `hwlint rule --all` lists them")
        chosen = [r]
    else:
        raise _UserError("give a rule code (e.g. HWC001) or --all")
    if output_format == "markdown":
        from ..rules.docs import rules_markdown

        if not every:
            raise _UserError("--output-format markdown writes the whole rule reference: use --all")
        sys.stdout.write(rules_markdown())
        return EXIT_CLEAN
    if output_format == "json":
        data = [
            {
                "code": r.code,
                "name": r.name,
                "summary": r.summary,
                "severity": r.severity,
                "message": r.message,
                "explanation": r.doc,
            }
            for r in chosen
        ]
        print(json.dumps(data if every else data[0], indent=2))
        return EXIT_CLEAN
    for i, r in enumerate(chosen):
        if i:
            print()
        print(f"# {r.name} ({r.code})\n\n{r.doc}")
    return EXIT_CLEAN
