"""hwselect against pytest's collection of a real PyTorch test tree (slow; opt-in).

    HWLINT_REAL_TREE=/work/pt/src/pytorch-v2.6.0/test python -m pytest -m slow tests/test_select_real_tree.py

Runs benchmarks/real_tree.py on a few files that exercise the hard cases (a module that calls
sys.exit() on import, tests added with setattr, imported test classes) and asserts the property:
no printed node id is missing from the collection, and every collected class is selected (by
node id or through its file) or named in a warning. The whole tree: see docs/hwselect-real-tree.md.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

TREE = os.environ.get("HWLINT_REAL_TREE", "")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.torch,
    pytest.mark.skipif(not TREE, reason="set HWLINT_REAL_TREE to a PyTorch test/ directory"),
]
FILES = [
    "distributed/test_c10d_nccl.py",  # sys.exit(0) on import without NCCL
    "test_spectral_ops.py",  # setattr adds the doc tests, then instantiation
    "test_quantization.py",  # imports test classes from quantization/...
    "quantization/core/test_quantized_op.py",
    "test_type_promotion.py",
]


def test_real_tree_sample(tmp_path):
    pytest.importorskip("torch.testing._internal.common_device_type")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import real_tree

    rc = real_tree.main(["--tree", TREE, "--out", str(tmp_path), "--files", *FILES, "--batch", "1"])

    summary = json.loads((tmp_path / "summary-cpu.json").read_text())
    assert summary["missing_nodeids"] == []
    assert summary["missed"] == []
    assert summary["classes_collected"] > 0
    assert rc == 0
