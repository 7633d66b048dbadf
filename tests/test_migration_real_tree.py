"""benchmarks/migration.py on a few files of a real PyTorch test tree (slow; opt-in).

    HWLINT_REAL_TREE=/work/pt/src/pytorch-v2.6.0/test python -m pytest tests/test_migration_real_tree.py

Checks the harness itself (the figures are in docs/fixes.md): the overlay is what torch's testing
modules were loaded from, both sides are collected on every runner asked for, and the summary
names each broken file with its error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

TREE = os.environ.get("HWLINT_REAL_TREE", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(not TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory"),
]


def test_migration_on_a_few_files(tmp_path):
    pytest.importorskip("torch.testing._internal.common_device_type")
    import migration

    files = ["test_jiterator.py", "test_type_promotion.py"]
    argv = ["--tree", TREE, "--out", str(tmp_path), "--cache", str(tmp_path / "cache"), "--files", *files]
    migration.main([*argv, "--runners", "cpu,mps", "--modes", "unsafe", "--batch", "2"])

    summary = json.loads((tmp_path / "migration-summary.json").read_text())
    if migration.OVERLAY and Path(migration.OVERLAY).is_dir():
        assert summary["common_utils_loaded"].startswith(migration.OVERLAY)
    unsafe = summary["modes"]["unsafe"]
    assert unsafe["files_changed"] == 2
    assert unsafe["per_runner"]["cpu"]["tests_before"] > 0
    assert unsafe["per_runner"]["cpu"]["tests_collected_after"] > 0
    assert all(b["error"] for b in unsafe["broken"])
    # a second run compares the stored collections without collecting again
    assert migration.main([*argv, "--runners", "cpu,mps", "--modes", "unsafe", "--compare-only"]) in (0, 1)
    assert json.loads((tmp_path / "migration-summary.json").read_text())["modes"] == summary["modes"]
