"""``hwselect diff`` on a real tree against torch's own collection of two commits (docs/hwselect-diff.md).

    python benchmarks/upstream_diff.py --out /tmp/ud prepare    # copy, migrate (--fix --unsafe-fixes), commit
    python benchmarks/upstream_diff.py --out /tmp/ud change     # >= 40 files changed as upstream does, commit
    python benchmarks/upstream_diff.py --out /tmp/ud time       # hwselect diff vs one cold hwselect (ratio)
    python benchmarks/upstream_diff.py --out /tmp/ud compare --runners cpu,cuda,privateuse1

``prepare`` copies PyTorch 2.6.0's ``test/`` as benchmarks/real_tree.py does (its collection plugin
included), migrates it with ``hwlint check --fix --unsafe-fixes --ignore-noqa`` and commits it in a
new git repository at OUT. ``change`` edits a seeded choice of the classified files the way upstream
changes them (a class reclassified GENERIC -> ACCELERATOR, a class renamed, ``except_for`` added or
``only_for`` widened, a test added, a test removed, a file renamed; one edit per file) and commits.
``compare`` collects the changed files at both commits with torch (2.13 with 2.14.1's testing modules
laid over it, each runner's device faked, its run-time classification filter on: real_tree.py's
plugin), keys every test kept by the identity (path, generic class, name without device and dtype),
and compares torch's tests added and removed per runner with ``hwselect diff --format json``'s
(``renamed`` counts as one removed and one added, as torch sees it). ``time`` runs ``hwselect diff``
over the whole tree and one cold ``hwselect cpu test`` (best of N each). Results: OUT/*.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import migration
import real_tree

ROOT = Path(__file__).resolve().parent.parent
TREE = "/work/src/pytorch-v2.6.0/test"
GIT = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.org", "-c", "commit.gpgsign=false"]
#: edits per kind (one file each): 49 files
PLAN = {
    "reclassify": 10,
    "rename": 10,
    "instantiation": 10,
    "add_test": 8,
    "remove_test": 6,
    "rename_file": 5,
}
#: what each runner runs (the bundled taxonomy)
RUNS = {
    "cpu": "GENERIC,ACCELERATOR,CPU",
    "cuda": "ACCELERATOR,CUDA",
    "rocm": "ACCELERATOR,CUDA",
    "mps": "ACCELERATOR,MPS",
    "xpu": "ACCELERATOR,XPU",
    "privateuse1": "ACCELERATOR",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, check=True, capture_output=True, text=True).stdout


def tool(name: str) -> str:
    return str(Path(sys.executable).parent / name)


def prepare(out: Path, tree: str) -> None:
    real_tree.prepare(Path(tree), out)
    (out / "pyproject.toml").write_text(migration.PYPROJECT.read_text())
    (out / ".gitignore").write_text("__pycache__/\n*.pyc\n.hwlint_cache/\n")
    migration.run_fix([tool("hwlint")], out, "unsafe")
    (out / "hwlint.out").unlink()
    git(out, "init", "-q")
    git(out, "add", "-A")
    git(out, "commit", "-qm", "migrated with hwlint check --fix --unsafe-fixes")


# -- the upstream-like change -------------------------------------------------------------------


def _classified(out: Path) -> list[str]:
    files = sorted(git(out, "ls-files", "test").split())
    return [
        f
        for f in files
        if f.endswith(".py")
        and Path(f).name.startswith("test_")
        and b"HardwareClassification." in (out / f).read_bytes()
    ]


def _referenced_elsewhere(out: Path, word: str, path: str) -> bool:
    proc = subprocess.run(["git", "grep", "-lw", word, "--", "test"], cwd=out, capture_output=True, text=True)
    return any(f != path for f in proc.stdout.split())


def _reclassify(text: str, path: str, out: Path) -> str | None:
    m = re.search(r"^(\s+hw_classification\s*=\s*HardwareClassification\.)GENERIC\b", text, re.M)
    return None if m is None else text[: m.start()] + m.group(1) + "ACCELERATOR" + text[m.end() :]


def _rename(text: str, path: str, out: Path) -> str | None:
    for m in re.finditer(r"^class (Test\w+)\(", text, re.M):
        name = m.group(1)
        if not _referenced_elsewhere(out, name, path):
            return re.sub(rf"\b{name}\b", f"{name}Upstream", text)
    return None


def _instantiation(text: str, path: str, out: Path) -> str | None:
    widened = re.sub(r'only_for=(?:"cpu"|\("cpu",\))', 'only_for=("cpu", "cuda")', text, count=1)
    if widened != text:
        return widened
    m = re.search(r"instantiate_device_type_tests\((\w+), globals\(\)\)", text)
    if m is None:
        return None
    return (
        text[: m.start()]
        + f'instantiate_device_type_tests({m.group(1)}, globals(), except_for="cuda")'
        + text[m.end() :]
    )


def _add_test(text: str, path: str, out: Path) -> str | None:
    m = re.search(r"^(\s+)hw_classification\s*=\s*HardwareClassification\.\w+\n", text, re.M)
    if m is None:
        return None
    indent = m.group(1).lstrip("\n")
    added = f"\n{indent}def test_added_upstream(self, *args, **kwargs):\n{indent}    pass\n\n"
    return text[: m.end()] + added + text[m.end() :]


def _remove_test(text: str, path: str, out: Path) -> str | None:
    m = re.search(r"^    def (test_\w+)\(self", text, re.M)
    if m is None or len(re.findall(rf"\b{m.group(1)}\b", text)) != 1:
        return None
    return text[: m.start(1)] + "_removed_upstream_" + m.group(1) + text[m.end(1) :]


EDITS = {
    "reclassify": _reclassify,
    "rename": _rename,
    "instantiation": _instantiation,
    "add_test": _add_test,
    "remove_test": _remove_test,
}


def change(out: Path, seed: int) -> dict:
    files = _classified(out)
    random.Random(seed).shuffle(files)
    done: dict[str, list[str]] = {kind: [] for kind in PLAN}
    used: set[str] = set()
    for kind, want in PLAN.items():
        for path in files:
            if len(done[kind]) == want:
                break
            if path in used:
                continue
            if kind == "rename_file":
                stem = Path(path).stem
                if _referenced_elsewhere(out, stem, path):
                    continue
                new = str(Path(path).with_name(f"{stem}_v2.py"))
                git(out, "mv", path, new)
                done[kind].append(f"{path} -> {new}")
                used.add(path)
                continue
            try:
                text = (out / path).read_text()
            except UnicodeDecodeError:
                continue
            edited = EDITS[kind](text, path, out)
            if edited is None or edited == text:
                continue
            (out / path).write_text(edited)
            done[kind].append(path)
            used.add(path)
    git(out, "add", "-A")
    git(out, "commit", "-qm", "upstream-like changes")
    (out / "changes.json").write_text(json.dumps(done, indent=1))
    return done


# -- measuring ---------------------------------------------------------------------------------


def timed(cmd: list[str], cwd: Path, repeat: int) -> tuple[float, float, subprocess.CompletedProcess]:
    """Best wall time and best CPU time (user + system of the command and its children) of *repeat* runs."""
    best, cpu, proc = float("inf"), float("inf"), None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        best = min(best, time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = min(cpu, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    assert proc is not None
    return best, cpu, proc


def time_diff(out: Path, repeat: int) -> dict:
    diff_cmd = [tool("hwselect"), "diff", "--base", "HEAD~1", "--head", "HEAD", "--no-cache"]
    cold_cmd = [tool("hwselect"), "cpu", "test", "--no-cache", "-q"]
    t_diff, c_diff, proc = timed([*diff_cmd, "--format", "json", "test"], out, repeat)
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-2000:])
    (out / "diff.json").write_text(proc.stdout)
    t_cold, c_cold, _ = timed(cold_cmd, out, repeat)
    md = subprocess.run([*diff_cmd, "--format", "markdown", "test"], cwd=out, capture_output=True, text=True)
    (out / "diff.md").write_text(md.stdout)
    result = {
        "diff_seconds": round(t_diff, 2),
        "cold_hwselect_seconds": round(t_cold, 2),
        "ratio": round(t_diff / t_cold, 2),
        "diff_cpu_seconds": round(c_diff, 2),
        "cold_hwselect_cpu_seconds": round(c_cold, 2),
        "cpu_ratio": round(c_diff / c_cold, 2),
        "markdown_lines": len(md.stdout.splitlines()),
        "repeat": repeat,
        "load_average": os.getloadavg()[0],
    }
    (out / "time.json").write_text(json.dumps(result, indent=1))
    return result


def _worktree(out: Path, rev: str, name: str) -> Path:
    where = out.parent / f"{out.name}-{name}"
    if not where.exists():
        git(out, "worktree", "add", "-q", "--detach", str(where), rev)
    return where / "test"


def _torch_keys(result: dict) -> set[str] | None:
    if "error" in result or "records" not in result:
        return None
    keys = set()
    for nodeid, cls, generic, neutral, dsuffix, _device, _member, kept in result["records"]:
        if not kept or not cls:
            continue
        if dsuffix and neutral.endswith(dsuffix):
            neutral = neutral[: -len(dsuffix)]
        keys.add(f"test/{nodeid.split('::')[0]}::{generic}::{neutral}")
    return keys


def compare(out: Path, runners: list[str], batch: int, timeout: int) -> dict:
    from hwlint.select.identity import key_matches

    changes = json.loads((out / "changes.json").read_text())
    renamed = dict(line.split(" -> ") for line in changes.pop("rename_file"))
    base_files = sorted({p for paths in changes.values() for p in paths} | set(renamed))
    head_files = [renamed.get(p, p) for p in base_files]
    rel = lambda p: p[len("test/") :]  # noqa: E731
    diff = json.loads((out / "diff.json").read_text())
    trees = {"base": _worktree(out, "HEAD~1", "base"), "head": _worktree(out, "HEAD", "head")}
    summary = {}
    for runner in runners:
        env = {"HW_RECORDS": "1", "HW_OVERLAY": migration.OVERLAY, "HW_RUNS": RUNS[runner]}
        truth = {}
        for side, files in (("base", base_files), ("head", head_files)):
            store = out / f"truth-{side}-{runner}.json"
            truth[side] = real_tree.collect(
                trees[side], [rel(f) for f in files], runner, out, batch, timeout, env, store
            )
        before, after, skipped = set(), set(), []
        for b, h in zip(base_files, head_files, strict=True):
            kb, kh = _torch_keys(truth["base"][rel(b)]), _torch_keys(truth["head"][rel(h)])
            if kb is None or kh is None:
                skipped.append(b)
                continue
            before |= kb
            after |= kh
        scope = {
            f for pair in zip(base_files, head_files, strict=True) if pair[0] not in skipped for f in pair
        }
        rd = next(r for r in diff["runners"] if r["runner"] == runner)
        hw_added = {e["key"] for e in rd["added"] + rd["renamed"] if e["key"].split("::")[0] in scope}
        hw_removed = {e["key"] for e in rd["removed"] if e["key"].split("::")[0] in scope}
        hw_removed |= {e["old_key"] for e in rd["renamed"] if e["old_key"].split("::")[0] in scope}
        row = {"files": len(scope), "skipped_files": skipped}
        for what, truth_keys, hw_keys in (
            ("added", after - before, hw_added),
            ("removed", before - after, hw_removed),
        ):
            missed = sorted(t for t in truth_keys if not any(key_matches(h, t) for h in hw_keys))
            extra = sorted(h for h in hw_keys if not any(key_matches(h, t) for t in truth_keys))
            row[what] = {
                "torch": len(truth_keys),
                "hwselect": len(hw_keys),
                "missed": missed[:50],
                "extra": extra[:50],
                "missed_count": len(missed),
                "extra_count": len(extra),
            }
        summary[runner] = row
        print(
            runner,
            json.dumps({k: v for k, v in row.items() if k != "skipped_files"})[:400],
        )
    (out / "compare.json").write_text(json.dumps(summary, indent=1))
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("step", choices=("prepare", "change", "time", "compare"))
    p.add_argument("--out", required=True)
    p.add_argument("--tree", default=TREE)
    p.add_argument("--seed", type=int, default=49)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--runners", default="cpu,cuda,privateuse1")
    p.add_argument("--batch", type=int, default=40)
    p.add_argument("--timeout", type=int, default=900)
    args = p.parse_args(argv)
    out = Path(args.out)
    if args.step == "prepare":
        prepare(out, args.tree)
    elif args.step == "change":
        print(json.dumps({k: len(v) for k, v in change(out, args.seed).items()}))
    elif args.step == "time":
        print(json.dumps(time_diff(out, args.repeat)))
    else:
        compare(out, args.runners.split(","), args.batch, args.timeout)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    sys.exit(main())
