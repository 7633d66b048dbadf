"""benchmarks/floors.py takes parts out of hwlint by patching it: each patch must still take out
exactly its part (a rename in hwlint would otherwise leave the benchmark timing something else)."""

from __future__ import annotations

import subprocess
import sys

import floors  # benchmarks/ is on the path (pyproject: pythonpath)
import pytest

from .conftest import EXAMPLES

_FOUND = ["HWC001", "HWC002", "HWC101", "HWC102", "HWC107", "HWC201", "HWC202", "HWC203"]


def _codes(patch: str | None) -> list[str]:
    if patch is None:
        head = [sys.executable, "-m", "hwlint"]
    else:
        head = [sys.executable, "-c", patch + floors.LAUNCH]
    options = ["check", "--no-cache", "--exit-zero", "--output-format", "concise", str(EXAMPLES)]
    done = subprocess.run([*head, *options], capture_output=True, text=True, check=True)
    return sorted(line.split()[1] for line in done.stdout.splitlines() if ": HWC" in line)


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("as shipped", [*_FOUND, "HWC204"]),
        # HWC204 reads the device scan's accelerator API calls; nothing else in examples/ does
        ("without the device scan", _FOUND),
        ("parse only", []),
    ],
)
def test_each_variant_takes_out_its_part(variant, expected):
    assert _codes(floors.VARIANTS[variant]) == expected
