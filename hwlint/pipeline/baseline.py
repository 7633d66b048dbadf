"""The baseline: an allowlist of files ``hwlint check`` skips, so a project adopts hwlint without a
flag day, in the shape of PyTorch's own allowlist (a JSON list of repo-relative paths).

Paths are relative to the project root (the directory of the pyproject.toml holding ``[tool.hwlint]``,
else the current directory). The list should only shrink: an entry whose file checks clean now, or
no longer exists, is reported as HWC902.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..rules.check import Finding, _finding

STALE_CODE = "HWC902"


class BaselineError(Exception):
    """A baseline file that cannot be read; ``str()`` names the file."""


@dataclass(frozen=True)
class Baseline:
    path: str  # the baseline file, as given
    root: Path  # what the entries are relative to
    entries: dict[str, int]  # entry -> its line in the file (for HWC902)

    def key(self, path: str) -> str:
        return entry_for(path, self.root)

    def __contains__(self, path: str) -> bool:
        return self.key(path) in self.entries


def entry_for(path: str, root: Path) -> str:
    """*path* as a baseline entry: relative to *root*, with forward slashes."""
    return Path(os.path.relpath(os.path.abspath(path), root)).as_posix()


def load_baseline(path: str, root: Path) -> Baseline:
    """Read a baseline file: a JSON list of path strings."""
    try:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as e:
        raise BaselineError(f"{path}: cannot read baseline: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise BaselineError(f"{path}: not a JSON baseline: {e}") from None
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        raise BaselineError(f"{path}: a baseline is a JSON list of file paths")
    lines = text.splitlines()
    entries = {}
    for entry in data:
        quoted = json.dumps(entry)
        entries[entry] = next((i for i, line in enumerate(lines, 1) if quoted in line), 1)
    return Baseline(path, root, entries)


def baseline_entries(findings: Iterable[Finding], root: Path) -> list[str]:
    """The sorted entries for the files that have *findings*."""
    return sorted({entry_for(f.path, root) for f in findings})


def write_baseline(path: str, entries: Sequence[str]) -> None:
    """Write the entries as the upstream allowlist does: a sorted, indented JSON list."""
    Path(path).write_text(json.dumps(sorted(entries), indent=2) + "\n", encoding="utf-8")


def apply_baseline(
    baseline: Baseline, found: Sequence[tuple[str, list[Finding]]]
) -> tuple[list[tuple[str, list[Finding]]], list[Finding]]:
    """The checked files not in the baseline, and an HWC902 finding for each stale entry.

    *found* holds each checked file with its selected findings. A listed file among them that has no
    finding now is stale; so is an entry whose file does not exist, wherever it points.
    """
    keep = [(path, findings) for path, findings in found if path not in baseline]
    clean = {baseline.key(path) for path, findings in found if not findings and path in baseline}
    stale = []
    for entry, line in baseline.entries.items():
        if entry in clean or not (baseline.root / entry).exists():
            fields = {"entry": entry, "baseline": baseline.path}
            stale.append(_finding(baseline.path, STALE_CODE, line, 0, fields))
    return keep, stale
