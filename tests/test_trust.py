"""Issue 26, as an attacker's pull request would commit it: each test plants the reproduction in a
tree and checks the promised outcome (see docs/guarantees.md, which names each test)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.model import split_lines
from hwlint.model.noqa import directive, noqa_directives

from .conftest import run_tool

HEADER = (
    "import enum\n"
    "from unittest import TestCase\n"
    "\n"
    "try:\n"
    "    from torch.testing._internal.common_utils import HardwareClassification\n"
    "except ImportError:\n"
    "    HardwareClassification = enum.Enum(\n"
    "        'HardwareClassification', 'GENERIC ACCELERATOR CPU CUDA MPS XPU'\n"
    "    )\n"
    "\n\n"
)
UNDECLARED = HEADER + "class TestB(TestCase):\n    def test_x(self):\n        pass\n"
CLASS_LINE = HEADER.count("\n") + 1


def _check(tree: Path, *args: str) -> subprocess.CompletedProcess:
    return run_tool("hwlint", "check", "--no-cache", *args, ".", cwd=tree)


# -- 3. noqa is a comment token, in the syntax both ruff and flake8 read --------------------------


@pytest.mark.parametrize(
    "header",
    [
        'class TestB(TestCase if "#noqa" else object):',
        "class TestB(TestCase if '# noqa' else object):",
        "class TestB(TestCase):  # docs: https://wiki.example/hw#noqa-policy",
        'class TestB(TestCase, doc=f"{1}# noqa"):',
    ],
)
def test_noqa_in_a_string_or_a_url_hides_nothing(tmp_path, header):
    (tmp_path / "test_b.py").write_text(UNDECLARED.replace("class TestB(TestCase):", header))
    res = _check(tmp_path)
    assert res.returncode == 1, res.stdout
    assert f"test_b.py:{CLASS_LINE}:1: HWC001" in res.stdout


def test_a_real_noqa_still_suppresses(tmp_path):
    (tmp_path / "test_b.py").write_text(UNDECLARED.replace("(TestCase):", "(TestCase):  # noqa: HWC001"))
    assert _check(tmp_path).returncode == 0


# Comments as a pull request may write them; each is compared with what ruff and flake8 really do.
COMMENTS = [
    "# noqa",
    "#noqa",
    "#  noqa",
    "#\tnoqa",
    "# NOQA",
    "# NoQa:F401",
    "# noqa:F401",
    "# noqa: F401",
    "# noqa:  F401",
    "# noqa : F401",
    "# noqa  F401",
    "# noqa: F401 reason",
    "# noqa: F401,E501",
    "# noqa: E501, F401",
    "# noqa: E501 F401",
    "# noqa: E501",
    "# noqa: f401",
    "# noqa:HWC",
    "# noqa:",
    "# noqa-policy",
    "# noqaXYZ",
    "# noqa;F401",
    "# noqa:F401abc",
    "# noqa: F401.",
    "# noqa: E501,F401x",
    "# noqa:F401F402",
    "# noqa: ,F401",
    "# noqa: F401#x",
    "# noqa # F401",
    "# first # noqa",
    "# see # noqa: F401",
    "# a #noqa: F401",
    "# hw#noqa-policy",
    "# hw#noqa policy",
    "# docs: https://wiki.example/hw#noqa-policy",
    "# xnoqa",
    "# noqa: F401 # noqa: E501",
    "# noqa: E501 # noqa: F401",
]


def test_noqa_syntax_is_what_both_ruff_and_flake8_read(tmp_path):
    """A comment suppresses a code in hwlint exactly when both real tools suppress it (F401 stands
    for any code: both tools' syntax is the same for every code)."""
    source = "".join(f"import m{i}  {c}\n" for i, c in enumerate(COMMENTS))
    (tmp_path / "t.py").write_text(source)

    def reported(cmd: list[str]) -> set[int]:
        out = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True).stdout
        return {int(line.split(":")[1]) for line in out.splitlines() if line.startswith("t.py:")}

    ruff = reported(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--output-format",
            "concise",
            "--select",
            "F401",
            "t.py",
        ]
    )
    flake8 = reported([sys.executable, "-m", "flake8", "--isolated", "--select", "F401", "t.py"])
    assert len(ruff) > 10 and len(flake8) > 10  # both tools ran
    ours = dict(noqa_directives(split_lines(source), ast.parse(source)))
    for row, comment in enumerate(COMMENTS, 1):
        codes = ours.get(row)
        silenced = codes is not None and (not codes or any("F401".startswith(c) for c in codes))
        assert silenced == (row not in ruff and row not in flake8), (comment, row in ruff, row in flake8)


def test_a_code_prefix_still_suppresses_the_codes_it_starts():
    assert directive("# noqa: HWC2") == ("HWC2",)
    assert directive("# noqa : HWC001") == ("HWC001",)  # flake8: blanket; ruff: HWC001
    assert directive("# noqa: HWC0, HWC001") == ("HWC0", "HWC001")


def test_add_noqa_never_writes_into_a_string(tmp_path):
    """The class line ends inside a string: a comment appended there would change the string and
    silence nothing. The line is left, with a warning, and the run exits 1."""
    source = UNDECLARED.replace("class TestB(TestCase):", 'class TestB(TestCase, doc="""\n#x""" ):')
    (tmp_path / "test_b.py").write_text(source)
    res = _check(tmp_path, "--add-noqa")
    assert res.returncode == 1
    assert f"test_b.py:{CLASS_LINE}: a noqa comment cannot go on this line" in res.stderr
    assert (tmp_path / "test_b.py").read_text() == source


def test_add_noqa_adds_a_directive_that_reads_as_one(tmp_path):
    """After a comment whose own ``#noqa-policy`` ruff takes for a broken directive (so that ruff
    would read no directive appended after it), the directive goes first."""
    source = UNDECLARED.replace("(TestCase):", "(TestCase):  # see hw#noqa-policy")
    (tmp_path / "test_b.py").write_text(source)
    assert _check(tmp_path, "--add-noqa").returncode == 0
    text = (tmp_path / "test_b.py").read_text()
    assert "class TestB(TestCase):  # noqa: HWC001  # see hw#noqa-policy\n" in text
    assert _check(tmp_path).returncode == 0


# -- 12. the bytes written are checked, and one bad file never stops the run ----------------------


def _compiles(path: Path) -> bool:
    try:
        compile(path.read_bytes(), str(path), "exec")
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize("mode", [["--fix"], ["--add-noqa"], ["--diff"]])
def test_an_encoding_that_does_not_round_trip_is_refused_and_the_others_fixed(tmp_path, mode):
    for codec in ("mac_arabic", "mac_farsi", "idna"):
        (tmp_path / f"test_{codec}.py").write_bytes(f"# coding: {codec}\n{UNDECLARED}".encode("ascii"))
    (tmp_path / "test_ok.py").write_text(UNDECLARED)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    res = _check(tmp_path, *mode)
    assert "internal error" not in res.stderr
    for codec in ("mac_arabic", "mac_farsi", "idna"):
        path = tmp_path / f"test_{codec}.py"
        assert path.read_bytes() == before[path.name], codec
        assert _compiles(path)
        assert f"test_{codec}.py: the fixed" in res.stderr, res.stderr
    ok = tmp_path / "test_ok.py"
    if mode == ["--diff"]:
        assert res.returncode == 1 and "+++ test_ok.py" in res.stdout
        assert ok.read_bytes() == before["test_ok.py"]
    else:
        assert ok.read_bytes() != before["test_ok.py"] and _compiles(ok)
        assert res.returncode == 1  # the three refused files keep their findings
        assert "fixed 1 error" in res.stderr or "Added 1 noqa directive." in res.stderr


# -- 14. names that display as others; bytes CPython reads in comments ----------------------------

DISPLAY_TRAPS = ["\u202e", "\u200b", "\u2066", "\u200f", "\ufeff", "\u00ad", "\U000e0041", "\u3164"]


@pytest.mark.parametrize("fmt", ["concise", "full", "github"])
def test_bidi_and_zero_width_characters_in_names_are_escaped(tmp_path, fmt):
    for i, trap in enumerate(DISPLAY_TRAPS):
        (tmp_path / f"test_{i}{trap}gnp.py").write_text(UNDECLARED.replace("TestB", f"TestB{i}"))
    res = _check(tmp_path, "--output-format", fmt)
    assert res.returncode == 1
    for trap in DISPLAY_TRAPS:
        assert trap not in res.stdout
        assert trap.encode("unicode_escape").decode() in res.stdout


@pytest.mark.parametrize("fmt", ["markdown", "table"])
def test_bidi_and_zero_width_characters_in_report_paths_are_escaped(tmp_path, fmt):
    for i, trap in enumerate(DISPLAY_TRAPS):
        sub = tmp_path / f"d{i}{trap}"
        sub.mkdir()
        (sub / f"test_{i}{trap}.py").write_text(UNDECLARED)
    res = run_tool("hwlint", "report", "--no-cache", "--depth", "1", "--format", fmt, ".", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    for trap in DISPLAY_TRAPS:
        assert trap not in res.stdout
        assert trap.encode("unicode_escape").decode() in res.stdout


STRAY_BYTES = {
    "a comment on line 1": b"# caf\xe9\n" + UNDECLARED.encode(),
    "a comment on line 2": b"#!/usr/bin/env python\n# caf\xe9\n" + UNDECLARED.encode(),
    "a trailing comment": UNDECLARED.replace("(TestCase):", "(TestCase):  # r\xe9sum\xe9").encode("latin-1"),
    "a truncated sequence in a comment": UNDECLARED.encode() + b"# \xc3\n",
    "an encoded surrogate in a comment": UNDECLARED.encode() + b"# \xed\xa0\x80\n",
    "a comment after a BOM": b"\xef\xbb\xbf# \xff\n" + UNDECLARED.encode(),
    "a string": UNDECLARED.replace("pass", "x = 'caf\xe9'").encode("latin-1"),
    "a docstring": UNDECLARED.replace("pass", '"""caf\xe9"""').encode("latin-1"),
    "a name": UNDECLARED.replace("test_x", "test_\xe9").encode("latin-1"),
    "a comment under a utf-8 cookie": b"# coding: utf-8\n# caf\xe9\n" + UNDECLARED.encode(),
    "a cookie line": b"# caf\xe9 coding: latin-1\n" + UNDECLARED.encode(),
}


@pytest.mark.parametrize("name", list(STRAY_BYTES))
def test_bytes_that_are_not_utf8_are_hwc901_exactly_when_cpython_refuses_them(tmp_path, name):
    data = STRAY_BYTES[name]
    try:
        compile(data, "test_b.py", "exec", dont_inherit=True)
        refused = False
    except SyntaxError:
        refused = True
    (tmp_path / "test_b.py").write_bytes(data)
    res = _check(tmp_path)
    assert res.returncode == 1
    assert ("HWC901" in res.stdout) == refused, res.stdout
    assert ("HWC001" in res.stdout) == (not refused), res.stdout


def test_a_fix_keeps_stray_bytes_in_comments(tmp_path):
    data = STRAY_BYTES["a trailing comment"]
    (tmp_path / "test_b.py").write_bytes(data)
    assert _check(tmp_path, "--fix").returncode == 0
    fixed = (tmp_path / "test_b.py").read_bytes()
    assert b"# r\xe9sum\xe9\n    hw_classification = HardwareClassification.GENERIC\n" in fixed
    assert fixed.replace(b"    hw_classification = HardwareClassification.GENERIC\n\n", b"") == data
    compile(fixed, "test_b.py", "exec")


# -- 8. a symlinked "test file" never leaks what it points to -------------------------------------


def test_symlinks_to_secrets_are_hwc901_and_never_echoed(tmp_path):
    """A pull request commits ``test_env.py -> /proc/self/environ`` and ``test_netrc.py ->
    ~/.netrc``; CI runs ``hwlint check --output-format full`` (and the lintrunner adapter)."""
    home, tree = tmp_path / "home", tmp_path / "tree"
    home.mkdir()
    tree.mkdir()
    (home / ".netrc").write_text("machine example.com login ci password NETRC_SECRET_4711\n")
    (tree / "test_env.py").symlink_to("/proc/self/environ")
    (tree / "test_netrc.py").symlink_to(home / ".netrc")
    (tree / "test_ok.py").write_text(UNDECLARED)
    (tree / "test_link_in.py").symlink_to(tree / "test_ok.py")  # inside the tree: read
    env = {**os.environ, "ENV_SECRET": "ENV_SECRET_0815", "HOME": str(home)}
    for cmd in (
        [sys.executable, "-m", "hwlint", "check", "--no-cache", "--output-format", "full", "."],
        [sys.executable, "-m", "hwlint.lintrunner", "--", "test_env.py", "test_netrc.py", "test_link_in.py"],
    ):
        res = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, env=env)
        out = res.stdout + res.stderr
        assert "ENV_SECRET_0815" not in out and "NETRC_SECRET_4711" not in out
        assert "test_env.py" in out and "a symlink to a special file; not read" in out
        assert "test_netrc.py" in out and "a symlink to a file outside the checked tree; not read" in out
        assert "test_link_in.py" in out and "HWC001" in out
    res = run_tool("hwselect", "cpu", "--no-cache", ".", cwd=tree)
    summary = "2 files hwselect cannot read, e.g. test_env.py: cannot read: a symlink to a special file"
    assert summary in res.stderr
    res = run_tool("hwselect", "cpu", "--no-cache", "--verbose", ".", cwd=tree)
    assert "test_netrc.py: cannot read: a symlink to a file outside the checked tree" in res.stderr
    assert "ENV_SECRET_0815" not in res.stderr and "NETRC_SECRET_4711" not in res.stderr


def test_a_symlink_inside_another_checked_tree_is_read(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / "test_real.py").write_text(UNDECLARED)
    (a / "test_link.py").symlink_to(b / "test_real.py")
    alone = run_tool("hwlint", "check", "--no-cache", str(a))
    assert (
        "test_link.py:1:1: HWC901 Cannot check file: a symlink to a file outside the checked tree"
        in alone.stdout
    )
    both = run_tool("hwlint", "check", "--no-cache", str(a), str(b))
    assert both.stdout.count("HWC001") == 2 and "HWC901" not in both.stdout, both.stdout


def test_the_trees_a_link_may_point_into_are_the_runs_own_never_the_process(tmp_path, taxonomy):
    """The trees a symlink is read into belong to a run's session (issue 51): a process that ran
    over ``a`` and ``b`` (a long-lived flake8, pytest or library process) reads no link into ``b``
    in a later run given ``a`` alone, and a session that discovers more trees reads into them too."""
    from hwlint.pipeline.check import check_project
    from hwlint.pipeline.config import Config
    from hwlint.pipeline.session import RunOptions, Session

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (b / "test_real.py").write_text(UNDECLARED)
    (a / "test_link.py").symlink_to(b / "test_real.py")
    link = [str(a / "test_link.py")]

    def codes(session: Session) -> list[str]:
        return [f.code for f in check_project(link, session).findings[0]]

    def session(paths: list[str]) -> Session:
        return Session.from_config(Config(root=tmp_path), RunOptions(1, no_cache=True), taxonomy, paths=paths)

    assert codes(session([str(a), str(b)])) == ["HWC001"]
    alone = session([str(a)])
    assert codes(alone) == ["HWC901"]
    assert codes(alone.reading([str(b)])) == ["HWC001"]
    assert codes(alone) == ["HWC901"]  # reading more made a new session: this one is unchanged


# -- 13. exit codes that tell the truth ------------------------------------------------------------


@pytest.mark.slow  # the console scripts as processes, piped
def test_a_reader_that_stops_early_does_not_turn_findings_into_success(tmp_path):
    many = "".join(f"class Test{i}(TestCase):\n    def test_x(self):\n        pass\n\n" for i in range(2000))
    (tmp_path / "test_many.py").write_text(HEADER + many)
    (tmp_path / "clean").mkdir()
    for args in ([], ["--output-format", "full"], ["--output-format", "json"], ["--statistics"], ["--diff"]):
        command = f"{sys.executable} -m hwlint check --no-cache {' '.join(args)} ."
        script = f"set -o pipefail; {command} | head -c10 >/dev/null"
        res = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
        assert res.returncode == 1, (args, res.stderr)
        assert "Traceback" not in res.stderr and "Exception ignored" not in res.stderr
    script = f"set -o pipefail; {sys.executable} -m hwlint check --no-cache . | head -c10 >/dev/null"
    assert subprocess.run(["bash", "-c", script], cwd=tmp_path / "clean").returncode == 0


def test_add_noqa_that_writes_nothing_exits_1(tmp_path, monkeypatch):
    (tmp_path / "test_b.py").write_text(UNDECLARED)
    import hwlint.fix.write as write

    monkeypatch.setattr(
        write, "write_if_unchanged", lambda *a, **k: "cannot write the fixed file: No space left"
    )
    res = _check(tmp_path, "--add-noqa")
    assert res.returncode == 1
    assert "test_b.py: cannot write the fixed file: No space left" in res.stderr
    assert "Added 0 noqa directives." in res.stderr


def test_the_lintrunner_adapter_names_a_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    res = subprocess.run(
        [sys.executable, "-m", "hwlint.lintrunner", "--", "sub"], cwd=tmp_path, capture_output=True, text=True
    )
    [msg] = [json.loads(line) for line in res.stdout.splitlines()]
    assert res.returncode == 0
    assert (msg["path"], msg["name"]) == ("sub", "HWC901")
    assert msg["description"].startswith("Cannot check file: Is a directory.")


# ru_maxrss survives exec on Linux (a child of a big pytest worker starts "big"): VmHWM does not
PEAK = (
    "def _peak_kb():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            return int(line.split()[1])\n"
)


# -- 6. a cache key that came with the code is not ours --------------------------------------------


def _plant_signed_cache(tree: Path, key: bytes, files: list[Path]) -> None:
    """What the pull request commits beside its key: a cache signed with it, saying that each of
    *files*, as it is, has no findings."""
    from hwlint.model.source import MAX_FILE_BYTES
    from hwlint.pipeline.cache import Cache, content_hash
    from hwlint.taxonomy import load_taxonomy

    cache = Cache(tree / ".hwlint_cache", load_taxonomy().digest)
    cache._key = key
    for f in files:
        cache.store(str(f), content_hash(f.read_bytes()), f"check:max-bytes={MAX_FILE_BYTES}", ([], None))
    cache.save()


def test_a_cache_key_committed_into_the_checkout_is_refused(tmp_path, monkeypatch):
    """CI with ``XDG_CACHE_HOME`` (or ``HOME``) in its workspace: the pull request commits
    ``.cache/hwlint/cache-key`` and a cache signed with it. Without the refusal the run passes."""
    tree = tmp_path / "repo"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("[tool.hwlint]\n")
    (tree / "test_b.py").write_text(UNDECLARED)
    key_path = tree / ".cache" / "hwlint" / "cache-key"
    key_path.parent.mkdir(parents=True)
    key_path.write_bytes(b"k" * 32)
    key_path.chmod(0o600)  # git would check it out 0644; the tree alone is reason enough
    _plant_signed_cache(tree, b"k" * 32, [tree / "test_b.py"])
    monkeypatch.setenv("XDG_CACHE_HOME", str(tree / ".cache"))
    monkeypatch.delenv("HWLINT_CACHE_KEY_FILE", raising=False)

    from hwlint.roots import Trees

    with monkeypatch.context() as m:  # the attack, were the key's place not checked
        m.setattr(Trees, "checked", lambda self: frozenset())
        assert run_tool("hwlint", "check", ".", cwd=tree).stdout == "All checks passed!\n"
    res = run_tool("hwlint", "check", ".", cwd=tree)
    assert res.returncode == 1 and f"test_b.py:{CLASS_LINE}:1: HWC001" in res.stdout
    assert "cache key not used, the cache is off" in res.stderr and "inside the checked tree" in res.stderr


@pytest.mark.parametrize(
    "kind", ["dev-zero-link", "dev-zero", "fifo", "mode-0644", "oversized", "other-user"]
)
def test_a_key_that_is_not_a_private_regular_file_is_refused_at_no_cost(tmp_path, kind):
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    key = keys / "cache-key"
    if kind == "dev-zero-link":
        key.symlink_to("/dev/zero")
    elif kind == "dev-zero":
        key = Path("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(key, 0o600)
    elif kind == "mode-0644":
        key.write_bytes(b"k" * 32)
        key.chmod(0o644)
    elif kind == "oversized":
        key.write_bytes(b"k" * 100_000)
        key.chmod(0o600)
    else:
        if os.geteuid() != 0:
            pytest.skip("needs root to give the key to another user")
        key.write_bytes(b"k" * 32)
        key.chmod(0o600)
        os.chown(key, 65534, 65534)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "test_b.py").write_text(UNDECLARED)
    code = (
        f"import sys\n{PEAK}"
        "from hwlint.cli.check import main\n"
        "rc = main(['check', '.'])\n"
        "print(_peak_kb(), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    env = {**os.environ, "HWLINT_CACHE_KEY_FILE": str(key)}
    res = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path / "tree",
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert res.returncode == 1 and "HWC001" in res.stdout
    assert "cache key not used, the cache is off" in res.stderr
    assert int(res.stderr.splitlines()[-1]) < 300_000  # KB: nothing read from /dev/zero
    assert not (tmp_path / "tree" / ".hwlint_cache").exists() or not list(
        (tmp_path / "tree" / ".hwlint_cache").glob("*.json")
    )


# -- 10. a planted store is bounded before it is read ----------------------------------------------


def test_a_huge_planted_cache_file_is_not_read(tmp_path):
    from hwlint.model.source import MAX_FILE_BYTES
    from hwlint.pipeline.cache import Cache
    from hwlint.taxonomy import load_taxonomy

    (tmp_path / "test_b.py").write_text(UNDECLARED)
    store = Cache(tmp_path / ".hwlint_cache", load_taxonomy().digest).path_for(
        f"check:max-bytes={MAX_FILE_BYTES}"
    )
    store.parent.mkdir()
    with open(store, "wb") as f:  # 4 GB, sparse: the size is what matters
        f.truncate(4 * 1024**3)
    code = (
        f"import sys\n{PEAK}"
        "from hwlint.cli.check import main\n"
        "rc = main(['check', '.'])\n"
        "print(_peak_kb(), file=sys.stderr)\n"
        "sys.exit(rc)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 1 and "HWC001" in res.stdout
    assert int(res.stderr.splitlines()[-1]) < 300_000  # KB
    assert store.stat().st_size < 1024**2  # replaced by the run's own


# -- 13. the cache directory's markers survive a full disk ------------------------------------------


def test_markers_left_empty_by_a_full_disk_are_written_again(tmp_path):
    (tmp_path / "test_b.py").write_text(UNDECLARED)
    cache_dir = tmp_path / ".hwlint_cache"
    cache_dir.mkdir()
    (cache_dir / ".gitignore").write_text("")  # what a write that ran out of space left
    (cache_dir / "CACHEDIR.TAG").write_text("")
    assert run_tool("hwlint", "check", ".", cwd=tmp_path).returncode == 1
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache_dir / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


@pytest.fixture
def small_disk(tmp_path):
    """A 64 KB tmpfs (root only)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)], capture_output=True)
    if res.returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_leaves_no_empty_marker(tmp_path, small_disk):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "test_b.py").write_text(UNDECLARED)
    (small_disk / "filler").write_bytes(b"x" * 60 * 1024)  # what is left cannot hold a store
    cache_dir = small_disk / "cache"
    cache_dir.mkdir()
    res = run_tool("hwlint", "check", "--cache-dir", str(cache_dir), ".", cwd=tmp_path / "tree")
    assert res.returncode == 1 and "HWC001" in res.stdout and "internal error" not in res.stderr
    for name in (".gitignore", "CACHEDIR.TAG"):  # written whole, or not at all
        assert not (cache_dir / name).exists() or (cache_dir / name).stat().st_size > 0
    (small_disk / "filler").unlink()
    assert (
        run_tool("hwlint", "check", "--cache-dir", str(cache_dir), ".", cwd=tmp_path / "tree").returncode == 1
    )
    assert (cache_dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert list(cache_dir.glob("*.json"))
