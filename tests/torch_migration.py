"""Collect and run a small tree of test files with torch, before and after ``hwlint check --fix``.

The small-scale twin of benchmarks/migration.py (issue 25): the same collection plugin
(benchmarks/real_tree.py's: each runner's device faked, torch 2.14.1's filter applied as its conftest
applies it, one record per test with its device-neutral name) and the same comparison
(``migration.compare``), on case files written to touch no device, so that their tests can also RUN
on the faked devices: a test that passed before must pass wherever it runs after (a rewrite that
fails at run time, a class-level skip that now skips where the class is selected).

torch: 2.13 with torch 2.14.1's ``common_utils.py`` and ``common_device_type.py`` laid over it
when ``HWLINT_TORCH_OVERLAY`` (a ``torch/testing/_internal`` directory) or the default
``/work/cache/t214/torch/testing/_internal`` provides them (``HWLINT_TORCH_OVERLAY=`` turns the
overlay off); otherwise torch alone, with one fallback ``HardwareClassification`` enum put where
the fixed files import it from (HW_ENUM_FALLBACK) and the filter by member names, as the plugin
implements it. Each side (before, after) is one pytest session per runner for every case at once,
forked from a process that imported torch once (tests/pytest_server.py).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import migration  # benchmarks/ is on the path (pyproject: pythonpath)
import real_tree

from tests.pytest_server import PytestServer

DEFAULT_OVERLAY = "/work/cache/t214/torch/testing/_internal"
# importing these costs most of a session's start and leaves torch's testing modules unimported
PRELOAD = ("torch", "numpy", "expecttest", "torch._dynamo")


def overlay() -> str:
    """The directory of torch 2.14.1's testing modules to lay over the installed torch, or ''."""
    value = os.environ.get("HWLINT_TORCH_OVERLAY", DEFAULT_OVERLAY)
    return value if value and (Path(value) / "common_utils.py").is_file() else ""


@dataclass
class Verdict:
    """The property for one file: empty lists when the migration kept its tests."""

    broken: list = field(default_factory=list)  # collected before, fails to collect after
    lost: list = field(default_factory=list)  # collected before, runs on no runner after
    device_lost: list = field(default_factory=list)  # a generated device class's test not run there
    not_passing: list = field(default_factory=list)  # passed before somewhere, fails/skips where it runs

    def holds(self) -> bool:
        return not (self.broken or self.lost or self.device_lost or self.not_passing)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).write_text(text)
    (root / "_hw_collect_plugin.py").write_text(real_tree.PLUGIN)
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    return root


def session(
    server: PytestServer, root: Path, runner: str, files: list[str], env: dict[str, str], run: bool = True
) -> dict[str, dict]:
    """Per file: the plugin's result for one pytest session on *runner* (tests run unless not *run*)."""
    target = root / f".collect-{runner}-{os.getpid()}.json"
    env = {**real_tree.RUNNERS[runner]["env"], **env, "HW_COLLECT_OUT": str(target), "PYTHONPATH": str(root)}
    if runner == "cpu":
        env.pop("HW_FAKE_DEVICE", None)
    args = ["-q", "-p", "_hw_collect_plugin", "--continue-on-collection-errors"]
    proc = server.run(root, [*args, *([] if run else ["--collect-only"]), *files], env=env)
    if not target.exists():
        raise AssertionError(f"no collection output on {runner}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    data = json.loads(target.read_text())
    target.unlink()
    return real_tree.split_batch(data, files)[0]


def not_passing(
    runners: list[str], before: dict[str, dict], after: dict[str, dict], path: str
) -> list[tuple[str, str, str, str]]:
    """(runner, node id, outcome, why) of every test the filter keeps after on a runner that does
    not pass there, when the same test (by device-neutral key) passed before on some runner. A
    test skipped on a runner that skipped it before too (``@onlyCUDA`` made ``@onlyAccelerator``:
    the CPU skips both) is no regression."""
    passed = set()
    skipped_before = set()
    for r in runners:
        outcomes = {o[0]: o[1] for o in before[r].get(path, {}).get("outcomes", ())}
        for row in before[r].get(path, {}).get("records", ()):
            if outcomes.get(row[0]) == "passed":
                passed.add((row[2], row[3]))
            elif outcomes.get(row[0]) == "skipped":
                skipped_before.add((r, row[2], row[3]))
    out = []
    for r in runners:
        result = after[r].get(path, {})
        outcomes = {o[0]: (o[1], o[2]) for o in result.get("outcomes", ())}
        for row in result.get("records", ()):
            if row[7] and (row[2], row[3]) in passed:
                outcome, why = outcomes.get(row[0], ("not run", ""))
                if outcome != "passed" and not (
                    outcome == "skipped" and (r, row[2], row[3]) in skipped_before
                ):
                    out.append((r, row[0], outcome, why))
    return out


def migrate(
    server: PytestServer,
    work: Path,
    cases: dict[str, str],
    runners: list[str],
    runs: dict[str, tuple[str, ...]],
    fix_args: tuple[str, ...] = ("--fix", "--unsafe-fixes"),
) -> dict:
    """Fix a copy of *cases* with hwlint, collect and run both sides on every runner, and judge
    each file. Returns {"verdicts": {file: Verdict fields}, "plain": {file: error or None},
    "before": ..., "after": ...} (JSON-able, for the cache below)."""
    from hwlint.cli.check import main

    before_root = write_tree(work / "before", cases)
    after_root = work / "after"
    if after_root.exists():
        shutil.rmtree(after_root)
    shutil.copytree(before_root, after_root)
    rc = main(["check", "--isolated", "--no-cache", "--exit-zero", *fix_args, str(after_root)])
    assert rc == 0, rc
    files = sorted(cases)
    from hwlint.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    devices = {r: taxonomy.runners[r].device for r in runners}
    base_env = {"HW_RECORDS": "1"}
    ov = overlay()
    base_env.update({"HW_OVERLAY": ov} if ov else {"HW_ENUM_FALLBACK": "1"})
    before = {r: session(server, before_root, r, files, base_env) for r in runners}
    after = {
        r: session(server, after_root, r, files, {**base_env, "HW_RUNS": ",".join(runs[r])}) for r in runners
    }
    verdicts = {}
    for f in files:
        pins = migration.pinned_tests(before_root, [f], taxonomy)
        s = migration.compare({r: runs[r] for r in runners}, [f], before, after, [f], [f], pins, devices)
        v = Verdict(s["broken"], s["lost"], s["device_lost"], not_passing(runners, before, after, f))
        verdicts[f] = v.__dict__
    # torch 2.13 alone, no fallback enum: does every fixed file still import there?
    plain_before = session(server, before_root, "cpu", files, {"HW_RECORDS": "1"}, run=False)
    plain_after = session(server, after_root, "cpu", files, {"HW_RECORDS": "1"}, run=False)
    plain = {
        f: None if "items" not in plain_before[f] or "items" in plain_after[f] else plain_after[f]["error"]
        for f in files
    }
    texts = {f: (after_root / f).read_text() for f in files}
    return {"verdicts": verdicts, "plain": plain, "fixed": texts, "before": before, "after": after}


def shared_migration(
    base: Path, cases: dict[str, str], runners: list[str], runs: dict[str, tuple[str, ...]]
) -> dict:
    """:func:`migrate`'s result, computed once for every pytest-xdist worker of a run: the first
    worker computes it under a lock in *base* (the session's shared temporary directory), the
    others read it. Keyed by the cases, runners, the plugin and hwlint's source."""
    import hwlint

    source = sorted(Path(hwlint.__file__).parent.rglob("*.py"))
    key = migration._digest(
        json.dumps([cases, runners, runs], sort_keys=True),
        real_tree.PLUGIN,
        overlay(),
        *(p.read_bytes() for p in source),
    )
    work = base / f"torch-migration-{key}"
    work.mkdir(parents=True, exist_ok=True)
    result = work / "result.json"
    with open(work / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not result.exists():
                from tests.pytest_server import shared_server

                data = migrate(shared_server(PRELOAD), work, cases, runners, runs)
                result.write_text(json.dumps(data))
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return json.loads(result.read_text())
