"""The reference section of docs/taxonomy.md, generated from the schema (one table per record).

``python -m hwlint.taxonomy.reference docs/taxonomy.md`` rewrites the section between its markers;
without a file it prints the section. tests/test_taxonomy.py keeps the page in step with the schema.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .fields import REQUIRED, keys
from .schema import Classification, Device, DeviceNeutral, Runner, Taxonomy

BEGIN = (
    "<!-- reference: generated from hwlint/taxonomy/schema.py by "
    "`python -m hwlint.taxonomy.reference docs/taxonomy.md` -->"
)
END = "<!-- end of reference -->"

#: Each record's table, where its mapping sits in the file.
SECTIONS = (
    (Taxonomy, "Top level"),
    (Device, "`devices.<type>`"),
    (DeviceNeutral, "`device_neutral`"),
    (Classification, "`classifications.<NAME>`"),
    (Runner, "`runners.<name>`"),
)


def flow(value: Any) -> str:
    """*value* in YAML's flow style, as a file would write it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(flow(v) for v in value) + "]"
    return str(value)


def reference_markdown() -> str:
    """The reference: every key of every record, its kind of value, its default and its meaning."""
    out: list[str] = []
    for record, title in SECTIONS:
        out += [f"### {title}", ""]
        doc = (record.__doc__ or "").strip().splitlines()[0].replace("``", "`")
        out += [doc, "", "| key | value | default | meaning |", "|---|---|---|---|"]
        for _, spec in keys(record):
            default = "required" if spec.default is REQUIRED else f"`{flow(spec.default)}`"
            meaning = spec.doc + (f" (`{spec.single}: x` names one, first)" if spec.single else "")
            out.append(f"| `{spec.path}` | {spec.kind.shape} | {default} | {meaning} |")
        checks = getattr(record, "CHECKS", ())
        if checks:
            out += ["", *(f"- {' '.join((c.__doc__ or '').split())}" for c in checks)]
        out.append("")
    return "\n".join(out)


def rewrite(text: str) -> str:
    """*text* (the page) with its reference section regenerated."""
    head, found, rest = text.partition(BEGIN)
    if not found or END not in rest:
        raise ValueError(f"the page has no {BEGIN!r} ... {END!r} section")
    tail = rest.partition(END)[2]
    return f"{head}{BEGIN}\n\n{reference_markdown()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if not argv:
        print(reference_markdown())
        return 0
    page = Path(argv[0])
    from ..effects import write_output

    write_output(page, rewrite(page.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
