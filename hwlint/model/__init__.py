"""The model of one file: plain, cacheable records of its classes, declarations, calls and imports,
built once with CPython's parser and read by every consumer (rules, fixer, selector, report).

``records`` holds the data, ``source`` decodes a file's bytes, ``build`` the builder (``classes``,
``calls`` and ``devices`` hold what it reads of classes and methods, of instantiation calls and of
device evidence; ``noqa`` the suppressions; ``bindings`` the code that may change the value the
runtime's getattr reads), ``syntax`` what they share about the tree and its text.
"""

from typing import TYPE_CHECKING

from .records import (
    ANY_ACCELERATOR,
    OVERRIDE_INHERITED,
    OVERRIDE_SELF,
    OVERRIDE_SUBCLASSES,
    ROLE_DEVICE,
    ROLE_OTHER,
    ROLE_TYPE,
    SCOPE_BODY,
    SCOPE_DEFAULT,
    SCOPE_NESTED,
    ClassInfo,
    Declaration,
    Decorator,
    DeviceFilter,
    DeviceUse,
    FileModel,
    ImportStatement,
    Instantiation,
    LocalResolver,
    Method,
    Override,
    ParseError,
    Resolver,
    Site,
    UseForm,
    UseKind,
    device_feature,
    effective_declaration,
    mro,
    passed_params,
)
from .skips import required_by
from .source import decode_source
from .syntax import dotted_name, split_lines

if TYPE_CHECKING:
    from .build import MAX_PARSE_COST, Parse, build_model, model_from_tree, parse_cost, parse_file

#: The builder's names, imported on first use: a run whose files are all cached builds no model,
#: and the builder and its scans are a fifth of hwlint's import time.
_BUILDER = frozenset(
    {"MAX_PARSE_COST", "Parse", "build_model", "model_from_tree", "parse_cost", "parse_file"}
)


def __getattr__(name: str):
    if name in _BUILDER:
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ANY_ACCELERATOR",
    "MAX_PARSE_COST",
    "OVERRIDE_INHERITED",
    "OVERRIDE_SELF",
    "OVERRIDE_SUBCLASSES",
    "ROLE_DEVICE",
    "ROLE_OTHER",
    "ROLE_TYPE",
    "SCOPE_BODY",
    "SCOPE_DEFAULT",
    "SCOPE_NESTED",
    "ClassInfo",
    "Declaration",
    "Decorator",
    "DeviceFilter",
    "DeviceUse",
    "FileModel",
    "ImportStatement",
    "Instantiation",
    "LocalResolver",
    "Method",
    "Override",
    "Parse",
    "ParseError",
    "Resolver",
    "Site",
    "UseForm",
    "UseKind",
    "build_model",
    "decode_source",
    "device_feature",
    "dotted_name",
    "effective_declaration",
    "model_from_tree",
    "mro",
    "parse_cost",
    "parse_file",
    "passed_params",
    "required_by",
    "split_lines",
]
