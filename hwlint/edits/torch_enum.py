"""Which import of the enum a fix writes, decided from the torch the tree runs on.

A declaration needs the taxonomy's enum (``HardwareClassification``); torch defines it from 2.14
on. A fix that writes ``from torch.testing._internal.common_utils import HardwareClassification``
into a tree that runs on an older torch breaks every file it fixes, so the form is read from
evidence, in this order (the first that exists decides):

1. the tree is inside a checkout of the enum's package (``<dir>/torch/testing/_internal/
   common_utils.py`` next to one of the tree's ancestors): that file's text;
2. the installed package, found without importing it (``importlib.util.find_spec`` of its top
   package, then the module's file read as text: importing torch takes seconds and may fail);
3. the taxonomy's ``enum.fallback``.

The taxonomy's ``enum.fallback: true`` always writes the fallback block (it imports on every torch).
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..taxonomy import Taxonomy
from .imports import MAX_LINE


@dataclass(frozen=True)
class EnumForm:
    """The form a fix imports the enum in, and why (said in the fix summary)."""

    fallback: bool
    reason: str

    def describe(self, taxonomy: Taxonomy) -> str:
        if self.fallback:
            written = f"`try: from {taxonomy.enum_module} import {taxonomy.enum_name}` with a fallback"
        else:
            written = f"`from {taxonomy.enum_module} import {taxonomy.enum_name}`"
        return f"where a fix imports the enum, it writes {written}: {self.reason}"


def module_file(root: str, module: str) -> str:
    """The file of dotted *module* under directory *root* (``a/b/c.py``)."""
    return os.path.join(root, *module.split(".")) + ".py"


def defines(path: str, name: str) -> bool | None:
    """Whether the Python file at *path* binds *name* at module level (a class, an assignment or an
    import of it), read as text; None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    word = re.escape(name)
    pattern = rf"^(?:class {word}\b|{word}\s*[:=]|from\s+\S+\s+import\s+.*\b{word}\b)"
    return re.search(pattern, text, re.M) is not None


def checkout_module(paths: Iterable[str], module: str) -> str | None:
    """The file of *module* in a checkout that holds one of *paths* (the nearest ancestor directory
    with that file), if any."""
    seen: set[str] = set()
    for path in paths:
        here = os.path.abspath(path)
        if not os.path.isdir(here):
            here = os.path.dirname(here)
        while here not in seen:
            seen.add(here)
            candidate = module_file(here, module)
            if os.path.isfile(candidate):
                return candidate
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    return None


def installed_module(module: str) -> str | None:
    """The file of *module* in the installed package, found without importing anything."""
    top, _, rest = module.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = module_file(location, rest) if rest else os.path.join(location, "__init__.py")
        if os.path.isfile(candidate):
            return candidate
    return None


def enum_form(taxonomy: Taxonomy, paths: Iterable[str]) -> EnumForm:
    """The form a fix of files under *paths* imports the taxonomy's enum in (see the module doc)."""
    name, module = taxonomy.enum_name, taxonomy.enum_module
    if taxonomy.enum_fallback:
        return EnumForm(True, "the taxonomy sets `enum.fallback: true`")
    for where, found in (
        ("the checkout's", checkout_module(paths, module)),
        ("the installed", installed_module(module)),
    ):
        if found is None:
            continue
        has = defines(found, name)
        if has is None:
            continue
        shown = _shown(found)
        if has:
            return EnumForm(False, f"{where} {shown} defines {name}")
        return EnumForm(True, f"{where} {shown} lacks {name}")
    return EnumForm(False, f"no {module} found and the taxonomy leaves `enum.fallback` false")


def _shown(path: str) -> str:
    """*path* relative to the working directory when it is below it, else absolute."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def with_enum_form(taxonomy: Taxonomy, form: EnumForm) -> Taxonomy:
    """*taxonomy* writing the enum's import in *form* (its digest, the caches' key, says which)."""
    if form.fallback == taxonomy.enum_fallback:
        return taxonomy
    return replace(taxonomy, enum_fallback=form.fallback, digest=f"{taxonomy.digest}+enum-fallback")


def fallback_block(taxonomy: Taxonomy, unit: str, import_enum: bool) -> list[str]:
    """The lines of the enum's fallback block (indented by *unit*; with ``import enum`` in the
    ``except`` where the module does not import it), written clean under pycodestyle's and isort's
    defaults: no line over :data:`MAX_LINE`, the nested import directly above its use."""
    name, module = taxonomy.enum_name, taxonomy.enum_module
    inner = unit * 2
    lines = ["try:"]
    line = f"{unit}from {module} import {name}"
    if len(line) > MAX_LINE:
        lines += [f"{unit}from {module} import (", f"{inner}{name},", f"{unit})"]
    else:
        lines.append(line)
    lines.append(f"except ImportError:  # a torch without {name}")
    if import_enum:
        lines.append(f"{unit}import enum")
    members = " ".join(taxonomy.classifications)
    line = f'{unit}{name} = enum.Enum("{name}", "{members}")'
    if len(line) <= MAX_LINE:
        return [*lines, line]
    arguments = f'{inner}"{name}", "{members}"'
    if len(arguments) <= MAX_LINE:
        return [*lines, f"{unit}{name} = enum.Enum(", arguments, f"{unit})"]
    words = [f'{inner}"{name}",', f"{inner}["]
    words += [f'{inner}{unit}"{member}",' for member in taxonomy.classifications]
    return [*lines, f"{unit}{name} = enum.Enum(", *words, f"{inner}],", f"{unit})"]
