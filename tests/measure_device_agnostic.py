"""Measure HWC301 / HWC302 and their fixes on a real test tree (docs/device-agnostic.md reports it).

    python tests/measure_device_agnostic.py /work/pt/src/pytorch-v2.6.0/test

The tree is copied to a temporary directory. On the copy: (1) HWC301/HWC302 as the tree is; (2) the
tree classified by hwlint's own declaration fixes (``--select HWC0 --fix --unsafe-fixes``), then
HWC301/HWC302 again; (3) the HWC301/HWC302 fixes applied (``--unsafe-fixes``); (4) every changed file
compiled and checked again, and the findings left on converted classes counted.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from hwlint.pipeline.check import check_paths
from hwlint.pipeline.config import Config, discover
from hwlint.rules.check import Selection
from hwlint.taxonomy import load_taxonomy

TAXONOMY = load_taxonomy()


def hwlint(root: Path, *args: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("hwlint")
    return subprocess.run(
        [str(exe), "check", "--isolated", "--no-cache", "--exit-zero", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )


def findings(root: Path, *paths: str, select: str = "HWC301,HWC302") -> list[dict]:
    """The selected findings under *root* (or of *paths*), each with its fix's applicability."""
    files = list(discover([str(root / p) for p in paths] or [str(root)], Config()))
    selection = Selection(tuple(select.split(",")))
    out = []
    for per_file in check_paths(files, TAXONOMY, jobs=2):
        for f in per_file:
            if selection.enabled(f.code):
                name = str(Path(f.path).relative_to(root))
                out.append({"code": f.code, "message": f.message, "filename": name, "fix": f.fix})
    return out


_CLASS = re.compile(r"test class `(\w+)`")


def tally(found: list[dict]) -> dict:
    hwc301 = [f for f in found if f["code"] == "HWC301"]
    hwc302 = [f for f in found if f["code"] == "HWC302"]
    convertible = [f for f in hwc302 if f["fix"]]
    return {
        "HWC301 findings": len(hwc301),
        "HWC301 classes": len({(f["filename"], _CLASS.search(f["message"]).group(1)) for f in hwc301}),
        "HWC301 files": len({f["filename"] for f in hwc301}),
        "HWC301 with a safe fix": sum(1 for f in hwc301 if f["fix"] == "safe"),
        "HWC301 with an unsafe fix": sum(1 for f in hwc301 if f["fix"] == "unsafe"),
        "HWC302 convertible classes": len(convertible),
        "HWC302 classes one line short": len(hwc302) - len(convertible),
    }


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*.py")}


def main(tree: str) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="hwlint-da-"))
    root = tmp / "test"
    shutil.copytree(tree, root)
    out: dict[str, object] = {"as is": tally(findings(root))}
    hwlint(root, "--select", "HWC0", "--fix", "--unsafe-fixes", "--quiet", ".")
    classified = snapshot(root)
    before = findings(root)
    out["classified"] = tally(before)
    hwlint(root, "--select", "HWC301,HWC302", "--fix", "--unsafe-fixes", "--quiet", ".")
    changed = sorted(p for p, data in snapshot(root).items() if classified.get(p) != data)
    broken = []
    for p in changed:
        try:
            compile((root / p).read_bytes(), p, "exec", dont_inherit=True)
        except SyntaxError as e:
            broken.append(f"{p}: {e}")
    after = findings(root)
    converted = {
        (f["filename"], _CLASS.search(f["message"]).group(1))
        for f in before
        if f["code"] == "HWC302" and f["fix"]
    }
    all_after = findings(root, *changed, select="HWC") if changed else []
    on_converted = [
        f
        for f in all_after
        if (m := _CLASS.search(f["message"])) and (f["filename"], m.group(1)) in converted
    ]
    out["fixed"] = tally(after)
    out["changed files"] = len(changed)
    out["changed files that do not compile"] = broken
    out["findings left on converted classes"] = Counter(f["code"] for f in on_converted)
    out["findings in changed files, by code"] = dict(sorted(Counter(f["code"] for f in all_after).items()))
    print(json.dumps(out, indent=2, default=dict))
    shutil.rmtree(tmp)


if __name__ == "__main__":
    main(sys.argv[1])
