"""Collection time of ``pytest --hw-runner R`` against upstream's run-time filter (issue 48, item 1).

    python benchmarks/plugin_collection.py --out /tmp/pc --runners xpu,privateuse1 [--sample 150]

Upstream's way for an out-of-tree backend imports every file and then drops most classes:
``PYTORCH_TESTING_DEVICE_ONLY_FOR=privateuse1 pytest test/ --hw-classification ACCELERATOR``. The
plugin deselects the same way but never imports a file that holds none of the runner's tests. Both
run here on a migrated copy of PyTorch 2.6.0's ``test/`` (``hwlint check --fix --unsafe-fixes
--ignore-noqa``, once), in one fresh ``pytest --collect-only`` process each, with the runner's
device environment and faked device and torch 2.14.1's testing modules laid over the installed
torch (benchmarks/real_tree.py's collection plugin, which also applies the run-time filter:
``HW_RUNS``). ``--sample N`` takes a seeded random subset of the test files (the same for both).
Prints, per runner, the wall-clock seconds of each, their ratio (plugin / filter), the items each
kept and the files the plugin left unimported; writes OUT/plugin-collection.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_tree import RUNNERS, prepare, test_files

OVERLAY = "/work/cache/t214/torch/testing/_internal"
TREE = "/work/src/pytorch-v2.6.0/test"


def migrate(root: Path) -> None:
    """Classify the copy once, as a migration would (a marker file says it is done)."""
    marker = root / ".hw_migrated"
    if marker.exists():
        return
    exe = Path(sys.executable).parent / "hwlint"
    cmd = [str(exe), "check", "--fix", "--unsafe-fixes", "--ignore-noqa", "--exit-zero", "-q", "."]
    subprocess.run(cmd, cwd=root, capture_output=True, check=False)
    marker.write_text("")


def run(root: Path, runner: str, files: list[str], mode: str, runs: list[str], timeout: int) -> dict:
    target = root.parent / f"pc-{runner}-{mode}.json"
    target.unlink(missing_ok=True)
    env = {
        **os.environ,
        **RUNNERS[runner]["env"],
        "HW_OVERLAY": OVERLAY,
        "HW_COLLECT_OUT": str(target),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "--continue-on-collection-errors"]
    cmd += ["-p", "_hw_collect_plugin"]
    if mode == "filter":
        env["HW_RUNS"] = ",".join(runs)
    else:
        cmd += ["--hw-runner", runner, *(["--hw-backend", "openreg"] if runner == "privateuse1" else [])]
    cmd += files
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    try:
        data = json.loads(target.read_text())
    except (OSError, ValueError):  # the session ended before the plugin wrote its report
        data = {"items": []}
    not_imported = next(
        (line for line in proc.stdout.splitlines() if "not imported" in line and line.startswith("hwselect")),
        "",
    )
    return {"seconds": round(seconds, 1), "items": len(data["items"]), "not_imported": not_imported}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", default=TREE)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runners", default="xpu,privateuse1")
    ap.add_argument("--sample", type=int, default=0, help="a seeded random subset of N files (0: all)")
    ap.add_argument("--timeout", type=int, default=7200)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    migrate(root)
    files = test_files(root)
    if args.sample:
        files = sorted(random.Random(0).sample(files, min(args.sample, len(files))))
    from hwlint.taxonomy import load_taxonomy

    taxonomy = load_taxonomy(None)
    results = {}
    for runner in args.runners.split(","):
        runs = list(taxonomy.runners[runner].runs)
        filt = run(root, runner, files, "filter", runs, args.timeout)
        plug = run(root, runner, files, "plugin", runs, args.timeout)
        ratio = plug["seconds"] / filt["seconds"] if filt["seconds"] else float("nan")
        results[runner] = {"files": len(files), "filter": filt, "plugin": plug, "ratio": round(ratio, 2)}
        print(
            f"{runner}: {len(files)} files; run-time filter {filt['seconds']} s ({filt['items']} items), "
            f"plugin {plug['seconds']} s ({plug['items']} items), ratio {ratio:.2f}; {plug['not_imported']}",
            flush=True,
        )
    (out / "plugin-collection.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
