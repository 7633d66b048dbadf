"""Shared fixtures: the repository's taxonomies and a way to run the installed console scripts."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hwlint.taxonomy import Taxonomy, load_taxonomy

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
DEFAULT_TAXONOMY = ROOT / "taxonomy.yaml"
STRICT_TAXONOMY = EXAMPLES / "taxonomy-strict.yaml"
VENDOR_TAXONOMY = EXAMPLES / "taxonomy-vendor.yaml"

# test_*.py files under fixtures/ are checked, never collected (they import each other as modules)
collect_ignore_glob = ["fixtures/*"]


def pytest_collection_modifyitems(config, items):
    """The tests marked slow first: xdist's workers start on them and share the short ones after,
    rather than one worker finishing a 15-second test alone at the end of the run."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(scope="session")
def taxonomy() -> Taxonomy:
    return load_taxonomy(DEFAULT_TAXONOMY)


@pytest.fixture(scope="session")
def strict_taxonomy() -> Taxonomy:
    return load_taxonomy(STRICT_TAXONOMY)


@pytest.fixture(scope="session")
def vendor_taxonomy() -> Taxonomy:
    return load_taxonomy(VENDOR_TAXONOMY)


# hwlint's own commands run in the test's process (an interpreter start and hwlint's imports cost
# more than most of the runs they serve); HWLINT_TEST_SUBPROCESS=1 runs them as the installed
# console scripts instead. tests/test_packaging.py and the CLI tests that need a real process (the
# entry point, a broken pipe) start one themselves.
_IN_PROCESS = {"hwlint": "hwlint.cli.check", "hwselect": "hwlint.cli.select"}


#: console scripts run as a module of this interpreter when the script is not next to it
_AS_MODULE = {"flake8": "flake8", "pre-commit": "pre_commit"}


def run_tool(
    *args: str, cwd: Path | str | None = None, input: str | None = None
) -> subprocess.CompletedProcess:
    """Run a console script installed next to this interpreter (hwlint, hwselect, flake8, ...)."""
    if args[0] in _IN_PROCESS and not os.environ.get("HWLINT_TEST_SUBPROCESS"):
        return _run_in_process(args[0], list(args[1:]), cwd, input)
    exe = Path(sys.executable).parent / args[0]
    if exe.exists():
        cmd = [str(exe), *args[1:]]
    elif args[0] in _AS_MODULE:  # installed in the system site packages: a flake8 found on PATH
        cmd = [sys.executable, "-m", _AS_MODULE[args[0]], *args[1:]]  # may load another hwlint
    else:
        cmd = list(args)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    return subprocess.run(cmd, cwd=cwd, input=input, capture_output=True, text=True, env=env, timeout=300)


def _run_in_process(name: str, argv: list[str], cwd, input: str | None) -> subprocess.CompletedProcess:
    """``name argv`` as its console script runs it, in this process: same exit code and output."""
    import contextlib
    import importlib
    import io

    main = importlib.import_module(_IN_PROCESS[name]).main
    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_stdin = dict(os.environ), os.getcwd(), sys.stdin
    os.environ.update({"PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"})
    sys.stdin = io.StringIO(input or "")
    try:
        os.chdir(cwd or saved_cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:  # argparse's usage errors and --help
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if isinstance(e.code, str):
                    err.write(e.code + "\n")
    finally:
        os.chdir(saved_cwd)
        sys.stdin = saved_stdin
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess([name, *argv], rc, out.getvalue(), err.getvalue())


def property_examples(default: int) -> int:
    """How many examples a property test draws: *default* (kept small, so the suite stays fast), or
    every property test's count in the long mode, ``HWLINT_PROPERTY_EXAMPLES=5000 python -m pytest``."""
    return int(os.environ.get("HWLINT_PROPERTY_EXAMPLES", default))


_MARK = re.compile(r"\b(HWC\d{3})(?:\[(!?\w+)\])?")


def expected(path: Path, taxonomy: str = "default") -> set[tuple[int, str]]:
    """(line, code) pairs marked in *path*'s trailing comments: `# HWC001`, `# HWC104[strict]`
    (only under that taxonomy) or `# HWC002[!vendor]` (under every other one)."""
    out = set()
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        if line.lstrip().startswith("#"):
            continue  # whole-line comments describe; trailing comments mark
        comment = line.partition("#")[2]
        for code, only in _MARK.findall(comment):
            if not only or only == taxonomy or (only.startswith("!") and only[1:] != taxonomy):
                out.add((lineno, code))
    return out


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_setupnodes(config, specs):
    """pytest-xdist (3.8) writes its status line when the workers start and again when they have
    collected; without a terminal and under ``-q`` both are its fallback text, so `pytest -q`
    printed "bringing up nodes..." twice. Say it once."""
    reporter = config.pluginmanager.getplugin("terminaldistreporter")
    if reporter is None or config.option.verbose >= 0 or getattr(reporter, "_hwlint_once", False):
        return
    shown = []
    original = reporter.ensure_show_status

    def once() -> None:
        if not shown:
            shown.append(True)
            original()

    reporter.ensure_show_status = once
    reporter._hwlint_once = True


@pytest.fixture(scope="session", autouse=True)
def _torch_with_the_enum(tmp_path_factory):
    """Every test's temporary tree sits in a checkout of a torch that defines the enum: a fix
    imports it as ``from torch.testing._internal.common_utils import HardwareClassification``
    (hwlint.edits.torch_enum reads the nearest checkout first), whatever torch is installed, so
    the expected texts hold everywhere. A test of the other form lays a torch without the enum
    nearer to its files (:func:`torch_checkout`)."""
    torch_checkout(tmp_path_factory.getbasetemp(), enum=True)


def torch_checkout(root: Path, enum: bool) -> Path:
    """*root* made a checkout of a torch whose ``common_utils.py`` defines the enum or not."""
    module = root / "torch" / "testing" / "_internal" / "common_utils.py"
    module.parent.mkdir(parents=True, exist_ok=True)
    body = (
        "class HardwareClassification(Enum):\n    GENERIC = 'generic'\n"
        if enum
        else "class TestCase:\n    pass\n"
    )
    module.write_text(f"from enum import Enum\n\n\n{body}")
    return module


ENUM_NOTE = "hwlint: where a fix imports the enum, it writes "


def without_enum_note(stderr: str) -> str:
    """*stderr* of a fixing run without the line that says which import of the enum the fixes
    wrote (its wording and evidence are pinned by test_fix and test_torch_enum)."""
    return "".join(line for line in stderr.splitlines(keepends=True) if not line.startswith(ENUM_NOTE))


@pytest.fixture(autouse=True)
def _forget_planted_modules(tmp_path_factory):
    """Modules a test imported from its own temporary tree (a planted ``helpers.py``) leave
    ``sys.modules`` with the test: another test's ``helpers`` must not be found in their place."""
    before = set(sys.modules)
    yield
    base = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        if (getattr(sys.modules.get(name), "__file__", None) or "").startswith(base):
            del sys.modules[name]
