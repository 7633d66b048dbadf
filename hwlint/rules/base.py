"""What a rule is: its code, name, message template, severity, documentation and check, and the table
:data:`RULES` every family module registers its rules in (:mod:`hwlint.rules.registry` imports them
all, in code order).

A rule's check decides *where* (it yields a position and the message's fields, plus ``fix``, a
:class:`~hwlint.edits.Fix`, when hwlint can fix the finding); the rule's message template decides
*what is said*. The docstring is the rule's documentation, with the headings What it does / Why is
this bad? / Example / Use instead, printed by ``hwlint rule CODE``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..model import Site

if TYPE_CHECKING:
    from ..context import Context

Hit = tuple[Site, dict[str, object]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    message: str  # str.format template over the fields a check yields
    doc: str
    check: Callable[[Context], Iterator[Hit]] | None
    severity: str = "error"  # error | warning | advice (lintrunner's vocabulary)
    #: what a person does about a finding the rule has no fix for (``hwlint report`` lists each
    #: such finding with its fix's own reason, else this)
    manual: str = ""

    @property
    def summary(self) -> str:
        """The first sentence of the doc's "What it does" section."""
        body = self.doc.split("## What it does", 1)[-1].strip()
        return body.split("\n\n", 1)[0].replace("\n", " ").split(". ")[0].rstrip(".") + "."


#: Every rule by code; filled as the family modules are imported (import :mod:`hwlint.rules.registry`).
RULES: dict[str, Rule] = {}


def rule(code: str, name: str, message: str, severity: str = "error", manual: str = ""):
    """Register the decorated check (or, for file-level codes, a docstring holder) under *code*;
    *manual* says what a person does about a finding without a fix."""

    def register(fn: Callable[[Context], Iterator[Hit]]) -> Callable[[Context], Iterator[Hit]]:
        if code in RULES:
            raise ValueError(f"duplicate rule code {code}")
        check = None if getattr(fn, "__no_check__", False) else fn
        doc = inspect.cleandoc(fn.__doc__ or "")
        RULES[code] = Rule(code, name, message, doc, check, severity, manual)
        return fn

    return register


def doc_only(fn):
    """Mark *fn* as a documentation holder: its code is raised by the checker, not by a check."""
    fn.__no_check__ = True
    return fn


# ---------------------------------------------------------------------------------------------
# File-level findings, raised by the checker rather than by a check over the model


def rule_by_name_or_code(key: str) -> Rule | None:
    key = key.strip()
    if key.upper() in RULES:
        return RULES[key.upper()]
    for r in RULES.values():
        if r.name == key:
            return r
    return None
