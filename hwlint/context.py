"""What the rules and the inference share about one file: the model, the taxonomy, and what each
class declares (its own declaration or one inherited through the known bases).

This sits below both :mod:`hwlint.rules` and :mod:`hwlint.infer`, so neither imports the other to
reach it. Results computed per class (the inference) are cached here by the module that owns them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .edits import Applicability, Edit, EditBuilder, Fix
from .model import (
    ClassInfo,
    Declaration,
    FileModel,
    Instantiation,
    LocalResolver,
    Resolver,
    effective_declaration,
)
from .taxonomy import Classification, Taxonomy

if TYPE_CHECKING:
    from .model import Parse


class Context:
    """What rules need about one file: the model, the taxonomy, and the classification of each class."""

    def __init__(
        self,
        model: FileModel,
        taxonomy: Taxonomy,
        resolver: Resolver | None = None,
        builder: EditBuilder | None = None,
    ):
        self.model = model
        self.taxonomy = taxonomy
        self.resolver = resolver
        # places the edits of the fixes the rules build; None: a check that fixes nothing, whose
        # fixes carry no edits (:attr:`hwlint.edits.Fix.edits` is None)
        self.builder = builder
        self._effective: dict[int, tuple[Declaration, ClassInfo] | None] = {}
        # per class id: what hwlint.infer concluded (filled by hwlint.infer.inference)
        self.inferred: dict[object, Any] = {}
        # the parse behind the model, kept for a fix (hwlint.rules.check.check_path's *keep*)
        self.parsed: Parse | None = None

    def fix(
        self,
        applicability: Applicability,
        message: str,
        reason: str,
        make: Callable[[EditBuilder], list[Edit]],
    ) -> Fix:
        """A rule's fix: its edits are made by *make* with this file's builder, when there is one. A
        bug in the builder costs the fix its edits (the fixer reports it), not the finding."""
        if self.builder is None:
            return Fix(applicability, message, reason)
        try:
            return Fix(applicability, message, reason, tuple(make(self.builder)))
        except Exception as e:
            return Fix(applicability, message, reason, (), f"{type(e).__name__}: {e}")

    def effective(self, cls: ClassInfo) -> tuple[Declaration, ClassInfo] | None:
        key = id(cls)
        if key not in self._effective:
            self._effective[key] = effective_declaration(self.model, cls, self.resolver)
        return self._effective[key]

    def foreign_instantiations(self, cls: ClassInfo) -> list[tuple[str, Instantiation]]:
        """(file, call) of each call in another scanned module that instantiates *cls* (the
        project model knows them; a file checked alone has none)."""
        resolver = self.resolver or self.model.resolver or LocalResolver()
        return resolver.instantiated_from(self.model, cls)

    def instantiated(self, cls: ClassInfo) -> bool:
        """Whether a call instantiates *cls*: in this file, or in another scanned module."""
        return bool(self.model.instantiations_of(cls) or self.foreign_instantiations(cls))

    @cached_property
    def classified_instantiations(self) -> list[tuple[ClassInfo, Classification, Instantiation]]:
        """Each instantiation call of the file with the classified test class it instantiates: a
        class of the file's own, then (the project model) one that another scanned module defines
        and this one imports, as upstream instantiates a class of test/optim from test/test_optim.py.
        The instantiation rules check each call where it is written."""
        out = [
            (cls, c, call)
            for cls, c in self.classified_test_classes
            for call in self.model.instantiations_of(cls)
        ]
        resolver = self.resolver or self.model.resolver or LocalResolver()
        for cls, call in resolver.imported_instantiations(self.model):
            c = self.classification(cls) if cls.is_test else None
            if c is not None:
                out.append((cls, c, call))
        return out

    def classification(self, cls: ClassInfo) -> Classification | None:
        """The taxonomy entry that applies to *cls* (own or inherited), if known."""
        found = self.effective(cls)
        if found is None or found[0].member is None:
            return None
        return self.taxonomy.classifications.get(found[0].member)

    @cached_property
    def classified_test_classes(self) -> list[tuple[ClassInfo, Classification]]:
        out = []
        for cls in self.model.test_classes:
            c = self.classification(cls)
            if c is not None:
                out.append((cls, c))
        return out
