"""Measure the inference on the example classes in tests/infer_cases/.

Rerun: `python tests/measure_inference.py`.

Each example class carries the classification a maintainer would merge as ``# expect: X`` on its
``class`` line (``SPLIT`` for a class that has to be split: the right answer is no fix). The README's
precision numbers come from this script; tests/test_infer.py pins them.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from hwlint.context import Context
from hwlint.infer import Inference, infer
from hwlint.model import build_model
from hwlint.taxonomy import Taxonomy, load_taxonomy

CASES = Path(__file__).parent / "infer_cases"
HELDOUT = "heldout.py"  # written before seeing the inference's answers for it, measured as it came
EXPECT = re.compile(r"#\s*expect:\s*(\w+)")


@dataclass(frozen=True)
class Row:
    path: str
    cls: str
    expected: str
    inference: Inference

    @property
    def kind(self) -> str:
        if not self.inference.fixable:
            return "none"
        return "safe" if self.inference.safe else "unsafe"

    @property
    def correct(self) -> bool:
        return self.inference.classification == self.expected


def rows(taxonomy: Taxonomy, cases: Path = CASES) -> list[Row]:
    out = []
    for path in sorted(cases.glob("*.py")):
        text = path.read_text()
        model = build_model(text, str(path), taxonomy)
        ctx = Context(model, taxonomy)
        lines = text.splitlines()
        for cls in model.classes:
            m = EXPECT.search(lines[cls.site.line - 1])
            if m:
                out.append(Row(path.name, cls.name, m.group(1), infer(ctx, cls)))
    return out


def summarize(found: list[Row]) -> dict[str, tuple[int, int]]:
    """Per kind (safe, unsafe, none): (classes, correct). For "none", correct means expected SPLIT."""
    out = {}
    for kind in ("safe", "unsafe", "none"):
        chosen = [r for r in found if r.kind == kind]
        good = [r for r in chosen if (r.expected == "SPLIT" if kind == "none" else r.correct)]
        out[kind] = (len(chosen), len(good))
    return out


def main() -> int:
    found = rows(load_taxonomy())
    for r in found:
        mark = "ok " if (r.correct if r.kind != "none" else r.expected == "SPLIT") else "-- "
        print(f"{mark}{r.path}:{r.cls}: expected {r.expected}, got {r.kind}: {r.inference.describe()}")
    heldout = [r for r in found if r.path == HELDOUT]
    for title, chosen in (("all", found), (f"held out ({HELDOUT})", heldout)):
        print(f"\n{title}: {len(chosen)} classes")
        for kind, (n, good) in summarize(chosen).items():
            share = f"{100 * good / n:.0f}%" if n else "n/a"
            label = "precision" if kind != "none" else "of them expected a split"
            print(f"{kind:>6}: {n} classes, {good} right ({share} {label})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
