"""Parallel and cached checking gives exactly what a serial, uncached run gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from generate import generate  # benchmarks/ is on the path (pyproject: pythonpath)

from hwlint.model.source import MAX_FILE_BYTES
from hwlint.pipeline.cache import Cache
from hwlint.pipeline.check import check_paths
from hwlint.pipeline.config import Config, discover
from hwlint.pipeline.engine import analyze_files
from hwlint.roots import NONE_GIVEN

from .conftest import run_tool

CHECK = f"check:max-bytes={MAX_FILE_BYTES}"  # the cache kind of `hwlint check` by default


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    tree = tmp_path_factory.mktemp("corpus")
    generate(tree, files=60, size_kb=3, seed=3)
    (tree / "test_broken.py").write_text("class TestX(TestCase)\n    def test_a(self): pass\n")
    return tree


def declared(member: str) -> str:
    return (
        "from torch.testing._internal.common_utils import HardwareClassification\n\n"
        f"class TestA:\n    hw_classification = HardwareClassification.{member}\n\n"
        "    def test_x(self):\n        pass\n"
    )


def files_of(tree: Path) -> list[str]:
    return list(discover([str(tree)], Config()))


@pytest.mark.slow
def test_parallel_and_cached_equal_serial_uncached(corpus, taxonomy, tmp_path):
    files = files_of(corpus)
    serial = check_paths(files, taxonomy, jobs=1)
    assert sum(map(len, serial)) > 10  # the corpus has findings to compare
    assert any(f.code == "HWC901" for found in serial for f in found)
    assert check_paths(files, taxonomy, jobs=2) == serial
    cache = Cache(tmp_path / "cache", taxonomy.digest)
    assert check_paths(files, taxonomy, jobs=2, cache=cache) == serial  # cold: fills the cache
    warm = Cache(tmp_path / "cache", taxonomy.digest)
    assert len(warm.entries(CHECK)) == len(files)
    assert check_paths(files, taxonomy, jobs=2, cache=warm) == serial


@pytest.mark.slow
def test_cli_output_is_identical_serial_parallel_and_warm(corpus, tmp_path):
    base = ["hwlint", "check", "--exit-zero", "--output-format", "json", str(corpus)]
    serial = run_tool(*base, "--no-cache", "--jobs", "1").stdout
    assert run_tool(*base, "--no-cache", "--jobs", "2").stdout == serial
    cached = [*base, "--cache-dir", str(tmp_path / "c")]
    assert run_tool(*cached).stdout == serial
    assert run_tool(*cached).stdout == serial


def test_edited_and_touched_files_are_rechecked_correctly(tmp_path, taxonomy):
    src = tmp_path / "test_a.py"
    src.write_text("class TestA:\n    def test_x(self):\n        pass\n")
    cache_dir = tmp_path / "cache"
    assert [f.code for f in check_paths([str(src)], taxonomy, 1, Cache(cache_dir, taxonomy.digest))[0]] == [
        "HWC001"
    ]
    src.write_text(declared("GENERIC"))
    assert check_paths([str(src)], taxonomy, 1, Cache(cache_dir, taxonomy.digest)) == [[]]
    src.touch()  # new mtime, same content: the hash says the entry still holds
    cache = Cache(cache_dir, taxonomy.digest)
    assert check_paths([str(src)], taxonomy, 1, cache) == [[]]


def test_cache_is_keyed_by_taxonomy(tmp_path, taxonomy, strict_taxonomy):
    src = tmp_path / "test_a.py"
    src.write_text(declared("CPU"))
    cache_dir = tmp_path / "cache"
    assert check_paths([str(src)], taxonomy, 1, Cache(cache_dir, taxonomy.digest)) == [[]]
    strict = check_paths([str(src)], strict_taxonomy, 1, Cache(cache_dir, strict_taxonomy.digest))
    assert [f.code for f in strict[0]] == ["HWC102"]


@pytest.mark.parametrize(
    "garbage",
    [b"", b"not json", b"hwlint-cache-3 00\n{}", b'{"key": {}, "entries": {}}', b"hwlint-cache-3"],
    ids=["empty", "text", "wrong-mac", "no-header", "truncated"],
)
def test_corrupt_or_foreign_cache_is_ignored_and_rewritten(tmp_path, taxonomy, garbage):
    src = tmp_path / "test_a.py"
    src.write_text("class TestA:\n    def test_x(self):\n        pass\n")
    cache = Cache(tmp_path / "cache", taxonomy.digest)
    cache.path_for(CHECK).parent.mkdir(parents=True)
    cache.path_for(CHECK).write_bytes(garbage)
    cache = Cache(tmp_path / "cache", taxonomy.digest)
    assert [f.code for f in check_paths([str(src)], taxonomy, 1, cache)[0]] == ["HWC001"]
    rewritten = Cache(tmp_path / "cache", taxonomy.digest)
    assert list(rewritten.entries(CHECK)) == [str(src)]


def test_an_entry_that_does_not_decode_is_checked_again_beside_edited_files(corpus, taxonomy, tmp_path):
    """The files to analyse start on the pool before cached values are decoded; a value found
    unreadable then is analysed after them, and replaced in the cache."""
    files = files_of(corpus)
    serial = check_paths(files, taxonomy, jobs=1)
    check_paths(files, taxonomy, jobs=2, cache=Cache(tmp_path / "cache", taxonomy.digest))
    cache = Cache(tmp_path / "cache", taxonomy.digest)
    bad = files[0]
    sha = cache.entries(CHECK)[bad][0]
    cache.store(bad, sha, CHECK, ["not", "a", "check"])  # the right hash, a value of the wrong shape
    for path in files[1:9]:
        cache.entries(CHECK).pop(path)  # "edited": eight files for the pool
    cache.save()
    cache = Cache(tmp_path / "cache", taxonomy.digest)
    assert check_paths(files, taxonomy, jobs=2, cache=cache) == serial
    again = Cache(tmp_path / "cache", taxonomy.digest).entries(CHECK)
    assert again[bad][0] == sha and again[bad][1] != ["not", "a", "check"]
    assert all(path in again for path in files[1:9])


ANALYSED: list[str] = []


def _counted(path: str, data: bytes | str, taxonomy) -> str:
    """An analysis that notes each file it is run on (in this process: jobs=1)."""
    ANALYSED.append(os.path.basename(path))
    return data if isinstance(data, str) else data.decode()[:20]


def _analysed(files: list[str], cache_dir: Path, taxonomy) -> tuple[list[str], list]:
    ANALYSED.clear()
    cache = Cache(cache_dir, taxonomy.digest)
    values = analyze_files(files, taxonomy, _counted, "count", 1, cache, value_type=str)
    return sorted(ANALYSED), values


def test_modification_times_only_order_the_work_the_hashes_decide(tmp_path, taxonomy):
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(20):
        (tree / f"test_{i:02}.py").write_text(f"# file {i:02}\n" + "x = 1\n" * 50)
    files = sorted(map(str, tree.glob("*.py")))
    cache_dir = tmp_path / "cache"
    analysed, cold = _analysed(files, cache_dir, taxonomy)
    assert len(analysed) == 20 and cold[3] == "# file 03\nx = 1\nx = "
    assert _analysed(files, cache_dir, taxonomy) == ([], cold)  # warm
    # edited since the cache was written: analysed (ahead of the hashing)
    (tree / "test_04.py").write_text("# edited 04\n")
    analysed, values = _analysed(files, cache_dir, taxonomy)
    assert (analysed, values[4]) == (["test_04.py"], "# edited 04\n")
    # touched, not changed: analysed again (the time said so), the same value
    os.utime(tree / "test_05.py")
    assert _analysed(files, cache_dir, taxonomy) == (["test_05.py"], values)
    # changed with a time older than the cache's: the hash finds it
    (tree / "test_06.py").write_text("# edited 06\n")
    os.utime(tree / "test_06.py", ns=(0, 0))
    analysed, values = _analysed(files, cache_dir, taxonomy)
    assert (analysed, values[6]) == (["test_06.py"], "# edited 06\n")
    # every file newer than the cache (a fresh clone beside a restored cache): the hashes rule,
    # and the unchanged files are not analysed again
    for path in files:
        os.utime(path)
    assert _analysed(files, cache_dir, taxonomy) == ([], values)


@pytest.mark.slow
def test_two_concurrent_runs_leave_a_valid_cache(corpus, tmp_path, taxonomy):
    cache_dir = tmp_path / "shared-cache"
    cmd = [
        str(Path(sys.executable).parent / "hwlint"),
        "check",
        "--exit-zero",
        "-q",
        "--jobs",
        "1",
        "--cache-dir",
        str(cache_dir),
        str(corpus),
    ]
    procs = [
        subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), outputs
    assert len({out for out, _ in outputs}) == 1
    files = files_of(corpus)
    cache = Cache(cache_dir, taxonomy.digest)
    assert len(cache.entries(CHECK)) == len(files) and not cache.dirty
    assert check_paths(files, taxonomy, 1, cache) == check_paths(files, taxonomy, 1)
    assert not [p for p in cache_dir.iterdir() if p.name.startswith(".tmp-")]


def test_unwritable_cache_directory_is_not_an_error(tmp_path, taxonomy):
    src = tmp_path / "test_a.py"
    src.write_text("class TestA:\n    def test_x(self):\n        pass\n")
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    res = run_tool("hwlint", "check", "--cache-dir", str(blocker / "cache"), str(src))
    assert res.returncode == 1 and "HWC001" in res.stdout and res.stderr == ""


def test_cached_results_name_files_as_given_now(tmp_path):
    # The cache is keyed by absolute path; a second run from another directory must not print the
    # paths of the first.
    sub = tmp_path / "proj" / "test"
    sub.mkdir(parents=True)
    (sub / "test_a.py").write_text("class TestA:\n    def test_x(self):\n        pass\n")
    cache = str(tmp_path / "cache")
    first = run_tool("hwlint", "check", "--cache-dir", cache, "proj", cwd=tmp_path)
    assert first.stdout.startswith("proj/test/test_a.py:1:1: HWC001")
    again = run_tool("hwlint", "check", "--cache-dir", cache, ".", cwd=tmp_path / "proj")
    assert again.stdout.startswith("test/test_a.py:1:1: HWC001"), again.stdout


@pytest.mark.slow
def test_hwselect_warm_equals_cold_for_every_runner_and_format(corpus, tmp_path, capsys):
    # in this process (27 runs: a fresh interpreter each would cost more than the runs); the
    # console script itself is run by the other tests
    from hwlint.cli.select import main

    def hwselect(*args: str) -> tuple[int, str]:
        rc = main(list(args))
        out, err = capsys.readouterr()
        assert rc == 0, err
        return rc, out

    cache = str(tmp_path / "sel-cache")
    for runner in ("cpu", "cuda", "privateuse1"):
        # the parallel cold run fills the cache with the runner's selection, which every format prints
        parallel_cold = hwselect(
            runner, str(corpus), "--format", "nodeids", "-q", "--cache-dir", cache, "--jobs", "2"
        )
        for fmt in ("nodeids", "json", "k"):
            base = [runner, str(corpus), "--format", fmt, "-q"]
            cold = hwselect(*base, "--no-cache", "--jobs", "1")
            warm = hwselect(*base, "--cache-dir", cache)
            assert cold[1] and cold == warm
            if fmt == "nodeids":
                assert cold == parallel_cold
    matrix = ["--format", "matrix", "--shards", "2", str(corpus), "-q"]
    assert hwselect(*matrix, "--no-cache") == hwselect(*matrix, "--cache-dir", cache)


def test_a_worker_frees_each_tree_when_it_starts_the_next_file(tmp_path, monkeypatch, taxonomy):
    """In a pool's worker the tree of a file outlives its result, and is freed before the next
    file is read: never two trees at once."""
    import weakref

    from hwlint.model import syntax
    from hwlint.pipeline import engine
    from hwlint.pipeline.check import check_analysis
    from hwlint.pipeline.config import Config
    from hwlint.pipeline.session import RunOptions, Session

    files = []
    for name in ("test_a.py", "test_b.py"):
        files.append(tmp_path / name)
        files[-1].write_text("class TestA:\n    def test_x(self):\n        pass\n")
    monkeypatch.setattr(syntax, "_deferred", None)
    syntax.defer_frees()  # as the worker's initializer does
    analysis = check_analysis(Session.from_config(Config(), RunOptions(no_cache=True), taxonomy))
    monkeypatch.setattr(engine, "_worker", engine._Worker((taxonomy, analysis, MAX_FILE_BYTES, NONE_GIVEN)))
    kept = []
    real_read = engine.read_stamped

    def read(path, *args, **kw):
        kept.append([weakref.ref(tree) for tree in syntax._deferred])
        return real_read(path, *args, **kw)

    monkeypatch.setattr(engine, "read_stamped", read)
    first = engine._task(str(files[0]))
    assert [f.code for f in first[1][0]] == ["HWC001"]
    assert len(syntax._deferred) == 1  # the result is back, its tree still alive
    tree = weakref.ref(syntax._deferred[0])
    engine._task(str(files[1]))
    assert kept == [[], []]  # each file read with no tree kept
    assert tree() is None and len(syntax._deferred) == 1
