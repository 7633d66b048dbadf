"""Compare hwselect with pytest's own collection on a real PyTorch test tree (docs/hwselect-real-tree.md).

    python benchmarks/real_tree.py --tree /work/pt/src/pytorch-v2.6.0/test --out /tmp/rt
    python benchmarks/real_tree.py --tree ... --out /tmp/rt --sample 60     # a seeded random subset
    python benchmarks/real_tree.py --out /tmp/rt --compare-only             # re-run hwselect only

Steps: copy the tree (the original is never written), patch PyTorch 2.6's ``conftest.py`` for current
pytest (its ``pytest_pycollect_makemodule`` still takes the removed ``path`` argument), collect every
test file with the installed torch in batches of fresh ``pytest --collect-only`` processes (the
runner's device faked with ``PYTORCH_TESTING_DEVICE_ONLY_FOR``, as tests/test_select_torch.py does;
no classification filter: the tree is unclassified, so the generation logic itself is compared), then
run ``hwselect RUNNER --include-unclassified`` on the same copy and compare class by class:

* agreement: classes pytest collects that hwselect selects by an exact node id or through its file;
* missed: classes pytest collects that hwselect neither selects nor names in a warning (the target is 0);
* missing node ids: printed ``path::Class`` lines pytest does not collect (must be 0: one aborts a run).

Only files whose collection succeeded are compared (a module that fails to import under the installed
torch collects nothing, and hwselect cannot know that). Results go to OUT/summary.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

RUNNERS = {"cpu": {"PYTORCH_TESTING_DEVICE_ONLY_FOR": "cpu"}}
CONFTEST_HOOK = "def pytest_pycollect_makemodule(module_path, path, parent)"
PLUGIN = '''\
"""Writes what pytest collected: item node ids and the modules whose collection failed."""
import json
import os

_FAILED = []


def pytest_collectreport(report):
    if report.failed:
        _FAILED.append(report.nodeid)


def pytest_collection_finish(session):
    with open(os.environ["HW_COLLECT_OUT"], "w") as f:
        json.dump({"items": [i.nodeid for i in session.items], "failed": _FAILED}, f)
'''


def prepare(tree: Path, out: Path) -> Path:
    """A patched copy of *tree* under *out* (reused when present)."""
    copy = out / "test"
    if copy.exists():
        return copy
    shutil.copytree(tree, copy, symlinks=True)
    conftest = copy / "conftest.py"
    text = conftest.read_text()
    if CONFTEST_HOOK in text:
        conftest.write_text(
            text.replace(CONFTEST_HOOK, "def pytest_pycollect_makemodule(module_path, parent)")
        )
    (copy / "_hw_collect_plugin.py").write_text(PLUGIN)
    (copy / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return copy


def test_files(root: Path) -> list[str]:
    """Files pytest's default python_files pattern collects, root-relative, sorted."""
    out = []
    for p in root.rglob("*.py"):
        if p.name.startswith("test_") or p.name.endswith("_test.py"):
            out.append(p.relative_to(root).as_posix())
    return sorted(out)


def collect_batch(root: Path, files: list[str], runner: str, out: Path, timeout: int) -> dict | None:
    target = out / f"collect-{runner}-{os.getpid()}.json"
    env = {
        **os.environ,
        **RUNNERS[runner],
        "HW_COLLECT_OUT": str(target),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(root),
    }
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "--continue-on-collection-errors"]
    cmd += ["-p", "_hw_collect_plugin", *files]
    try:
        subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if not target.exists():
        return None
    data = json.loads(target.read_text())
    target.unlink()
    return data


def collect(root: Path, files: list[str], runner: str, out: Path, batch: int, timeout: int) -> dict:
    """Per file: {"items": [...]} or {"error": why}. Resumable: results accumulate in OUT."""
    store = out / f"truth-{runner}.json"
    done: dict = json.loads(store.read_text()) if store.exists() else {}
    todo = [f for f in files if f not in done]
    queue = [todo[i : i + batch] for i in range(0, len(todo), batch)]
    while queue:
        part = queue.pop(0)
        t0 = time.time()
        data = collect_batch(root, part, runner, out, timeout)
        if data is None:
            if len(part) > 1:
                mid = len(part) // 2
                queue[:0] = [part[:mid], part[mid:]]
                continue
            done[part[0]] = {"error": "timeout or crash"}
        else:
            failed = {n.split("::")[0] for n in data["failed"]}
            for f in part:
                items = [i for i in data["items"] if i.split("::")[0] == f]
                done[f] = {"error": "collection failed"} if f in failed else {"items": items}
        store.write_text(json.dumps(done))
        print(
            f"collected {len(done)}/{len(files)} files ({time.time() - t0:.0f}s for {len(part)})", flush=True
        )
    return done


def hwselect(root: Path, runner: str, files: list[str]) -> tuple[list[str], str, float]:
    exe = Path(sys.executable).parent / "hwselect"
    t0 = time.time()
    proc = subprocess.run(
        [str(exe), runner, "--include-unclassified", "--no-cache", *files],
        cwd=root,
        capture_output=True,
        text=True,
    )
    return proc.stdout.splitlines(), proc.stderr, time.time() - t0


def compare(root: Path, runner: str, truth: dict, out: Path) -> dict:
    """Class-level agreement on the files that collected; hwselect runs on every file (as a user would)."""
    ok_files = sorted(f for f, r in truth.items() if "items" in r)
    collected: dict[str, int] = {}
    for f in ok_files:
        for item in truth[f]["items"]:
            parts = item.split("::")
            if len(parts) >= 3:
                key = "::".join(parts[:2])
                collected[key] = collected.get(key, 0) + 1
    lines, stderr, seconds = hwselect(root, runner, sorted(truth))
    ids, whole, k = set(), set(), None
    it = iter(lines)
    for line in it:
        if line == "-k":
            k = next(it, "")
        elif "::" in line:
            ids.add(line)
        elif line.strip():
            whole.add(line)
    ok = set(ok_files)
    checkable = {i for i in ids if i.split("::")[0] in ok}
    missing = sorted(i for i in checkable if i not in collected)
    # warnings by file: "hwselect: warning: PATH[::Class]: text"
    warned: dict[str, list[str]] = {}
    for w in stderr.splitlines():
        if w.startswith("hwselect: warning: "):
            head, _, text = w[len("hwselect: warning: ") :].partition(": ")
            warned.setdefault(head.split("::")[0], []).append(head + ": " + text)
    exact = {c for c in collected if c in ids}
    via_file = {c for c in collected if c not in ids and c.split("::")[0] in whole}
    rest = set(collected) - exact - via_file
    named = {c for c in rest if any(c.split("::")[1] in w for w in warned.get(c.split("::")[0], []))}
    file_warned = {c for c in rest - named if c.split("::")[0] in warned}
    missed = sorted(rest - named - file_warned)
    summary = {
        "runner": runner,
        "files_total": len(truth),
        "files_collected": len(ok_files),
        "files_failed": sorted(f for f, r in truth.items() if "items" not in r),
        "classes_collected": len(collected),
        "selected_exact": len(exact),
        "selected_via_file": len(via_file),
        "named_in_warning": sorted(named),
        "in_warned_file": sorted(file_warned),
        "missed": missed,
        "printed_nodeids": len(ids),
        "printed_nodeids_checkable": len(checkable),
        "missing_nodeids": missing,
        "files_listed_whole": len(whole),
        "k_expression_bytes": len(k or ""),
        "hwselect_seconds": round(seconds, 2),
    }
    (out / f"summary-{runner}.json").write_text(json.dumps(summary, indent=2))
    (out / f"hwselect-{runner}.stderr").write_text(stderr)
    (out / f"hwselect-{runner}.stdout").write_text("\n".join(lines))
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", default="/work/pt/src/pytorch-v2.6.0/test")
    p.add_argument("--out", required=True)
    p.add_argument("--runner", default="cpu", choices=sorted(RUNNERS))
    p.add_argument("--sample", type=int, default=0, help="a seeded random subset of N files")
    p.add_argument("--files", nargs="*", help="these files only (root-relative)")
    p.add_argument("--batch", type=int, default=40)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--compare-only", action="store_true")
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    root = prepare(Path(args.tree), out)
    files = args.files or test_files(root)
    if args.sample:
        files = sorted(random.Random(15).sample(files, min(args.sample, len(files))))
    if not args.compare_only:
        truth = collect(root, files, args.runner, out, args.batch, args.timeout)
    else:
        truth = json.loads((out / f"truth-{args.runner}.json").read_text())
    truth = {f: truth[f] for f in files if f in truth}
    summary = compare(root, args.runner, truth, out)
    # A module that calls sys.exit() on import ends the collection of its whole batch, so a file
    # that collected nothing in a batch is collected again on its own before a missing id counts.
    again = sorted({i.split("::")[0] for i in summary["missing_nodeids"]} & set(truth))
    again = [f for f in again if not truth[f].get("items") and not truth[f].get("alone")]
    if again and not args.compare_only:
        store = out / f"truth-{args.runner}.json"
        done = json.loads(store.read_text())
        for f in again:
            data = collect_batch(root, [f], args.runner, out, args.timeout)
            failed = data is None or f in {n.split("::")[0] for n in data["failed"]}
            done[f] = {"error": "collection failed"} if failed else {"items": data["items"], "alone": True}
            print(f"collected {f} again on its own: {len(done[f].get('items', []))} items", flush=True)
        store.write_text(json.dumps(done))
        truth = {f: done[f] for f in files if f in done}
        summary = compare(root, args.runner, truth, out)
    short = {k: (len(v) if isinstance(v, list) else v) for k, v in summary.items()}
    print(json.dumps(short, indent=2))
    return 1 if summary["missing_nodeids"] or summary["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
