"""The taxonomy: which classifications exist, what each requires, and what each runner executes.

The YAML file is policy; this package is the mechanism that loads and validates it:
:mod:`~hwlint.taxonomy.schema` declares every key once (the records, their defaults, their
validation, `taxonomy show` and the reference in docs/taxonomy.md come from it),
:mod:`~hwlint.taxonomy.fields` is how a key is declared and read, :mod:`~hwlint.taxonomy.load`
reads the file and :mod:`~hwlint.taxonomy.reference` writes the reference.
"""

from __future__ import annotations

from .fields import TaxonomyError
from .load import (
    MAX_TAXONOMY_BYTES,
    MAX_TAXONOMY_DEPTH,
    default_taxonomy_path,
    load_taxonomy,
    parse_taxonomy,
)
from .schema import (
    AVAILABILITY,
    DEFAULT_POSITIONAL,
    DEVICE_PARAM,
    EXCEPT_FOR,
    INSTANTIATION,
    ONLY_FOR,
    Classification,
    Device,
    DeviceNeutral,
    Runner,
    Taxonomy,
    effective_dict,
)

__all__ = [
    "AVAILABILITY",
    "DEFAULT_POSITIONAL",
    "DEVICE_PARAM",
    "EXCEPT_FOR",
    "INSTANTIATION",
    "MAX_TAXONOMY_BYTES",
    "MAX_TAXONOMY_DEPTH",
    "ONLY_FOR",
    "Classification",
    "Device",
    "DeviceNeutral",
    "Runner",
    "Taxonomy",
    "TaxonomyError",
    "default_taxonomy_path",
    "effective_dict",
    "load_taxonomy",
    "parse_taxonomy",
]
