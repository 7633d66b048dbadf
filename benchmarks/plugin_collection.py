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

    python benchmarks/plugin_collection.py --out /tmp/pc --check --sample 60 \
        --runners cpu,cuda,rocm,mps,xpu,privateuse1 [--k-expr "not float32"]

``--check`` instead checks, on the same migrated copy, that the ways hwlint offers to run a runner's
share collect the same items, each in a fresh ``pytest --collect-only`` (the runner's environment,
faked device and overlay as above; the files the sample holds):

* ``pytest --hw-runner R FILES`` collects exactly what ``pytest @ids.args`` collects (``hwselect R
  FILES --argsfile ids.args``, node ids and, where a file is listed whole, the plugin's options);
* with ``-k EXPR`` added, each collects the intersection of that with ``pytest FILES -k EXPR``;
* ``pytest FILES -k "$(hwselect R FILES --format k)"`` collects exactly the node ids' items, with
  ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` set to the runner's device and without it, or ``--format k``
  exits 2.

On PrivateUse1 the first class torch generates in a process is named ``...PRIVATEUSE1`` and later
ones after the backend (``...OPENREG``): which one comes first depends on which files a session
imports, so node ids are compared with that suffix read as the backend's (counted as ``renamed``).
Prints one line per runner and writes OUT/plugin-check.json; exits 1 on a disagreement.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from real_tree import RUNNERS, prepare, test_files

OVERLAY = "/work/cache/t214/torch/testing/_internal"
TREE = "/work/src/pytorch-v2.6.0/test"


def migrate(root: Path, paths: list[str] | None = None) -> None:
    """Classify the copy (or only *paths* in it) once, as a migration would (a marker file says it
    is done)."""
    marker = root / ".hw_migrated"
    if marker.exists():
        return
    exe = Path(sys.executable).parent / "hwlint"
    cmd = [
        str(exe),
        "check",
        "--fix",
        "--unsafe-fixes",
        "--ignore-noqa",
        "--exit-zero",
        "-q",
        *(paths or ["."]),
    ]
    subprocess.run(cmd, cwd=root, capture_output=True, check=False)
    marker.write_text("")


def session(
    root: Path, runner: str, args: list[str], timeout: int, *, tag: str, env: dict[str, str] | None = None
) -> dict:
    """One fresh ``pytest --collect-only ARGS`` in *root* as *runner*'s job: the seconds it took,
    its exit code, the items it collected and the files that failed to collect (the collection
    plugin's report; *env* adds to the runner's environment, a None value removes a variable)."""
    target = root.parent / f"pc-{runner}-{tag}.json"
    target.unlink(missing_ok=True)
    environment = {
        **os.environ,
        **RUNNERS[runner]["env"],
        "HW_OVERLAY": OVERLAY,
        "HW_CATCH_EXIT": "1",  # a module's sys.exit() on import fails that file, not the session
        "HW_COLLECT_OUT": str(target),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": f"{root}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
    }
    for key, value in (env or {}).items():
        if value is None:
            environment.pop(key, None)
        else:
            environment[key] = value
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "--continue-on-collection-errors"]
    cmd += ["-p", "_hw_collect_plugin", *args]
    log = root.parent / f"pc-{runner}-{tag}.log"
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=root, env=environment, stdout=out, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        # the child's own CPU time (user + system): on a shared machine the wall clock measures the
        # other users' load as much as the collection
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stdout = log.read_text(errors="replace")
    try:
        data = json.loads(target.read_text())
    except (OSError, ValueError):  # the session ended before the plugin wrote its report
        data = {"items": [], "failed": []}
    not_imported = next(
        (line for line in stdout.splitlines() if "not imported" in line and line.startswith("hwselect")),
        "",
    )
    return {
        "seconds": round(seconds, 1),
        "cpu": round(usage.ru_utime + usage.ru_stime, 1),
        "exit": proc.returncode,
        "items": data["items"],
        "k_matches": data.get("k_matches", []),
        # a node id pytest cannot find (its module failed to import) aborts the whole collection
        "not_found": [line for line in stdout.splitlines() if "found no collectors for" in line],
        "failed": sorted({n.split("::")[0] for n in data.get("failed", [])}),
        "not_imported": not_imported,
        "tail": stdout.splitlines()[-3:],
    }


def plugin_args(runner: str) -> list[str]:
    return ["--hw-runner", runner, *(["--hw-backend", "openreg"] if runner == "privateuse1" else [])]


def run(root: Path, runner: str, files: list[str], mode: str, runs: list[str], timeout: int) -> dict:
    """The timing of one collection: the run-time filter (*mode* "filter") or the plugin."""
    if mode == "filter":
        result = session(root, runner, files, timeout, tag=mode, env={"HW_RUNS": ",".join(runs)})
    else:
        result = session(root, runner, [*plugin_args(runner), *files], timeout, tag=mode)
    return {**{k: result[k] for k in ("seconds", "cpu", "not_imported")}, "items": len(result["items"])}


def hwselect(root: Path, runner: str, files: list[str], *extra: str) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "hwselect"
    backend = ["--backend", "openreg"] if runner == "privateuse1" else []
    cmd = [str(exe), runner, "--no-cache", *backend, *extra, *files]
    return subprocess.run(cmd, cwd=root, capture_output=True, text=True)


def renamed(items: list[str], runner: str) -> tuple[set[str], int]:
    """*items* with a ``...PRIVATEUSE1`` class read as the backend's (``...OPENREG``) on the
    privateuse1 runner, and how many were so renamed: which generated class a session names first
    depends on which files it imports, not on what it runs."""
    if runner != "privateuse1":
        return set(items), 0
    out, count = set(), 0
    for nodeid in items:
        parts = nodeid.split("::")
        if len(parts) >= 3 and parts[1].endswith("PRIVATEUSE1"):
            parts[1] = parts[1][: -len("PRIVATEUSE1")] + "OPENREG"
            count += 1
        out.add("::".join(parts))
    return out, count


def check(root: Path, runner: str, files: list[str], k_expr: str, timeout: int, jobs: int = 1) -> dict:
    """The agreements of issue 48's "done when" for *runner* on *files* (see the module's doc),
    with *jobs* collections at a time."""
    return check_all(root, [runner], files, k_expr, timeout, jobs)[runner]


def check_all(root: Path, runners: list[str], files: list[str], k_expr: str, timeout: int, jobs: int) -> dict:
    """:func:`check` for each of *runners* in turn, each runner's collections *jobs* at a time.

    The reference for the user's ``-k`` is pytest's own keyword match of the node ids' items
    (``HW_K_MATCH``: the collection plugin evaluates ``-k EXPR`` on each collected item)."""
    results = {}
    for runner in runners:
        args_file = root / f"ids-{runner}.args"
        ids = hwselect(root, runner, files, "--argsfile", args_file.name)
        if ids.returncode not in (0, 3):
            raise SystemExit(f"hwselect {runner} exited {ids.returncode}: {ids.stderr[-2000:]}")
        k = hwselect(root, runner, files, "--format", "k")
        if k.returncode not in (0, 2, 3):
            raise SystemExit(f"hwselect {runner} --format k exited {k.returncode}: {k.stderr[-2000:]}")
        expression = k.stdout.strip() if k.returncode == 0 else None
        at, plugin, user = [f"@{args_file.name}"], [*plugin_args(runner), *files], ["-k", k_expr]
        specs = {
            "ids": (at, {"HW_K_MATCH": k_expr}),
            "plugin": (plugin, None),
            "ids -k": ([*at, *user], None),
            "plugin -k": ([*plugin, *user], None),
        }
        if expression is not None:
            specs["k"] = ([*files, "-k", expression], None)
            specs["k, no variable"] = ([*files, "-k", expression], {"PYTORCH_TESTING_DEVICE_ONLY_FOR": None})

        def one(name, runner=runner, specs=specs):
            args, env = specs[name]
            return name, session(root, runner, args, timeout, tag="check-" + name.replace(" ", ""), env=env)

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            runs = dict(pool.map(one, specs))
        results[runner] = judge(runs, runner, files, expression, k.stderr, args_file)
    return results


def judge(
    runs: dict, runner: str, files: list[str], expression: str | None, why: str, args_file: Path
) -> dict:
    """Compare one runner's collections (*runs*, by name) as the module's doc says."""
    items = {}
    count_renamed = 0
    for name, result in runs.items():
        items[name], n = renamed(result["items"], runner)
        count_renamed += n
    expected = items["ids"]
    within, _ = renamed(runs["ids"]["k_matches"], runner)
    wanted = {"plugin": expected, "ids -k": within, "plugin -k": within}
    if expression is not None:
        wanted |= {"k": expected, "k, no variable": expected}
    disagreements = {
        name: {"extra": sorted(items[name] - want)[:20], "missing": sorted(want - items[name])[:20]}
        for name, want in wanted.items()
        if items[name] != want
    }
    failed = set().union(*(r["failed"] for r in runs.values()))
    lines = args_file.read_text().splitlines() if args_file.exists() else []
    return {
        "files": len(files),
        "collectable": len([f for f in files if f not in failed]),
        "ids_lines": len(lines),
        "argsfile_plugin": "--hw-runner" in lines,
        "items": {"ids -k (expected)": len(within), **{name: len(v) for name, v in items.items()}},
        "k": "exit 2" if expression is None else f"{len(expression):,} bytes",
        "k_reason": why.strip().splitlines()[-3:] if expression is None else [],
        "renamed": count_renamed,
        "exits": {name: r["exit"] for name, r in runs.items()},
        "failed": {name: r["failed"] for name, r in runs.items() if r["failed"]},
        "not_found": {name: r["not_found"] for name, r in runs.items() if r["not_found"]},
        "seconds": {name: r["seconds"] for name, r in runs.items()},
        "cpu": {name: r["cpu"] for name, r in runs.items()},
        "not_imported": runs["plugin"]["not_imported"],
        "disagreements": disagreements,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", default=TREE)
    ap.add_argument("--out", required=True)
    ap.add_argument("--runners", default="xpu,privateuse1")
    ap.add_argument("--sample", type=int, default=0, help="a seeded random subset of N files (0: all)")
    ap.add_argument("--timeout", type=int, default=7200)
    ap.add_argument("--jobs", type=int, default=1, help="collections at a time (default: 1)")
    ap.add_argument("--exclude", nargs="*", default=[], help="--check: leave these files out (uncollectable)")
    ap.add_argument("--check", action="store_true", help="check that the ways to run a share agree")
    ap.add_argument("--k-expr", default="not float32", help="--check: the user's -k (default: %(default)s)")
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
    runners = args.runners.split(",")
    if args.check:
        files = [f for f in files if f not in set(args.exclude)]
        bad = 0
        for runner in runners:
            results[runner] = r = check(root, runner, files, args.k_expr, args.timeout, args.jobs)
            bad += bool(r["disagreements"])
            agree = "agree" if not r["disagreements"] else f"DISAGREE: {', '.join(r['disagreements'])}"
            print(
                f"{runner}: {r['collectable']} of {r['files']} files collect; items "
                + ", ".join(f"{name} {n:,}" for name, n in r["items"].items())
                + f"; --format k: {r['k']}; argsfile ends with the plugin: {r['argsfile_plugin']}; "
                f"renamed {r['renamed']}; {agree}",
                flush=True,
            )
            (out / "plugin-check.json").write_text(json.dumps(results, indent=2))
        raise SystemExit(1 if bad else 0)
    # with --jobs 2 or more, a runner's two collections run side by side, so that both meet the
    # same load on a shared machine; their CPU seconds are each its own
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        pending = {
            (runner, mode): pool.submit(
                run, root, runner, files, mode, list(taxonomy.runners[runner].runs), args.timeout
            )
            for runner in runners
            for mode in ("filter", "plugin")
        }
        for runner in runners:
            filt, plug = pending[(runner, "filter")].result(), pending[(runner, "plugin")].result()
            ratio = plug["seconds"] / filt["seconds"] if filt["seconds"] else float("nan")
            cpu = plug["cpu"] / filt["cpu"] if filt["cpu"] else float("nan")
            results[runner] = {
                "files": len(files),
                "filter": filt,
                "plugin": plug,
                "ratio": round(ratio, 2),
                "cpu_ratio": round(cpu, 2),
            }
            print(
                f"{runner}: {len(files)} files; run-time filter {filt['seconds']} s, {filt['cpu']} s CPU "
                f"({filt['items']} items), plugin {plug['seconds']} s, {plug['cpu']} s CPU ({plug['items']} "
                f"items), ratio {ratio:.2f} (CPU {cpu:.2f}); {plug['not_imported']}",
                flush=True,
            )
    (out / "plugin-collection.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
