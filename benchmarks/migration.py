"""Does ``hwlint check --fix`` keep PyTorch's test suite? Measured with torch's own collection.

    python benchmarks/migration.py --out /tmp/mig                        # the whole tree, both modes
    python benchmarks/migration.py --out /tmp/mig --sample 40 --seed 1   # 40 of the files a fix changes
    python benchmarks/migration.py --out /tmp/mig --files test_jiterator.py test_cuda_sanitizer.py
    python benchmarks/migration.py --out /tmp/mig --compare-only         # the stored collections again
    python benchmarks/migration.py --out /tmp/mig --modes unsafe --runners cpu,mps
    python benchmarks/migration.py --out /tmp/mig --since b143aab        # what changed since a run

The property (docs/fixes.md, "Does the migration keep the suite?"): after the migration, with each
runner's run-time classification filter on,

1. every file that collected before still collects;
2. every test collected before (on any runner, counted once across devices) runs on some runner;
3. every test of a class torch generated for a device (``TestFooCUDA``) still runs on that device's
   runner.

Steps. The tree is copied and patched for current pytest as benchmarks/real_tree.py does (same
collection plugin: fake devices, a PrivateUse1 backend, batches of fresh ``pytest --collect-only``
processes), with torch 2.14.1's ``common_utils.py`` and ``common_device_type.py`` laid over the
installed torch for collection (``--overlay``: they define ``HardwareClassification`` and the filter).

* before: the unfixed copy, collected per runner without a filter (the tree is unclassified); cached
  by the tree's content, torch's version, the overlay and the plugin (``--cache``), per file, so a
  sample fills part of the cache and a later run collects only what is missing;
* the fix: ``hwlint check --fix --ignore-noqa`` on one copy (mode ``fix``) and ``--fix
  --unsafe-fixes --ignore-noqa`` on another (mode ``unsafe``), with
  ``examples/pytorch/pyproject.toml`` (upstream's linter scope) at its root;
  re-run every time (seconds), so the current hwlint is measured;
* after: per mode and runner, the files the fix changed and the files importing them (statically,
  through the tree's own modules), collected WITH the runner's filter: its ``runs`` list from the
  taxonomy, applied by torch 2.14.1's own ``filter_by_hw_classification`` as its conftest plugin
  calls it (the collection plugin in real_tree.py);
* compare by a device-neutral key (file, generic class, test name without the device suffix; see
  ``_neutral`` in real_tree.py's plugin), and write OUT/migration-summary.json.

``--since REV`` re-measures a whole-tree run made at REV without its hours: REV's hwlint fixes a
copy of its own (``git archive``, run from OUT/since-REV), and only the files whose fixed text
differs from the current hwlint's, and the files importing them, are collected.

Everything stays under OUT (the original tree is never written). Exits 1 when the property fails.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import real_tree
from ab_model import extract_revision

from hwlint.project import Project
from hwlint.taxonomy import load_taxonomy

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "examples" / "pytorch" / "pyproject.toml"
# the migration's commands: --ignore-noqa also declares the classes of the files that a blanket
# flake8 exemption comment covers (a classification-filtered run would drop them)
MODES = {"fix": ["--fix", "--ignore-noqa"], "unsafe": ["--fix", "--unsafe-fixes", "--ignore-noqa"]}
OVERLAY = os.environ.get("HWLINT_TORCH_OVERLAY", "/work/cache/t214/torch/testing/_internal")
CACHE = Path(os.environ.get("HWLINT_MIGRATION_CACHE", "/tmp/hwlint-migration-cache"))


# -- inputs ------------------------------------------------------------------------------------
def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()[:16]


def tree_digest(tree: Path) -> str:
    """The content of every file under *tree* (paths and bytes), hwlint's cache left out: a
    `hwlint check` run in the tree writes one, and the collections do not depend on it."""
    h = hashlib.sha256()
    for p in sorted(q for q in tree.rglob("*") if q.is_file() and ".hwlint_cache" not in q.parts):
        h.update(p.relative_to(tree).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def torch_version() -> str:
    proc = subprocess.run(
        [sys.executable, "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True
    )
    return proc.stdout.strip() or "none"


def collection_key(tree: Path, overlay: str) -> str:
    """What a "before" collection depends on: the tree, torch, the overlay, the plugin, the runners."""
    files = sorted(Path(overlay).glob("*.py")) if overlay else []
    return _digest(
        tree_digest(tree),
        torch_version(),
        *(f.name.encode() + f.read_bytes() for f in files),
        real_tree.PLUGIN,
        real_tree.CONFTEST_HOOK,
        json.dumps(real_tree.RUNNERS, sort_keys=True),
    )


def fresh_copy(base: Path, dest: Path) -> Path:
    """A copy of the prepared tree *base* (OUT/base/test) at DEST/test, with the pytorch pyproject
    (DEST's stored collections stay: they are keyed by the fixed files' content)."""
    if (dest / "test").exists():
        shutil.rmtree(dest / "test")
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(base, dest / "test", symlinks=True)
    shutil.copy(PYPROJECT, dest / "pyproject.toml")
    return dest / "test"


def run_fix(hwlint: list[str], dest: Path, mode: str, env: dict[str, str] | None = None) -> None:
    cmd = [*hwlint, "check", *MODES[mode], "--no-cache", "--exit-zero", "--show-fixes", "test"]
    proc = subprocess.run(cmd, cwd=dest, capture_output=True, text=True, env=env)
    (dest / "hwlint.out").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr[-2000:]}")


def fixed_at(rev: str, base: Path, out: Path, mode: str) -> Path:
    """The tree *base* fixed in *mode* by hwlint as of git revision *rev* (under OUT/since-REV)."""
    where = out / f"since-{rev}"
    package = where / "package"
    if not package.exists():
        extract_revision(rev, package)
    fixed = fresh_copy(base, where / mode)
    env = {**os.environ, "PYTHONPATH": str(package)}
    run_fix([sys.executable, "-m", "hwlint"], where / mode, mode, env)
    return fixed


def changed_files(base: Path, fixed: Path) -> list[str]:
    out = []
    for p in sorted(fixed.rglob("*.py")):
        rel = p.relative_to(fixed)
        original = base / rel
        if not original.exists() or original.read_bytes() != p.read_bytes():
            out.append(rel.as_posix())
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """Per Python file under *root* (root-relative): the files of the tree it imports, resolved as
    pytest's prepend import mode and PYTHONPATH=root do (hwlint's own module resolution)."""
    paths = sorted(root.rglob("*.py"))
    project = Project([], cwd=str(root), paths=[str(p) for p in paths])
    graph: dict[str, set[str]] = {}
    for p in paths:
        try:
            with warnings.catch_warnings():  # PyTorch's sources hold invalid escape sequences
                warnings.simplefilter("ignore")
                tree = ast.parse(p.read_bytes())
        except (SyntaxError, ValueError):
            continue
        modules: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    modules += [".".join(parts[: i + 1]) for i in range(len(parts))]
            elif isinstance(node, ast.ImportFrom):
                head = "." * node.level + (node.module or "")
                modules.append(head)
                modules += [head + ("." if node.module else "") + a.name for a in node.names if a.name != "*"]
        deps = set()
        for m in modules:
            if m.startswith("torch") or not m.strip("."):
                continue
            found = project.module_file(str(p), m)
            if found and Path(found) != p:
                deps.add(Path(found).relative_to(root).as_posix())
        graph[p.relative_to(root).as_posix()] = deps
    return graph


def importers(graph: dict[str, set[str]], changed: set[str]) -> set[str]:
    """Files that import one of *changed*, directly or through other files (not *changed* itself)."""
    reverse: dict[str, set[str]] = defaultdict(set)
    for f, deps in graph.items():
        for d in deps:
            reverse[d].add(f)
    seen, todo = set(changed), list(changed)
    while todo:
        for f in reverse.get(todo.pop(), ()):
            if f not in seen:
                seen.add(f)
                todo.append(f)
    return seen - changed


# -- comparison --------------------------------------------------------------------------------
# A record (real_tree.PLUGIN): [nodeid, class, generic class, neutral name, dtype suffix, device,
# classification, kept by the filter, skipped before it runs]
def _key(path: str, row: list) -> tuple[str, str, str]:
    return path, row[2], row[3]


def runs_unskipped(row: list) -> bool:
    """Whether the runner would run the test of *row* rather than skip it before its body (a skip
    mark or decorator, a class skip, a device pin for another device: real_tree's plugin). Rows
    of an older plugin have no such column: counted as run."""
    return not (len(row) > 8 and row[8])


def _pinned_elsewhere(pinned: dict, key: tuple[str, str, str], device: str | None) -> bool:
    """Whether the test of *key* is pinned to devices other than *device*. Its name is the collected
    one, parametrization included (``test_binary_op_add_float32`` of ``test_binary_op``): the
    method is the longest pinned name it starts with, at a word boundary."""
    if device is None:
        return False
    path, cls, name = key
    methods = pinned.get((path, cls))
    if not methods:
        return False
    found = [m for m in methods if name == m or name.startswith(m + "_")]
    return bool(found) and device not in methods[max(found, key=len)]


def _names_by_file(keys: Iterable[tuple[str, str, str]]) -> dict[str, list[str]]:
    """file -> the sorted test names of *keys* (the neutral names, whatever their class)."""
    out: dict[str, set[str]] = defaultdict(set)
    for path, _, name in keys:
        out[path].add(name)
    return {path: sorted(names) for path, names in out.items()}


def _expanded(
    key: tuple[str, str, str], after: dict[str, list[str]], before: dict[tuple[str, str, str], set[str]]
) -> bool:
    """Whether the test of *key*, collected before under its bare name (the parametrized test of a
    class nothing expanded on that runner, ``test_indices``), runs after as its expansions: names
    in its file (whatever their class: a split moves tests) that extend it at a word boundary
    (``test_indices_backend_cutlass``), none of which its class held before on a runner that
    collected the bare name (there they were tests of their own). *before*: key -> the runners
    that collected it."""
    path, cls, name = key
    names = after.get(path, [])
    prefix = name + "_"
    i = bisect.bisect_left(names, prefix)
    found = []
    while i < len(names) and names[i].startswith(prefix):
        found.append(names[i])
        i += 1
    where = before.get(key, set())
    return bool(found) and not any(before.get((path, cls, n), set()) & where for n in found)


def _group(key: tuple[str, str, str]) -> str:
    path, cls, _ = key
    return f"{path}::{cls}" if cls else f"{path}::<functions>"


def pinned_tests(tree: Path, files: list[str], taxonomy) -> dict[tuple[str, str], dict[str, set[str]]]:
    """(file, class) -> test -> the devices a test of *tree* is pinned to by a decorator (``@onlyCUDA``),
    read from the unfixed files with hwlint's model: a test torch generates for another device skips
    there at run time (collected, never run), so it is no device test of that runner."""
    from hwlint.infer import decorator_device, device_pinning_decorators
    from hwlint.model import build_model

    pinning = device_pinning_decorators(taxonomy)
    out: dict[tuple[str, str], dict[str, set[str]]] = {}
    for f in files:
        path = tree / f
        if not path.is_file():
            continue
        model = build_model(path.read_bytes(), f, taxonomy, devices=False)
        for cls in model.classes:
            class_pins = {decorator_device(taxonomy, d.name) for d in cls.decorators if d.name in pinning}
            for m in cls.test_methods:
                own = {decorator_device(taxonomy, d.name) for d in m.decorators if d.name in pinning}
                pins = class_pins | own
                if pins - {None}:
                    out.setdefault((f, cls.name), {})[m.name] = pins - {None}  # type: ignore[assignment]
    return out


def compare(
    runners: dict[str, tuple[str, ...]],
    scope: list[str],
    before: dict[str, dict],
    after: dict[str, dict],
    after_files: list[str],
    changed: list[str],
    pinned: dict[tuple[str, str], dict[str, set[str]]] | None = None,
    devices: dict[str, str] | None = None,
) -> dict:
    """The property, measured: before/after per runner, broken files, lost tests, lost device tests.
    *pinned* (see :func:`pinned_tests`) and *devices* (runner -> its device) excuse a device test
    pinned to another device than its runner's: it skips there."""
    pinned, devices = pinned or {}, devices or {}
    in_after = set(after_files)
    ok_before = {r: {f for f in scope if "items" in before[r].get(f, {})} for r in runners}
    ok_after = {r: {f for f in after_files if "items" in after[r].get(f, {})} for r in runners}

    broken: dict[str, dict] = {}
    for r in runners:
        for f in sorted(ok_before[r] & in_after):
            if f not in ok_after[r]:
                entry = broken.setdefault(f, {"file": f, "runners": [], "errors": {}})
                entry["runners"].append(r)
                entry["errors"][r] = after[r].get(f, {}).get("error", "not collected")
    for entry in broken.values():
        entry["error"] = Counter(entry["errors"].values()).most_common(1)[0][0]

    before_keys: dict[tuple, set[str]] = defaultdict(set)  # key -> runners it collected on
    ran_before: set[tuple] = set()  # keys some runner ran (collected, not skipped before running)
    device_keys: dict[str, set[tuple]] = {r: set() for r in runners}
    for r in runners:
        for f in ok_before[r]:
            for row in before[r][f].get("records", ()):
                k = _key(f, row)
                before_keys[k].add(r)
                if not runs_unskipped(row):
                    continue
                ran_before.add(k)
                if row[5] and not _pinned_elsewhere(pinned, k, devices.get(r)):
                    device_keys[r].add(k)
    kept: dict[str, set[tuple]] = {r: set() for r in runners}
    skipped_after: dict[str, int] = dict.fromkeys(runners, 0)
    seen_after: dict[tuple[str, str], dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for r in runners:
        for f in ok_after[r]:
            for row in after[r][f].get("records", ()):
                k = _key(f, row)
                seen_after[(f, row[2])][r].add(row[6] or ("no class" if not row[1] else "unclassified"))
                if row[7] and runs_unskipped(row):
                    kept[r].add(k)
                elif row[7]:
                    skipped_after[r] += 1
    ran = set().union(*kept.values())

    def why(f: str, cls: str) -> dict:
        """Where the class collects after, as what, and whether its file breaks (on which runners)."""
        classes = seen_after.get((f, cls), {})
        out = {"classification_after": {r: sorted(v) for r, v in sorted(classes.items())}}
        parts = []
        if classes:
            names = set().union(*classes.values())
            if names <= {"unclassified", "no class"}:
                parts.append("no class" if names == {"no class"} else "unclassified")
            else:
                where = ",".join(sorted(classes))
                parts.append(f"{'/'.join(sorted(names))}, collected after only on {where}")
        elif f not in broken:
            parts.append("not collected after")
        if f in broken:
            b = broken[f]
            parts.append(f"file fails on {','.join(b['runners'])}: {b['error']}")
        out["reason"] = "; ".join(parts)
        return out

    # a test a fix moved to a class of its own (the pinned tests of a split) is kept under its name
    named_ran = Counter((k[0], k[2]) for k in ran)
    names_ran = _names_by_file(ran)
    expanded: Counter = Counter()
    lost_by: dict[str, Counter] = defaultdict(Counter)
    unchanged: Counter = Counter()
    named_before = Counter((k[0], k[2]) for k in ran_before)
    for k in ran_before:
        if k[0] not in in_after:
            unchanged[k[0]] += 1
        elif k not in ran and named_ran[(k[0], k[2])] < named_before[(k[0], k[2])]:
            if _expanded(k, names_ran, before_keys):
                expanded[_group(k)] += 1
            else:
                lost_by[_group(k)][k[2]] += 1
    lost = []
    for group, names in sorted(lost_by.items()):
        f, _, cls = group.partition("::")
        entry = {"class": group, "tests": sum(names.values()), **why(f, "" if cls == "<functions>" else cls)}
        entry["examples"] = sorted(names)[:3]
        lost.append(entry)

    device_lost = []
    device_expanded: Counter = Counter()
    for r in runners:
        groups: Counter = Counter()
        named_kept = Counter((k[0], k[2]) for k in kept[r])
        named_device = Counter((k[0], k[2]) for k in device_keys[r])
        kept_names = _names_by_file(kept[r])
        for k in device_keys[r]:
            if (
                k[0] in in_after
                and k not in kept[r]
                and named_kept[(k[0], k[2])] < named_device[(k[0], k[2])]
            ):
                if _expanded(k, kept_names, before_keys):
                    device_expanded[r] += 1
                else:
                    groups[_group(k)] += 1
        for group, n in sorted(groups.items()):
            f, _, cls = group.partition("::")
            entry = {"runner": r, "class": group, "tests": n, **why(f, cls)}
            entry["classification_after"] = entry["classification_after"].get(r, ["not collected"])
            device_lost.append(entry)

    per_runner = {}
    for r, runs in runners.items():
        rows_b = [row for f in ok_before[r] for row in before[r][f].get("records", ())]
        rows_a = [row for f in ok_after[r] for row in after[r][f].get("records", ())]
        per_runner[r] = {
            "runs": list(runs),
            "files_collected_before": len(ok_before[r]),
            "files_collected_before_in_scope_after": len(ok_before[r] & in_after),
            "files_collected_after": len(ok_after[r]),
            "files_broken": sum(r in b["runners"] for b in broken.values()),
            "files_collecting_only_after": len(ok_after[r] - ok_before[r]),
            "tests_before": len(rows_b),
            "tests_before_in_after_files": sum(
                len(before[r][f].get("records", ())) for f in ok_before[r] & in_after
            ),
            "tests_collected_after": len(rows_a),
            "tests_run_after": sum(bool(row[7]) for row in rows_a),
            # kept by the filter, and skipped there every time before the test's body runs
            "tests_kept_but_skipped_after": skipped_after[r],
            "tests_run_unskipped_before": sum(runs_unskipped(row) for row in rows_b),
            "tests_run_unskipped_after": sum(bool(row[7]) and runs_unskipped(row) for row in rows_a),
            "dropped_unclassified": sum(bool(row[1]) and row[6] is None for row in rows_a),
            "dropped_no_class": sum(not row[1] for row in rows_a),
            "device_tests_before": len(device_keys[r]),
            "device_tests_lost": sum(e["tests"] for e in device_lost if e["runner"] == r),
        }
    total_in_changed = sum(k[0] in in_after for k in before_keys)
    return {
        "files_in_scope": len(scope),
        "files_changed": len(changed),
        "files_collected_after": len(in_after),
        "files_broken": len(broken),
        "tests_before": len(before_keys),
        "tests_before_in_collected_after_files": total_in_changed,
        # run (collected and not skipped before running) on some runner before, in those files
        "tests_ran_before_in_collected_after_files": sum(k[0] in in_after for k in ran_before),
        "tests_run_nowhere": sum(e["tests"] for e in lost),
        # collected before under a bare name, run after only as their parametrized expansions
        "tests_run_expanded": {"tests": sum(expanded.values()), "classes": dict(sorted(expanded.items()))},
        "device_tests_run_expanded": dict(sorted(device_expanded.items())),
        "device_tests_lost": sum(e["tests"] for e in device_lost),
        "property_holds": not broken and not lost and not device_lost,
        "per_runner": per_runner,
        "broken": sorted(broken.values(), key=lambda b: b["file"]),
        "lost": lost,
        "device_lost": device_lost,
        "unchanged_files_tests_run_nowhere": {"files": len(unchanged), "tests": sum(unchanged.values())},
    }


def hwlint_notes(text: str) -> dict[tuple[str, str], list[str]]:
    """``--show-fixes`` output, per (root-relative file, class): the decisions and the reasons a
    class was not fixed ("- test/x.py:52: TestX: no fix: ..."; "      TestX: GENERIC (unsafe, ...)")."""
    notes: dict[tuple[str, str], list[str]] = defaultdict(list)
    current = ""
    for line in text.splitlines():
        if m := re.match(r"- test/(\S+?):(\d+): (HWC\d+) (.*)", line):
            named = re.search(r"in `(\w+)`|`(\w+)`", m[4])
            notes[(m[1], (named[1] or named[2]) if named else f"line {m[2]}")].append(f"line {m[2]}: {m[4]}")
        elif m := re.match(r"- test/(\S+):$", line):
            current = m[1]
        elif current and (m := re.match(r" {6}line (\d+): (.*)", line)):
            named = re.search(r"in `(\w+)`", m[2])
            notes[(current, named[1] if named else f"line {m[1]}")].append(m[2])
    return notes


def guess_mechanism(error: str, original: str, fixed: str) -> str:
    """A first guess at why a fixed file fails to collect, from its error and the fix's diff (the
    docs' attribution was checked by hand)."""
    added = lambda pattern: re.search(pattern, fixed) and not re.search(pattern, original)  # noqa: E731
    if "cannot import name 'HardwareClassification'" in error:
        return "the enum's import has no fallback for a torch without it"
    if m := re.search(r"cannot import name '(\w+)' from '([\w.]+)'", error):
        if added(rf"instantiate_device_type_tests\({m[1]}, globals\(\)"):
            return "a converted class imported by another module (instantiation deleted the name)"
        return "a class imported from another module, converted there"
    if "has no attribute 'setUpClass'" in error or ("primary_device" in error and "NoTest" in original):
        return "TestCase = NoTest rebinding: a NoTest class instantiated for a device"
    m = re.search(r"name '(\w+)' is not defined", error)
    if not m:
        return "other"
    name = m[1]
    if name == "self":
        return "a default argument rewritten to self.device_type"
    if name == "HardwareClassification":
        return "the enum imported below the class using it (added to a late import line)"
    if not added(rf"instantiate_device_type_tests\({name}, globals\(\)"):
        return "other NameError"
    if re.search(rf"instantiate_parametrized_tests\({name}\)", fixed):
        return "HWC302 conversion + a later instantiate_parametrized_tests(X)"
    if re.search(rf"class \w+\([^)]*\b{name}\b", fixed):
        return "HWC302 conversion of a class another class derives from"
    return "HWC302 conversion of a class named after its instantiation (its own methods or module code)"


def _parse(text: str) -> ast.Module | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError):
            return None


def _neutral_calls(tree: ast.Module) -> dict[str, int]:
    """Classes instantiated with ``except_for`` (the device-neutral form): name -> line."""
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name)):
            continue
        func = getattr(node.func, "id", getattr(node.func, "attr", ""))
        if func == "instantiate_device_type_tests" and any(k.arg == "except_for" for k in node.keywords):
            out[node.args[0].id] = node.lineno
    return out


def _nested_device_type(tree: ast.Module) -> Counter:
    """``self.device_type`` uses inside classes nested in functions, by class name."""
    out: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ClassDef):
                    out[inner.name] += sum(
                        isinstance(s, ast.Attribute) and ast.unparse(s) == "self.device_type"
                        for s in ast.walk(inner)
                    )
    return out


def _imports_enum(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and any(a.name == "HardwareClassification" for a in node.names)


def static_scan(base: Path, fixed: Path, files: list[str]) -> list[dict]:
    """Each known way a fix breaks a file, found in the fixed text, for every changed file: also
    for those torch cannot import before the fix (which the collection cannot judge)."""
    found = []
    for f in files:
        original, text = (base / f).read_text(errors="replace"), (fixed / f).read_text(errors="replace")
        tree, before = _parse(text), _parse(original)
        if tree is None or before is None:
            continue

        def add(mechanism: str, line: int, detail: str = "", f: str = f) -> None:
            found.append({"file": f, "line": line, "mechanism": mechanism, "detail": detail})

        converted = {n: at for n, at in _neutral_calls(tree).items() if n not in _neutral_calls(before)}
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        later_param = {
            id(c.args[0])
            for c in calls
            if getattr(c.func, "id", "") == "instantiate_parametrized_tests" and c.args
        }
        for name, at in converted.items():
            cls = classes.get(name)
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
                    continue
                if id(node) in later_param and node.lineno > at:
                    add("conversion + later instantiate_parametrized_tests(X)", node.lineno, name)
                    continue
                inside = cls is not None and cls.lineno <= node.lineno <= (cls.end_lineno or 0)
                if inside or node.lineno > at:
                    where = "in its own body" if inside else "after its instantiation"
                    add(
                        "converted class named where instantiation deleted it", node.lineno, f"{name} {where}"
                    )
            if cls is None:
                continue
            for base_expr in cls.bases:
                bound = ast.unparse(base_expr)
                if re.search(rf"^\s*{re.escape(bound)}\s*=\s*NoTest\b", original, re.M):
                    add("TestCase = NoTest rebinding, class converted", cls.lineno, f"{name}({bound})")
            for deco in cls.decorator_list:
                src = ast.unparse(deco)
                if re.search(r"cuda|CUDA", src):
                    add("class-level CUDA guard kept on a converted class", deco.lineno, f"{name}: @{src}")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]:
                    if "self.device_type" in ast.unparse(d):
                        add("default argument rewritten to self.device_type", d.lineno, node.name)
        nested = _nested_device_type(tree) - _nested_device_type(before)
        for name, n in sorted(nested.items()):
            add("self.device_type written in a helper class nested in a test", 0, f"{name} ({n})")
        uses = [
            n.lineno
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and ast.unparse(n.value) == "HardwareClassification"
        ]
        imports = [n.lineno for n in ast.walk(tree) if _imports_enum(n)]
        if uses and imports and min(imports) > min(uses):
            add("enum imported below its first use (late import line)", min(imports))
        guarded = any(
            isinstance(n, ast.Try) and any(_imports_enum(b) for b in n.body) and n.handlers
            for n in ast.walk(tree)
        )
        if uses and not guarded and not any(_imports_enum(n) for n in ast.walk(before)):
            add("enum imported without a fallback for torch < 2.14", min(imports or [0]))
    return found


def annotate(result: dict, base: Path, fixed: Path, notes: dict) -> None:
    """Add the mechanism guess to each broken file and hwlint's own words to each lost class."""
    for b in result["broken"]:
        original, text = (base / b["file"]).read_text(errors="replace"), (fixed / b["file"]).read_text()
        b["mechanism"] = guess_mechanism(b["error"], original, text)
    for entry in result["lost"] + result["device_lost"]:
        f, _, cls = entry["class"].partition("::")
        entry["hwlint"] = notes.get((f, cls), [])


def print_table(summary: dict) -> None:
    for mode, s in summary["modes"].items():
        ran = s.get("tests_ran_before_in_collected_after_files", s["tests_before_in_collected_after_files"])
        print(
            f"\n{mode}: {s['files_changed']} files changed, {s['files_collected_after']} collected after; "
            f"broken {s['files_broken']}; tests run nowhere {s['tests_run_nowhere']} of "
            f"{ran} run before; device tests lost {s['device_tests_lost']}"
        )
        grown = s.get("tests_run_expanded", {}).get("tests", 0)
        if grown:
            device = sum(s.get("device_tests_run_expanded", {}).values())
            print(
                f"  run as their parametrized expansions (bare names before): {grown} tests, "
                f"{device} of them device tests"
            )
        head = (
            "runner",
            "files before",
            "after",
            "broken",
            "tests before",
            "collected",
            "run",
            "device lost",
        )
        print("  " + "".join(f"{h:>14}" for h in head))
        for r, p in s["per_runner"].items():
            row = (
                r,
                p["files_collected_before_in_scope_after"],
                p["files_collected_after"],
                p["files_broken"],
                p["tests_before_in_after_files"],
                p["tests_collected_after"],
                p["tests_run_after"],
                p["device_tests_lost"],
            )
            print("  " + "".join(f"{v:>14}" for v in row))
        for b in s["broken"][:20]:
            print(f"  broken: {b['file']} ({','.join(b['runners'])}): {b['error'][:80]} [{b['mechanism']}]")
        for e in sorted(s["lost"], key=lambda e: -e["tests"])[:20]:
            print(f"  run nowhere: {e['class']} ({e['tests']}): {e['reason'][:90]}")


def stored(store: Path, files: list[str]) -> dict:
    """A stored collection (--compare-only), which must hold every file to compare."""
    done = json.loads(store.read_text()) if store.exists() else {}
    missing = [f for f in files if f not in done]
    if missing:
        raise SystemExit(
            f"--compare-only: {store} lacks {len(missing)} of {len(files)} files (e.g. {missing[0]}): "
            "the tree, torch, the overlay, the plugin or the fix changed since it was collected"
        )
    return done


# -- main --------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", default="/work/pt/src/pytorch-v2.6.0/test")
    p.add_argument("--out", required=True)
    p.add_argument("--runners", default=",".join(real_tree.RUNNERS), help="comma list (default: all six)")
    p.add_argument("--modes", default="fix,unsafe", help="fix (--fix), unsafe (--fix --unsafe-fixes)")
    p.add_argument("--sample", type=int, default=0, help="N of the files a fix changes (plus --files)")
    p.add_argument("--seed", type=int, default=25)
    p.add_argument("--files", nargs="*", default=[], help="these files (root-relative)")
    p.add_argument(
        "--since", metavar="REV", help="the files whose fix differs from REV's, and their importers"
    )
    p.add_argument("--overlay", default=OVERLAY, help="torch 2.14.1's torch/testing/_internal ('' for none)")
    p.add_argument("--cache", default=str(CACHE), help="where the before collections are kept")
    p.add_argument(
        "--taxonomy", default=None, help="the taxonomy whose runners' runs filter (default: hwlint's)"
    )
    p.add_argument("--hwlint", default=str(Path(sys.executable).parent / "hwlint"))
    p.add_argument("--batch", type=int, default=40)
    p.add_argument("--timeout", type=int, default=900)
    p.add_argument("--compare-only", action="store_true", help="no fix, no collection: the stored ones")
    args = p.parse_args(argv)

    out = Path(args.out).resolve()
    tree = Path(args.tree).resolve()
    overlay = args.overlay
    if overlay and not Path(overlay, "common_utils.py").is_file():
        # without it the run is torch 2.13's: no HardwareClassification, no run-time filter to judge by
        p.error(f"--overlay {overlay}: no common_utils.py there (HWLINT_TORCH_OVERLAY; '' runs without one)")
    taxonomy = load_taxonomy(args.taxonomy)
    names = [r for r in args.runners.split(",") if r]
    runners = {r: taxonomy.runners[r].runs for r in names}
    modes = [m for m in args.modes.split(",") if m]
    base = real_tree.prepare(tree, out / "base")
    key = collection_key(tree, overlay)
    cache = Path(args.cache) / key
    cache.mkdir(parents=True, exist_ok=True)
    env = {"HW_RECORDS": "1", **({"HW_OVERLAY": overlay} if overlay else {})}

    changed: dict[str, list[str]] = {}
    for mode in modes:
        fixed = out / mode / "test"
        if not args.compare_only:
            fixed = fresh_copy(base, out / mode)
            run_fix([args.hwlint], out / mode, mode)
            (out / mode / "changed.json").write_text(json.dumps(changed_files(base, fixed)))
        changed[mode] = json.loads((out / mode / "changed.json").read_text())

    files = real_tree.test_files(base)
    graph = import_graph(base)
    if args.sample:
        pool = sorted({f for c in changed.values() for f in c if f in set(files)})
        scope = sorted({*random.Random(args.seed).sample(pool, min(args.sample, len(pool))), *args.files})
    elif args.since:
        differ = {
            f
            for mode in modes
            for f in changed_files(out / mode / "test", fixed_at(args.since, base, out, mode))
        }
        print(f"since {args.since}: {len(differ)} files fixed otherwise: {', '.join(sorted(differ))}")
        scope = sorted((differ | importers(graph, differ)) & set(files) | {*args.files})
    elif args.files:
        scope = sorted(args.files)
    else:
        scope = files

    if not scope:  # --since found every file fixed as the revision fixes it: torch collects the same
        print("nothing to collect: the fixed trees are the revision's")
        return 0

    check = cache / "overlay-check.json"
    if not check.exists() and not args.compare_only:
        data = real_tree.collect_batch(base, [scope[0]], "cpu", out, args.timeout, env)
        check.write_text(json.dumps({"common_utils": (data or {}).get("common_utils")}))
    loaded = json.loads(check.read_text())["common_utils"] if check.exists() else None
    if overlay and loaded and not loaded.startswith(overlay):
        raise SystemExit(f"the overlay was not loaded: common_utils came from {loaded}")

    before = {}
    for r in runners:
        store = cache / f"before-{r}.json"
        if args.compare_only:
            before[r] = stored(store, scope)
        else:
            print(f"before, {r}:", flush=True)
            before[r] = real_tree.collect(base, scope, r, out, args.batch, args.timeout, env, store)

    summary = {
        "tree": str(tree),
        "torch": torch_version(),
        "overlay": overlay,
        "common_utils_loaded": loaded,
        "before_cache": str(cache),
        "runners": {r: list(v) for r, v in runners.items()},
        "scope": {
            "files": len(scope),
            "sample": args.sample,
            "seed": args.seed,
            "named": args.files,
            "since": args.since,
        },
        "modes": {},
    }
    for mode in modes:
        fixed = out / mode / "test"
        in_scope = [f for f in changed[mode] if f in set(scope)]
        after_files = sorted({*in_scope, *(importers(graph, set(changed[mode])) & set(scope))})
        content = _digest(*(f.encode() + (fixed / f).read_bytes() for f in in_scope))
        after = {}
        for r, runs in runners.items():
            store = out / mode / f"after-{r}-{_digest(key, content, ','.join(runs))}.json"
            if args.compare_only:
                after[r] = stored(store, after_files)
            else:
                print(f"after ({mode}), {r}:", flush=True)
                renv = {**env, "HW_RUNS": ",".join(runs)}
                after[r] = real_tree.collect(
                    fixed, after_files, r, out / mode, args.batch, args.timeout, renv, store
                )
        # A file can fail in a batch because of a module the same process collected before it
        # (two modules registering one dispatch key's fallback); run_test.py runs one file a
        # process. So each file that collected before and fails after is collected again alone,
        # on both sides, and judged by that.
        mine = {r: dict(before[r]) for r in runners}
        artifacts = 0
        for r, runs in runners.items():
            ok = [f for f in after_files if "items" in mine[r].get(f, {})]
            suspects = [f for f in ok if "items" not in after[r][f]]
            if not suspects:
                continue
            renv = {**env, "HW_RUNS": ",".join(runs)}
            b_store = cache / f"alone-before-{r}.json"
            a_store = out / mode / f"alone-after-{r}-{_digest(key, content, ','.join(runs))}.json"
            if args.compare_only:
                alone_b, alone_a = stored(b_store, suspects), stored(a_store, suspects)
            else:
                print(f"alone ({mode}), {r}: {len(suspects)} files", flush=True)
                alone_b = real_tree.collect(base, suspects, r, out, 1, args.timeout, env, b_store)
                alone_a = real_tree.collect(fixed, suspects, r, out / mode, 1, args.timeout, renv, a_store)
            after[r] = dict(after[r])
            for f in suspects:
                mine[r][f], after[r][f] = alone_b[f], alone_a[f]
                artifacts += "items" in alone_a[f] or "items" not in alone_b[f]
        pins = pinned_tests(base, in_scope, taxonomy)
        devices = {r: taxonomy.runners[r].device for r in runners}
        result = compare(runners, scope, mine, after, after_files, in_scope, pins, devices)
        result["batch_artifacts"] = artifacts
        annotate(result, base, fixed, hwlint_notes((out / mode / "hwlint.out").read_text()))
        measured = {f for r in runners for f in scope if "items" in mine[r].get(f, {})}
        scan = static_scan(base, fixed, in_scope)
        for entry in scan:
            entry["collected_before"] = entry["file"] in measured
        result["static"] = scan
        result["static_counts"] = {
            m: {"files": len({e["file"] for e in scan if e["mechanism"] == m}), "sites": n}
            for m, n in Counter(e["mechanism"] for e in scan).most_common()
        }
        result["files_importing_changed"] = len(after_files) - len(in_scope)
        summary["modes"][mode] = result
    (out / "migration-summary.json").write_text(json.dumps(summary, indent=1))
    print_table(summary)
    print(f"\n{out / 'migration-summary.json'}")
    return 0 if all(m["property_holds"] for m in summary["modes"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
