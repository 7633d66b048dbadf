"""Run one per-file analysis over many files: in parallel, cached, results in input order.

The checker (findings), the report (class summaries) and the selector (each runner's classes) all
reduce a file to a value that depends only on the file's bytes, the taxonomy and hwlint's version.
This module runs such an *analysis* for a list of files once, for all of them:

* a file whose content hash the cache knows (for this kind, taxonomy and options) reuses its value;
* the rest are analysed on ``jobs`` processes (largest files first, in small chunks, so no worker is
  left with a big file at the end), or in this process when there are only a few.

An analysis is a module-level function ``analysis(path, data, taxonomy) -> value``, where *data* is
the file's bytes or, when it cannot be read, a one-line reason; a ``functools.partial`` of one works
too. It must never raise for a bad file; values must be picklable, and cacheable values
JSON-encodable (:func:`hwlint.pipeline.cache.encode`).

An analysis may also hand the model it built to :func:`keep_model`: when its run was asked to keep
models (:class:`Held`), the processes hold them until the cross-file phase has asked for the few it
needs, which it would otherwise build again after the per-file phase, alone on the critical path.
"""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from stat import S_ISLNK
from typing import Any

from ..model.source import MAX_FILE_BYTES, Stamp, read_stamped
from ..model.syntax import defer_frees, free_deferred
from ..roots import NONE_GIVEN, Trees
from ..taxonomy import Taxonomy
from .cache import Cache, content_hash

Analysis = Callable[[str, "bytes | str", Taxonomy], Any]

#: What an analysis runs with: the taxonomy, the analysis, the size cap and the run's trees.
Job = tuple[Taxonomy, Analysis, int, Trees]

#: What one process keeps of the models its analyses built, counted in the bytes of their files.
#: The files come largest first, so the budget keeps the costliest to build again (PyTorch's
#: test_jit.py, 562 KB, takes 0.27 s; its model is 0.2 MB pickled and comes back in 10 ms).
KEEP_BYTES = 32 * 1024 * 1024


def analyze_files(
    files: Sequence[str],
    taxonomy: Taxonomy,
    analysis: Analysis,
    kind: str,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
    value_type: Any = None,
    progress: Callable[[int], None] | None = None,
    reuse: Callable[[str, Any], bool] | None = None,
    cached: Callable[[Any], Any] | None = None,
    also: Callable[[Any], Sequence[tuple[str, Any]]] | None = None,
    keep: Held | None = None,
    meanwhile: Callable[[], None] | None = None,
    trees: Trees = NONE_GIVEN,
) -> list[Any]:
    """``analysis`` of each of *files*, in the same order, identical to a serial uncached run.

    *kind* names the analysis (and its options) in the cache, *value_type* the type of its values
    (what a cached value must decode to); without *value_type* nothing is cached. *progress*, when
    given, is called with the number of files just done, as they finish.

    An analysis may do more than the cache keeps (a check with fixes checks, then fixes the files
    that need it): *cached(value)* is the part of a value the cache keeps, and what a hit returns;
    *reuse(path, hit)* says whether a hit stands for the file, which is analysed again otherwise.
    *also(value)*: (kind, value) pairs of other analyses a value holds (the report's holds the
    check's), cached for the file too, so that those analyses find the file warm.
    *keep*: the processes that ran the analysis stay open in it, holding the models the analysis
    kept (:func:`keep_model`), until it is closed. *meanwhile*: work of the next phase that needs
    no result of this one, done by this process while the processes analyse the files (not done
    when nothing is analysed on them). *trees*: those the run checks, where a symlink may point
    (:meth:`~hwlint.roots.Trees.link_refusal`).
    """
    if value_type is None:
        cache = None
    kind = f"{kind}:max-bytes={max_bytes}"  # a file's result depends on the size cap too
    results: list[Any] = [None] * len(files)
    tick = progress or _ignore
    # The work starts before any hash is known, on the files edited since the cache was written
    # (every file, when there is no cache): the pool analyses them while this process hashes the
    # files and decodes the cached values. Modification times only say where to start; what
    # is reused is decided by the hashes.
    stats: list[os.stat_result | None] = [None] * len(files)  # each file's lstat, for its stamp
    early = (
        _edited_since(files, cache.written_ns(kind), stats) if cache is not None else list(range(len(files)))
    )
    keeping = keep is not None

    def taking(indices: list[int]) -> Callable[[int, _Result], None]:
        """What to do with the result of task *j* of a work over *indices*, as it comes: the main
        process caches it while the processes work on the next, not all of them after the last."""

        def take(j: int, result: _Result) -> None:
            i = indices[j]
            sha, value, stamp = result
            if cache is not None and sha is not None:
                if stamp is not None:
                    cache.stamp(files[i], sha, stamp)
                cache.store(files[i], sha, kind, value if cached is None else cached(value))
                for other, part in also(value) if also is not None else ():
                    cache.store(files[i], sha, f"{other}:max-bytes={max_bytes}", part)
            results[i] = value

        return take

    job: Job = (taxonomy, analysis, max_bytes, trees)
    work = _Work([files[i] for i in early], job, jobs, tick, keeping, taking(early))
    late_work = None
    try:
        started = set(early)
        # the others' content hashes, most of a warm run; in one thread: a pool of threads made it
        # twice as slow on PyTorch's test/ (files of tens of KB hand the GIL over at every read and hash)
        hashes: list[str | None] = [None] * len(files)
        if cache is not None:
            for i, path in enumerate(files):
                if i not in started:
                    hashes[i] = file_hash(path, max_bytes, cache, stats[i], trees=trees)
        hits = [
            i not in started and sha is not None and cache.has(files[i], sha, kind)  # type: ignore[union-attr]
            for i, sha in enumerate(hashes)
        ]
        # changed files whose time is older than the cache's, and files the cache never saw
        late = [i for i, hit in enumerate(hits) if not hit and i not in started]
        if late and not early:  # nothing started yet: these start before the decoding
            work.cancel()
            work = _Work([files[i] for i in late], job, jobs, tick, keeping, taking(late))
            early, late = late, []
        for i, path in enumerate(files):
            if not hits[i]:
                continue
            value = cache.get(path, hashes[i], kind, value_type)  # type: ignore[union-attr]
            if value is not None and (reuse is None or reuse(path, value)):
                results[i] = value
            else:
                late.append(i)  # a value that does not decode, or that *reuse* refuses
        tick(len(files) - len(early) - len(late))
        if meanwhile is not None and work.pool is not None:
            meanwhile()
        work.results()
        if late:
            late_work = _Work([files[i] for i in late], job, jobs, tick, keeping, taking(late))
            late_work.results()
        if keep is not None:
            keep.hold(work)
            work = None  # type: ignore[assignment]
            if late_work is not None:
                keep.hold(late_work)
                late_work = None
    finally:
        for w in (work, late_work):
            if w is not None:
                w.cancel()
    if cache is not None:
        cache.save()
    return results


def store_values(
    cache: Cache | None, kind: str, max_bytes: int, values: Mapping[str, tuple[str, Any]]
) -> None:
    """Cache values of *kind* computed elsewhere (a model kept by a per-file phase), by file:
    (content hash, value), as :func:`analyze_files` caches those it computes."""
    if cache is None or not values:
        return
    for path, (sha, value) in values.items():
        cache.store(path, sha, f"{kind}:max-bytes={max_bytes}", value)
    cache.save()


def file_hash(
    path: str,
    max_bytes: int = MAX_FILE_BYTES,
    cache: Cache | None = None,
    st: os.stat_result | None = None,
    *,
    trees: Trees,
) -> str | None:
    """The content hash of the file at *path*, None when it cannot be read: the one *cache* kept
    with the file's stamp when it still has it (a warm run reads no file), else the file's, kept
    with its stamp when that stands for the bytes read. *st*: the file's ``lstat``, when taken;
    *trees*: the run's (:func:`~hwlint.model.source.read_source`)."""
    if cache is not None:
        known = cache.stamped_hash(path, max_bytes, st)
        if known is not None:
            return known
    data, stamp = read_stamped(path, max_bytes, trees=trees)
    if isinstance(data, str):
        return None
    sha = content_hash(data)
    if cache is not None and stamp is not None:
        cache.stamp(path, sha, stamp)
    return sha


class _Worker:
    """The analyses one process runs, and what it keeps of them: a pool worker's (set up by its
    initializer from the session's values, :func:`_init_worker`), or a run's own in this process
    for as long as :meth:`_Work.results` runs them there."""

    def __init__(self, job: Job, keep: bool = False, barrier: Any = None):
        self.job = job
        self.keeping = keep  # whether it keeps the models of its analyses
        self.kept: dict[str, tuple[str, Any]] = {}  # absolute path -> (content hash, model)
        self.kept_bytes = 0
        self.current: tuple[str, str, int] | None = None  # the file under analysis: path, hash, size
        self.barrier = barrier  # a pool's: every worker answers one request for kept models
        self.memory_limit: int | None = None  # the bytes of address space it may use, once capped

    def keep(self, model: Any) -> None:
        """Keep *model*, built from the file under analysis (see :func:`keep_model`)."""
        if not self.keeping or self.current is None or model is None:
            return
        path, sha, size = self.current
        if self.kept_bytes + size > KEEP_BYTES:
            return
        self.kept[path] = (sha, model)
        self.kept_bytes += size

    def forget(self) -> None:
        self.kept.clear()
        self.kept_bytes = 0

    def give(self, paths: Sequence[str]) -> dict[str, tuple[str, Any]]:
        """The kept models of *paths*; what it kept is then let go."""
        found = {p: self.kept[p] for p in paths if p in self.kept}
        self.forget()
        return found

    def task(self, path: str) -> _Result:
        """The :data:`_Result` of the analysis of *path*."""
        taxonomy, analysis, max_bytes, trees = self.job
        free_deferred()  # the previous file's tree, before this file is read
        data, stamp = read_stamped(path, max_bytes, trees=trees)
        if isinstance(data, str):
            return None, analysis(path, data, taxonomy), None
        sha = content_hash(data)
        self.current = (os.path.abspath(path), sha, len(data))
        try:
            return sha, analysis(path, data, taxonomy), stamp
        except MemoryError:
            pass  # the file's tree and model are gone with the frames that held them
        finally:
            self.current = None
        del data
        gc.collect()
        limit = self.memory_limit
        cap = f"the {limit // 2**20:,} MB memory limit of a worker" if limit else "memory"
        return None, analysis(path, f"the file is too large to check within {cap}", taxonomy), None


#: The analyses this process runs now: a pool worker's, or a run's while :meth:`_Work.results`
#: runs them in this process (None otherwise). :func:`keep_model` finds them here.
_worker: _Worker | None = None


def keep_model(model: Any) -> None:
    """Keep *model*, built by the analysis now running from its file's bytes, for :meth:`Held.models`:
    nothing when the run was not asked to keep models, or once the process holds
    :data:`KEEP_BYTES` of files."""
    if _worker is not None:
        _worker.keep(model)


def _give(paths: list[str]) -> dict[str, tuple[str, Any]]:
    """Worker: the kept models of *paths*, once every worker of the pool has taken its request (a
    worker waiting at the barrier takes no other, so each answers exactly one)."""
    assert _worker is not None
    if _worker.barrier is not None:
        try:
            _worker.barrier.wait(timeout=_GIVE_SECONDS)
        except threading.BrokenBarrierError:
            return {}  # a worker missing: the phase builds what no answer brings
    return _worker.give(paths)


_GIVE_SECONDS = 10.0


#: The memory one worker process may take beyond what it holds when it starts: the parse-cost cap
#: keeps a file near 1 GB, this bounds what an estimate misses (10 MB of `1\r` once took 7.8 GB).
#: PyTorch's largest test file takes about 200 MB.
WORKER_MEMORY = 3 * 1024**3


def _init_worker(job: Job, memory: int, keep: bool = False, barrier: Any = None) -> None:
    """A pool worker's initializer: its :class:`_Worker` for *job* (a spawned worker inherits
    nothing of the run), and its address space capped at what it holds now plus *memory* (one
    file cannot take the machine: past it, a MemoryError, which :meth:`_Worker.task` turns into
    HWC901 for the file). *barrier*: what :func:`_give` waits at."""
    global _worker
    _worker = _Worker(job, keep, barrier)  # what the parent kept before the fork is not this one's
    # Trees and models hold no reference cycles, so the cycle collector only costs time here.
    gc.disable()
    defer_frees()  # each file's tree is freed after its result is sent
    try:
        import resource

        with open("/proc/self/statm") as f:
            held = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = held + memory
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        if soft == resource.RLIM_INFINITY or soft > limit:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
            _worker.memory_limit = limit - held
    except (ImportError, OSError, ValueError):
        pass  # no /proc or no rlimits here: the parse-cost cap still holds


#: What a task gives back: the file's content hash (None when unreadable), the analysis' value and
#: the file's stamp when it stands for the bytes read (:func:`~hwlint.model.source.read_stamped`)
_Result = tuple[str | None, Any, Stamp | None]


def _task(path: str) -> _Result:
    """Worker: the :data:`_Result` of the analysis of *path*."""
    assert _worker is not None
    return _worker.task(path)


def _ignore(n: int) -> None:
    pass


class _Work:
    """Analyses of some files under way: on a pool of processes, or (when a pool is not worth
    starting) in this process when their results are asked for."""

    def __init__(
        self,
        tasks: list[str],
        job: Job,
        jobs: int | None,
        progress,
        keep: bool = False,
        each: Callable[[int, _Result], None] | None = None,
    ):
        """*job*: the taxonomy, the analysis, the size cap and the run's trees. *keep*: the
        processes keep the models the analysis hands to :func:`keep_model`. *each(j, result)*:
        called with the result of task *j* as it comes."""
        self.tasks, self.job, self.progress = tasks, job, progress
        self.keep, self.each = keep, each
        self.local: _Worker | None = None  # the work's own, when this process runs it
        self.jobs = jobs = max(1, jobs or os.cpu_count() or 1)
        self.pool = None
        self.order: list[int] = []
        if jobs == 1 or not _pool_worth(tasks, jobs):
            return
        import multiprocessing  # imported here: single-file front ends (flake8) never pay for it
        from concurrent.futures import ProcessPoolExecutor

        self.order = sorted(range(len(tasks)), key=lambda i: -_size(tasks[i]))
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        chunksize = max(1, min(8, len(tasks) // (jobs * 16)))
        # forked processes all start with the pool, each then taking one request for what it kept;
        # spawned ones start as the work needs them, and a barrier might wait for one never started
        self.keep = keep = keep and ctx.get_start_method() == "fork"
        barrier = ctx.Barrier(jobs) if keep else None
        self.pool = ProcessPoolExecutor(
            jobs,
            mp_context=ctx,
            initializer=_init_worker,
            initargs=(self.job, WORKER_MEMORY, keep, barrier),
        )
        try:
            self.done = self.pool.map(_task, [tasks[i] for i in self.order], chunksize=chunksize)
        except BaseException:
            self.cancel()
            raise

    def results(self) -> list:
        """The result of each task, in order, once all are done."""
        global _worker
        if self.pool is None:
            enabled = gc.isenabled()
            gc.disable()  # as in a worker: trees and models hold no reference cycles
            # the analyses find it while they run (keep_model); what they keep stays with the work
            outer, _worker = _worker, _Worker(self.job, self.keep)
            self.local = _worker
            try:
                out = []
                for j, t in enumerate(self.tasks):
                    out.append(self.local.task(t))
                    if self.each is not None:
                        self.each(j, out[-1])
                    self.progress(1)
                return out
            finally:
                _worker = outer
                if enabled:
                    gc.enable()
        results: list = [None] * len(self.tasks)
        for i, result in zip(self.order, self.done, strict=True):
            results[i] = result
            if self.each is not None:
                self.each(i, result)
            self.progress(1)
        if not self.keep:
            self.pool.shutdown()
            self.pool = None
        return results

    def models(self, paths: Sequence[str]) -> dict[str, tuple[str, Any]]:
        """The models kept of *paths* (absolute): path -> (content hash, model)."""
        if self.pool is None:
            return self.local.give(paths) if self.local is not None else {}
        found: dict[str, tuple[str, Any]] = {}
        try:
            asked = [self.pool.submit(_give, list(paths)) for _ in range(self.jobs)]
            for answer in asked:
                found.update(answer.result())
        except Exception:  # a process lost since (the pool is broken): the phase builds them
            return {}
        return found

    def cancel(self) -> None:
        """Stop the work not yet done (nothing once the results are in) and the processes."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        elif self.local is not None:
            self.local.forget()


class Held:
    """The processes of a per-file phase held open with the models its analysis kept, until the
    cross-file phase has taken those it needs (:meth:`models`) and closes them."""

    def __init__(self) -> None:
        self.works: list[_Work] = []

    def hold(self, work: _Work) -> None:
        self.works.append(work)

    def models(self, paths: Sequence[str]) -> dict[str, tuple[str, Any]]:
        """The kept models of *paths* (absolute): path -> (content hash, model)."""
        found: dict[str, tuple[str, Any]] = {}
        for work in self.works:
            found.update(work.models(paths))
        return found

    def close(self) -> None:
        works, self.works = self.works, []
        for work in works:
            work.cancel()


#: The files edited since the cache was written are analysed ahead of the hashing only when
#: they are at most this share of the bytes: a fresh clone beside a restored cache looks edited
#: everywhere, and its files are mostly hits.
EARLY_SHARE = 0.1


def _edited_since(
    files: Sequence[str], written_ns: int | None, stats: list[os.stat_result | None]
) -> list[int]:
    """The indices of *files* modified at or after *written_ns* (all of them when it is None), or
    none when they are more than :data:`EARLY_SHARE` of the bytes. Each file's ``lstat`` goes to
    *stats* (when *written_ns* is given), for the cache's stamps: one ``stat`` per file a run."""
    if written_ns is None:
        return list(range(len(files)))
    edited, edited_bytes, total = [], 0, 0
    for i, path in enumerate(files):
        try:
            st = stats[i] = os.lstat(path)
            if S_ISLNK(st.st_mode):
                st = os.stat(path)  # a link is as new as what it points to
        except (OSError, ValueError):
            continue  # its hash says it cannot be read
        total += st.st_size
        if st.st_mtime_ns >= written_ns:
            edited.append(i)
            edited_bytes += st.st_size
    return edited if edited_bytes <= EARLY_SHARE * total else []


def _pool_worth(tasks: list[str], jobs: int) -> bool:
    """A pool costs some 50 ms to start and feed: worth it for many files, or for a few that are
    large together (a warm run whose edited files include PyTorch's 614 KB test_nn.py: 0.45 ->
    0.35 s)."""
    return len(tasks) >= 2 and (len(tasks) >= 4 * jobs or sum(map(_size, tasks)) >= POOL_BYTES)


#: Fewer than four files per process run in this process unless they are at least this large together.
POOL_BYTES = 512 * 1024


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
