"""``hwselect verify``: the static selection against what torch's runtime runs, on the runner itself.

hwselect never imports torch; a vendor on a real XPU, MPS or NPU runner still wants to know that
their torch agrees. ``verify`` collects the paths with pytest as the runner runs them (its device:
``PYTORCH_TESTING_DEVICE_ONLY_FOR``, unless already set; any plugin after ``--``), and applies the
runtime's own classification filter to what pytest collected: torch's
``filter_by_hw_classification`` (``torch.testing._internal.common_utils``, torch 2.14 and later) with
the runner's classifications, or, on an older torch, the same ``getattr(cls, "hw_classification")``
test it makes. Then it compares, class by class, with ``hwselect RUNNER PATH...``:

* *runtime alone*: a class the runtime runs and hwselect does not select (tests a runner would
  skip in silence): a difference;
* *hwselect alone*: a class hwselect selects and the runtime does not run: a difference when
  pytest collects the class (the runtime read another classification) or when hwselect prints its
  node id (``pytest @ids.txt`` would abort); not one when the class is addressed through its file
  because it may not exist, and it does not (listed as *in case*).

Each difference comes with ``hwselect explain``'s lines (why hwselect thought otherwise) and the
classification the live class carries. The collection itself is the pytest plugin's
(``--hw-verify-report FILE``), so ``pytest --hw-runner R --hw-verify`` gives the same report inside
any pytest run.

A comparison that cannot fail is worse than none, so a run that compared nothing it should have is
no pass: :meth:`VerifyResult.vacuous` gives the reasons (a module pytest could not collect, no torch
in the interpreter that collected, no class collected at all), and the front ends exit 2 with them
(``--allow-uncollectable`` accepts modules that fail to collect, for the knowing user).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..effects import run
from ..roots import NONE_GIVEN, Trees
from ..taxonomy import Taxonomy
from .records import Candidate, RunnerSelection

#: What the verify report file holds (the plugin writes it, :func:`verify` reads it).
REPORT_FORMAT = "hwselect-verify/1"


class VerifyError(Exception):
    """The runtime collection could not run (no pytest, a crash, a timeout): exit 2."""


@dataclass
class Difference:
    side: str  # "runtime" (the runtime alone runs it) or "hwselect" (hwselect alone selects it)
    nodeid: str
    live: str  # what the live class carries: a member name, "unclassified", "not collected"
    why: list[str]  # hwselect explain's lines


@dataclass
class VerifyResult:
    runner: str
    device: str
    filter: str  # which runtime filter ran
    collected_classes: int
    collected_items: int
    runtime_classes: int
    static_classes: int
    differences: list[Difference] = field(default_factory=list)
    in_case: list[str] = field(default_factory=list)  # selected in case they exist; they do not
    errors: list[str] = field(default_factory=list)  # collectors pytest could not collect
    runtime_line: str = ""  # what the runtime's filter printed
    torch: str | None = "?"  # torch's version in the collecting interpreter (None: not installed)
    python: str = ""  # the interpreter that collected

    def vacuous(self, allow_uncollectable: bool = False) -> list[str]:
        """Why this comparison proves less than it says (empty when it is sound): each reason
        makes ``hwselect verify`` exit 2."""
        reasons = []
        if self.torch is None:
            reasons.append(
                f"torch is not installed in {self.python or 'the interpreter that collected'}: the "
                "runtime's collection is not torch's (install the runner's torch, or run verify with "
                "its python)"
            )
        if self.errors and not allow_uncollectable:
            shown = ", ".join(self.errors[:5]) + (", ..." if len(self.errors) > 5 else "")
            reasons.append(
                f"{_n(len(self.errors), 'module')} failed to collect and could not be compared: {shown} "
                "(pytest --collect-only says why; --allow-uncollectable compares the rest)"
            )
        if not self.collected_classes:
            reasons.append(
                "pytest collected no test class, so nothing was compared (check the paths, the "
                "device environment and the plugins after --)"
            )
        return reasons

    def lines(self, verbose: bool = False, quiet: bool = False) -> list[str]:
        out = []
        if not quiet:
            out.append(
                f"hwselect verify {self.runner} (device {self.device}): pytest collected "
                f"{_n(self.collected_classes, 'class', 'classes')} ({_n(self.collected_items, 'test')}); "
                f"the runtime's filter ({self.filter}) keeps {self.runtime_classes}, hwselect selects "
                f"{self.static_classes}"
            )
            if self.runtime_line:
                out.append(f"  runtime: {self.runtime_line}")
        for side, title in (
            ("runtime", "the runtime runs, hwselect does not select"),
            ("hwselect", "hwselect selects, the runtime does not run"),
        ):
            mine = [d for d in self.differences if d.side == side]
            if not mine:
                continue
            out.append(f"{title} ({len(mine)}):")
            for d in mine:
                out.append(f"  {d.nodeid} (live class: {d.live})")
                out += [f"    {line}" for line in d.why]
        if self.in_case and not quiet:
            out.append(
                f"{_n(len(self.in_case), 'class', 'classes')} selected through the file in case it exists, "
                "not collected (no difference)" + ("" if verbose else f", e.g. {self.in_case[0]}")
            )
            if verbose:
                out += [f"  {n}" for n in self.in_case]
        if self.errors and not quiet:
            out.append(
                f"{_n(len(self.errors), 'module')} failed to collect (not compared): "
                + ", ".join(self.errors[: None if verbose else 5])
                + ("" if verbose or len(self.errors) <= 5 else ", ...")
            )
        n = len(self.differences)
        compared = (
            f"compared {_n(self.collected_classes, 'class', 'classes')} ({_n(self.collected_items, 'test')})"
        )
        verdict = _n(n, "difference") if n else "no difference"
        out.append(f"hwselect verify: {verdict}; {compared}")
        return out


def _n(n: int, one: str, many: str | None = None) -> str:
    from .notices import plural

    return plural(n, one, many)


def compare(
    sel: RunnerSelection,
    report: dict,
    taxonomy: Taxonomy,
    backends: Sequence[str] = (),
    roots: Sequence[str] = (),
    trees: Trees = NONE_GIVEN,
) -> VerifyResult:
    """*sel* (hwselect's selection) against *report* (what the plugin recorded of the runtime);
    *roots*, *trees*: the configuration's import roots and the run's trees, which a difference's
    explanation reads the files with."""
    from .explain import explain, pytest_path, relpath

    classes = report["classes"]
    live = {(os.path.normcase(c["path"]), c["class"]): c for c in classes}
    kept = {k for k, c in live.items() if c["kept"]}
    failed_files = {os.path.normcase(os.path.abspath(p)) for p in report.get("failed_files", ())}
    result = VerifyResult(
        sel.runner.name,
        sel.runner.device,
        report.get("filter", "?"),
        len(classes),
        sum(c["items"] for c in classes),
        len(kept),
        len(sel.selected),
        errors=list(report.get("errors", ())),
        runtime_line=report.get("runtime_line", ""),
        torch=report.get("torch", "?"),
        python=report.get("python", ""),
    )

    def keys(c: Candidate) -> list[tuple[str, str]]:
        path = os.path.normcase(os.path.abspath(c.path))
        return [(path, n) for n in c.names]

    def why(path: str, name: str) -> list[str]:
        try:
            return explain(taxonomy, sel.runner, relpath(path), name, backends, roots, trees).lines
        except Exception as e:  # a report must not die on one class it cannot explain
            return [f"(explain failed: {type(e).__name__}: {e})"]

    matched: set[tuple[str, str]] = set()
    for c in sel.selected:
        ks = keys(c)
        if any(k in kept for k in ks):
            matched.update(k for k in ks if k in kept)
            continue
        if ks[0][0] in failed_files:
            continue  # its module failed to collect: listed among the errors
        seen = next((live[k] for k in ks if k in live), None)
        nodeid = f"{pytest_path(c.path)}::{c.name}"
        if seen is None and c.uncertain_nodeid:
            result.in_case.append(nodeid)
            continue
        state = "not collected" if seen is None else (seen["live"] or "unclassified")
        result.differences.append(Difference("hwselect", nodeid, state, why(c.path, c.name)))
    # a PrivateUse1 class the runtime named after a backend hwselect was not told about
    generics = {(os.path.normcase(os.path.abspath(c.path)), c.generic) for c in sel.selected if c.generic}
    for key in sorted(kept - matched):
        path, name = key
        entry = live[key]
        if entry.get("generic") and (path, entry["generic"]) in generics:
            continue
        nodeid = f"{pytest_path(entry['path'])}::{name}"
        result.differences.append(
            Difference("runtime", nodeid, entry["live"] or "unclassified", why(entry["path"], name))
        )
    return result


def runtime_env(device: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment the runtime collects in: the runner's device unless CI already set one."""
    env = dict(os.environ)
    env.setdefault("PYTORCH_TESTING_DEVICE_ONLY_FOR", device)
    env.update(extra or {})
    return env


def collect_runtime(
    runner: str,
    device: str,
    paths: Sequence[str],
    plugin_args: Sequence[str],
    pytest_args: Sequence[str],
    timeout: int,
) -> dict:
    """Run ``pytest --collect-only`` with the plugin's recorder and return its report."""
    fd, report = tempfile.mkstemp(prefix="hwselect-verify-", suffix=".json")
    os.close(fd)
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    cmd += ["--hw-runner", runner, "--hw-verify-report", report, *plugin_args, *paths, *pytest_args]
    try:
        try:
            proc = run(cmd, env=runtime_env(device), text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise VerifyError(f"pytest's collection took over {timeout} s (--timeout)") from None
        except OSError as e:
            raise VerifyError(f"cannot run pytest: {e}") from None
        try:
            with open(report, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError):
            tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-15:])
            raise VerifyError(
                f"pytest ended (exit {proc.returncode}) before its collection finished:\n{tail}"
            ) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(report)
    if data.get("format") != REPORT_FORMAT:
        raise VerifyError(f"unexpected verify report format {data.get('format')!r}")
    return data


def verify(
    taxonomy: Taxonomy,
    runner: str,
    paths: Sequence[str],
    backends: Sequence[str] = (),
    include_unclassified: bool = False,
    config=None,
    pytest_args: Sequence[str] = (),
    timeout: int = 3600,
    options=None,
    taxonomy_file: str | None = None,
) -> VerifyResult:
    """``hwselect verify RUNNER PATH...``: hwselect's selection against the runtime's collection."""
    from .runners import get_runner, select_paths

    r = get_runner(taxonomy, runner)
    from ..pipeline.session import RunOptions

    options = options or RunOptions(no_cache=True)
    sel = select_paths(taxonomy, r, paths, backends, include_unclassified, config, options)
    plugin_args = []
    if taxonomy_file:
        plugin_args += ["--hw-taxonomy", taxonomy_file]
    for b in backends[:1]:
        plugin_args += ["--hw-backend", b]
    if include_unclassified:
        plugin_args.append("--hw-include-unclassified")
    report = collect_runtime(runner, r.device, paths, plugin_args, pytest_args, timeout)
    from ..pipeline.config import Config
    from ..pipeline.session import run_trees

    config = config if config is not None else Config()
    return compare(sel, report, taxonomy, backends, config.roots, run_trees(config, paths=paths))


def runtime_records(items, runs: Sequence[str], attribute: str, include_unclassified: bool) -> dict:
    """What the runtime's filter does with *items* (pytest items), per class: the report's body.

    torch's own ``filter_by_hw_classification`` decides when torch has it (2.14 and later); an
    older torch gets the same test by hand (``getattr`` on the class, the member's name)."""
    import io

    kept_ids: set[int] = set()
    how = f"getattr(cls, {attribute!r}) in [{', '.join(runs)}]"
    printed = ""
    runtime = _torch_filter()
    if runtime is not None:
        enum, filter_fn = runtime
        wanted = {enum[n] for n in runs if n in enum.__members__}
        keep: list = []
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                filter_fn(items, wanted, get_class=lambda it: getattr(it, "cls", None), on_match=keep.append)
            kept_ids = {id(i) for i in keep}
            how = "torch filter_by_hw_classification"
            printed = buf.getvalue().strip()
            if include_unclassified:
                kept_ids |= {
                    id(i) for i in items if _cls(i) is not None and getattr(_cls(i), attribute, None) is None
                }
        except TypeError as e:  # a class-level value that is not a HardwareClassification
            printed = f"torch's filter raised TypeError: {e}"
            runtime = None
    by_class: dict[tuple[str, str], dict] = {}
    for item in items:
        cls = _cls(item)
        if cls is None:
            continue
        value = getattr(cls, attribute, None)
        member = getattr(value, "name", None) if value is not None else None
        label = (
            member if isinstance(member, str) else (None if value is None else f"<not a member: {value!r}>")
        )
        if runtime is None:
            ok = (label in runs) if label is not None else include_unclassified
            if ok:
                kept_ids.add(id(item))
        key = (str(item.path), cls.__name__)
        entry = by_class.setdefault(
            key,
            {
                "path": str(item.path),
                "class": cls.__name__,
                "items": 0,
                "kept": 0,
                "live": label,
                "generic": _generic_base(cls),
            },
        )
        entry["items"] += 1
        entry["kept"] += id(item) in kept_ids
    return {
        "classes": list(by_class.values()),
        "filter": how,
        "runtime_line": printed,
        "torch": _torch_version(),
        "python": sys.executable,
    }


def _torch_version() -> str | None:
    """torch's version in this interpreter ("" when it cannot say), None when torch is not
    installed. Read from the module the tests imported, else from the distribution's metadata (no
    import: a collection that did not import torch must not pay for it here)."""
    module = sys.modules.get("torch")
    if module is not None:
        return str(getattr(module, "__version__", ""))
    import importlib.util

    try:
        if importlib.util.find_spec("torch") is None:
            return None
    except (ImportError, ValueError):
        return None
    from importlib import metadata

    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return ""


def _cls(item):
    return getattr(item, "cls", None)


def _generic_base(cls: type) -> str | None:
    """The generic class a device class was generated from (its base whose name it extends)."""
    for base in cls.__bases__:
        if cls.__name__.startswith(base.__name__) and cls.__name__ != base.__name__:
            return base.__name__
    return None


def _torch_filter():
    """(HardwareClassification, filter_by_hw_classification) from torch's runtime, or None when
    this torch has no such filter (or is not installed)."""
    if "torch" not in sys.modules:
        return None
    try:
        from torch.testing._internal import common_utils  # type: ignore[import-not-found]
    except Exception:
        return None
    enum = getattr(common_utils, "HardwareClassification", None)
    fn = getattr(common_utils, "filter_by_hw_classification", None)
    if enum is None or fn is None:
        return None
    return enum, fn
