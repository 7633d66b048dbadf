"""Run the rules over files: one model per file, every registered rule, noqa and code selection.

This is the engine behind every front end (``hwlint check``, flake8, lintrunner). It decides nothing
about presentation: it returns :class:`Finding` objects in a stable order.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .cache import Cache, content_hash
from .model import FileModel, Resolver, build_model
from .rules import RULES, Context
from .taxonomy import Taxonomy


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int  # 0-based, in characters
    code: str
    message: str
    end_line: int = 0
    end_col: int = 0
    fix: str | None = None  # "safe" or "unsafe" when hwlint can fix it (ruff's applicability)

    @property
    def rule(self):
        return RULES[self.code]

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.col, self.code, self.message)


@dataclass(frozen=True)
class Selection:
    """Which codes are reported: ruff-style prefixes (``HWC``, ``HWC1``, ``HWC203``)."""

    select: tuple[str, ...] = ("HWC",)
    ignore: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        # As in ruff, the more specific prefix wins; on a tie, ignore wins.
        sel = _longest_prefix(code, self.select)
        return sel >= 0 and sel > _longest_prefix(code, self.ignore)

    def with_ignored(self, extra: Iterable[str]) -> Selection:
        return Selection(self.select, (*self.ignore, *extra))


def _longest_prefix(code: str, prefixes: Sequence[str]) -> int:
    best = -1
    for p in prefixes:
        p = p.upper()
        if p == "ALL":
            p = ""
        if code.startswith(p):
            best = max(best, len(p))
    return best


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    model: FileModel | None = None


def run_rules(
    model: FileModel,
    taxonomy: Taxonomy,
    selection: Selection | None = None,
    resolver: Resolver | None = None,
    noqa: bool = True,
    context: Context | None = None,
) -> list[Finding]:
    """All enabled findings for one file model, sorted; a rule that raises becomes HWC900.

    Pass *context* to keep what the rules computed (classifications, inferences) for later use."""
    selection = selection or Selection()
    out: list[Finding] = []
    if model.error is not None:
        if selection.enabled("HWC901"):
            err = model.error
            out.append(_finding(model.path, "HWC901", err.line, err.col, {"reason": err.message.rstrip(".")}))
        return out
    ctx = context or Context(model, taxonomy, resolver)
    for code, rule in RULES.items():
        if rule.check is None or not selection.enabled(code):
            continue
        try:
            for site, fields in rule.check(ctx):
                out.append(
                    _finding(model.path, code, site.line, site.col, fields, site.end_line, site.end_col)
                )
        except Exception as e:
            if selection.enabled("HWC900"):
                error = f"{type(e).__name__}: {e}".rstrip(".")
                out.append(_finding(model.path, "HWC900", 1, 0, {"rule": code, "error": error}))
    if noqa and model.noqa:
        out = [f for f in out if not _suppressed(model, f)]
    out.sort(key=Finding.sort_key)
    return out


def _finding(
    path: str, code: str, line: int, col: int, fields: dict, end_line: int = 0, end_col: int = 0
) -> Finding:
    message = RULES[code].message.format(**fields)
    return Finding(path, line, col, code, message, end_line or line, end_col, fields.get("fix"))


def _suppressed(model: FileModel, finding: Finding) -> bool:
    codes = model.noqa_codes(finding.line)
    if codes is None:
        return False
    return not codes or any(finding.code.startswith(c) for c in codes)


def check_source(
    source: str | bytes, path: str, taxonomy: Taxonomy, selection: Selection | None = None
) -> list[Finding]:
    """Check one file's contents."""
    model = _build(source, path, taxonomy)
    if isinstance(model, Finding):
        return [model] if (selection or Selection()).enabled(model.code) else []
    return run_rules(model, taxonomy, selection)


def _build(source: str | bytes, path: str, taxonomy: Taxonomy) -> FileModel | Finding:
    """The file's model, or an HWC900 finding if building it failed (a bug in hwlint, not the file)."""
    try:
        return build_model(source, path, taxonomy)
    except Exception as e:
        error = f"{type(e).__name__}: {e}".rstrip(".")
        return _finding(path, "HWC900", 1, 0, {"rule": "model", "error": error})


MAX_FILE_BYTES = 10 * 1024 * 1024


def read_source(path: str, max_bytes: int = MAX_FILE_BYTES) -> bytes | str:
    """The file's bytes, or a one-line reason it cannot be read.

    Files over *max_bytes* are refused: parsing costs about 15 bytes of memory per byte of source,
    and one generated 50 MB file must not take the whole run down with it.
    """
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except IsADirectoryError:
        return "Is a directory"
    except OSError as e:
        return e.strerror or str(e)
    if len(data) > max_bytes:
        return f"the file is larger than the {max_bytes // (1024 * 1024)} MB limit (--max-file-size)"
    return data


def check_file(
    path: str, taxonomy: Taxonomy, selection: Selection | None = None, max_bytes: int = MAX_FILE_BYTES
) -> FileResult:
    """Check one file on disk. A file that cannot be read is an HWC901 finding, never an exception."""
    selection = selection or Selection()
    data = read_source(path, max_bytes)
    if isinstance(data, str):
        if not os.path.lexists(path):
            data = "No such file or directory"
        findings = []
        if selection.enabled("HWC901"):
            findings.append(_finding(path, "HWC901", 1, 0, {"reason": data}))
        return FileResult(path, findings)
    model = _build(data, path, taxonomy)
    if isinstance(model, Finding):
        return FileResult(path, [model] if selection.enabled(model.code) else [])
    return FileResult(path, run_rules(model, taxonomy, selection), model)


# ---------------------------------------------------------------------------------------------
# Many files: parallel, cached, in a stable order

_ALL = Selection(("HWC",), ())
_worker_taxonomy: Taxonomy | None = None
_worker_max_bytes = MAX_FILE_BYTES


def _init_worker(taxonomy: Taxonomy, max_bytes: int = MAX_FILE_BYTES) -> None:
    global _worker_taxonomy, _worker_max_bytes
    _worker_taxonomy, _worker_max_bytes = taxonomy, max_bytes
    # Trees and models hold no reference cycles, so the cycle collector only costs time here.
    gc.disable()


def _check_task(
    task: tuple[str, str | None],
) -> tuple[str, tuple[int, int, str] | None, list[Finding] | None]:
    """Worker: check one file with every rule. Returns (path, (mtime, size, hash), findings);
    findings is None when the content hash equals *known* (the cached findings still hold)."""
    path, known = task
    assert _worker_taxonomy is not None
    try:
        st = os.stat(path)
    except OSError:
        st = None
    data = read_source(path, _worker_max_bytes)
    if isinstance(data, str) or st is None:
        return path, None, check_file(path, _worker_taxonomy, _ALL, _worker_max_bytes).findings
    sha = content_hash(data)
    stamp = (st.st_mtime_ns, st.st_size, sha)
    if known == sha:
        return path, stamp, None
    model = _build(data, path, _worker_taxonomy)
    if isinstance(model, Finding):
        return path, stamp, [model]
    return path, stamp, run_rules(model, _worker_taxonomy, _ALL)


def check_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> list[list[Finding]]:
    """Every finding (all codes, noqa applied) for each of *files*, in the same order.

    Files run in parallel on *jobs* processes (default: the number of cores); results are identical
    to a serial run. With a *cache*, unchanged files are not read again.
    """
    results: list[list[Finding] | None] = [None] * len(files)
    todo: list[tuple[int, str, str | None]] = []
    for i, path in enumerate(files):
        hit = cache.lookup(path, "check") if cache is not None else None
        if hit is not None:
            results[i] = hit
        else:
            todo.append((i, path, cache.known_hash(path, "check") if cache is not None else None))
    for (i, path, _), (_, stamp, findings) in zip(
        todo, _run_tasks(todo, taxonomy, jobs, max_bytes), strict=True
    ):
        if findings is None:  # touched but unchanged
            assert cache is not None and stamp is not None
            findings = cache.value_for_hash(path, "check", stamp[2])
        if cache is not None and stamp is not None:
            cache.store(path, stamp[0], stamp[1], stamp[2], "check", findings)
        results[i] = findings
    if cache is not None:
        cache.save()
    return [r or [] for r in results]


def _run_tasks(todo, taxonomy: Taxonomy, jobs: int | None, max_bytes: int):
    tasks = [(path, known) for _, path, known in todo]
    jobs = max(1, jobs or os.cpu_count() or 1)
    if jobs == 1 or len(tasks) < 4 * jobs:
        enabled = gc.isenabled()
        _init_worker(taxonomy, max_bytes)
        try:
            return [_check_task(t) for t in tasks]
        finally:
            if enabled:
                gc.enable()
    import multiprocessing  # imported here: single-file front ends (flake8) never pay for it
    from concurrent.futures import ProcessPoolExecutor

    # Largest files first, in small chunks, so that no worker is left with a big file at the end.
    order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i][0]))
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunksize = max(1, min(8, len(tasks) // (jobs * 16)))
    with ProcessPoolExecutor(
        jobs, mp_context=ctx, initializer=_init_worker, initargs=(taxonomy, max_bytes)
    ) as pool:
        done = pool.map(_check_task, [tasks[i] for i in order], chunksize=chunksize)
        results: list = [None] * len(tasks)
        for i, result in zip(order, done, strict=True):
            results[i] = result
    return results


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
