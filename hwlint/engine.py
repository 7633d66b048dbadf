"""Run one per-file analysis over many files: in parallel, cached, results in input order.

The checker (findings), the report (class summaries) and the selector (each runner's classes) all
reduce a file to a value that depends only on the file's bytes, the taxonomy and hwlint's version.
This module runs such an *analysis* for a list of files once, for all of them:

* files whose (mtime, size) are unchanged since the cache saw them are not read at all;
* a touched file whose content hash is unchanged reuses its cached value;
* the rest are analysed on ``jobs`` processes (largest files first, in small chunks, so no worker is
  left with a big file at the end), or in this process when there are only a few.

An analysis is a module-level function ``analysis(path, data, taxonomy) -> value``, where *data* is
the file's bytes or, when it cannot be read, a one-line reason; a ``functools.partial`` of one works
too. It must never raise for a bad file; values must be picklable.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Sequence
from typing import Any

from .cache import Cache, content_hash
from .taxonomy import Taxonomy

MAX_FILE_BYTES = 10 * 1024 * 1024

Analysis = Callable[[str, "bytes | str", Taxonomy], Any]

_job: tuple[Taxonomy, Analysis, int] | None = None


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


def analyze_files(
    files: Sequence[str],
    taxonomy: Taxonomy,
    analysis: Analysis,
    kind: str,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Callable[[int], None] | None = None,
) -> list[Any]:
    """``analysis`` of each of *files*, in the same order, identical to a serial uncached run.

    *kind* names the analysis (and its options) in the cache. *progress*, when given, is called
    with the number of files just done, as they finish.
    """
    results: list[Any] = [None] * len(files)
    todo: list[tuple[int, str | None]] = []
    for i, path in enumerate(files):
        hit = cache.lookup(path, kind) if cache is not None else None
        if hit is not None:
            results[i] = hit
        else:
            todo.append((i, cache.known_hash(path, kind) if cache is not None else None))
    if progress is not None:
        progress(len(files) - len(todo))
    tasks = [(files[i], known) for i, known in todo]
    done = _run(tasks, taxonomy, analysis, jobs, max_bytes, progress or _ignore)
    for (i, _), (stamp, value) in zip(todo, done, strict=True):
        if stamp is not None and value is _UNCHANGED:
            assert cache is not None
            value = cache.value_for_hash(files[i], kind, stamp[2])
        if cache is not None and stamp is not None:
            cache.store(files[i], stamp[0], stamp[1], stamp[2], kind, value)
        results[i] = value
    if cache is not None:
        cache.save()
    return results


class _Unchanged:
    """Marks a touched file whose content the cache already knows (pickles to the same singleton)."""

    def __reduce__(self):
        return "_UNCHANGED"


_UNCHANGED = _Unchanged()


def _init(taxonomy: Taxonomy, analysis: Analysis, max_bytes: int) -> None:
    global _job
    _job = (taxonomy, analysis, max_bytes)
    # Trees and models hold no reference cycles, so the cycle collector only costs time here.
    gc.disable()


def _task(task: tuple[str, str | None]) -> tuple[tuple[int, int, str] | None, Any]:
    """Worker: ((mtime, size, hash) or None when unreadable, value or _UNCHANGED)."""
    assert _job is not None
    taxonomy, analysis, max_bytes = _job
    path, known = task
    try:
        st = os.stat(path)
    except OSError:
        st = None
    data = read_source(path, max_bytes)
    if isinstance(data, str) or st is None:
        return None, analysis(path, data, taxonomy)
    sha = content_hash(data)
    if known == sha:
        return (st.st_mtime_ns, st.st_size, sha), _UNCHANGED
    return (st.st_mtime_ns, st.st_size, sha), analysis(path, data, taxonomy)


def _ignore(n: int) -> None:
    pass


def _run(tasks, taxonomy: Taxonomy, analysis: Analysis, jobs: int | None, max_bytes: int, progress) -> list:
    jobs = max(1, jobs or os.cpu_count() or 1)
    if jobs == 1 or len(tasks) < 4 * jobs:
        enabled = gc.isenabled()
        _init(taxonomy, analysis, max_bytes)
        try:
            out = []
            for t in tasks:
                out.append(_task(t))
                progress(1)
            return out
        finally:
            if enabled:
                gc.enable()
    import multiprocessing  # imported here: single-file front ends (flake8) never pay for it
    from concurrent.futures import ProcessPoolExecutor

    order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i][0]))
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
    chunksize = max(1, min(8, len(tasks) // (jobs * 16)))
    results: list = [None] * len(tasks)
    with ProcessPoolExecutor(
        jobs, mp_context=ctx, initializer=_init, initargs=(taxonomy, analysis, max_bytes)
    ) as pool:
        done = pool.map(_task, [tasks[i] for i in order], chunksize=chunksize)
        for i, result in zip(order, done, strict=True):
            results[i] = result
            progress(1)
    return results


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
