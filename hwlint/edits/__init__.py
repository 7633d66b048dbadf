"""Edits of a file's text and the fixes made of them: the records a finding's fix carries, and the
builder that places a rule's changes in the text (a rule says what changes, the builder where)."""

from .builder import EditBuilder
from .records import Applicability, Edit, Fix
from .text import apply_edits

__all__ = ["Applicability", "Edit", "EditBuilder", "Fix", "apply_edits"]
