"""Where the floor is: a cold check against upstream's TEST_LINTER, with parts of hwlint taken out.

    python benchmarks/floors.py --tree pytorch-v2.6.0/test --peer PATH/tools/linter/adapters/test_linter.py
    python benchmarks/floors.py --tree DIR --peer PATH --rounds 5

benchmarks/run.py holds hwlint to its targets; this says what stands between a target and hwlint.
On the tree as given and on the tree after ``hwlint check --fix --unsafe-fixes`` (the migrated
tree), it times, alternately in each round, the peer (every ``.py`` file, through an ``@`` file) and
three cold checks with a cache of their own:

* ``as shipped``: ``hwlint check``, as run.py times it;
* ``without the device scan``: the same run with the model built as hwselect builds it, no class
  scanned for device uses (the evidence that the inference, HWC004, HWC204, HWC301 and HWC302
  read: those rules then find nothing, and an undeclared class is inferred from its other facts);
* ``parse only``: hwlint's pipeline (discovery, the pool, reading, the cache, the cross-file phase,
  the report) with each file parsed, freed, and nothing else: the floor of any model.

Then, in one process as run.py's one-process row measures it, the check per file as a multiple of
its parse, as shipped and without the device scan. The parts are taken out by patching hwlint in the
process that runs it (a ``python -c`` launcher); nothing is written outside a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import ONE_PROCESS, tool

# Code run ahead of hwlint in the launched process; the pool's workers are forked from it.
WITHOUT_SCAN = """
import hwlint.model.build as _build
_init = _build.Builder.__init__
def _without_scan(self, *args, **kwargs):
    kwargs["devices"] = False
    _init(self, *args, **kwargs)
_build.Builder.__init__ = _without_scan
"""
PARSE_ONLY = """
import ast as _ast
import hwlint.pipeline.check as _check
from hwlint.model import syntax as _syntax
def _parse_only(path, data, taxonomy, selection=None, noqa=True):
    try:
        _syntax.defer_free(_ast.parse(data, path))  # freed as hwlint's workers free a tree
    except (SyntaxError, ValueError):
        pass
    return [], None
_check.check_path = _parse_only
"""
LAUNCH = "\nfrom hwlint.cli.check import console\nconsole()\n"
VARIANTS = {"as shipped": None, "without the device scan": WITHOUT_SCAN, "parse only": PARSE_ONLY}


def wall(cmd: list[str]) -> float:
    """*cmd*'s wall time; a failed run (a patch that no longer finds what it patches) stops the
    benchmark rather than time an error."""
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"failed (exit {done.returncode}): {' '.join(cmd)[:200]}\n{done.stderr.decode()[-2000:]}")
    return elapsed


def against_peer(peer: Path, tree: Path, work: Path, rounds: int, label: str) -> None:
    listing = work / "peer-files.txt"
    listing.write_text("".join(f"{p}\n" for p in sorted(tree.rglob("*.py"))))
    cache = work / "cache"
    commands = {"TEST_LINTER (peer)": [sys.executable, str(peer), f"@{listing}"]}
    for name, patch in VARIANTS.items():
        options = ["check", "-q", "--exit-zero", "--cache-dir", str(cache), str(tree)]
        head = [tool("hwlint")] if patch is None else [sys.executable, "-c", patch + LAUNCH]
        commands[f"hwlint check, cold, {name}"] = head + options
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            shutil.rmtree(cache, ignore_errors=True)
            times[name].append(wall(cmd))
    peer_time = statistics.median(times["TEST_LINTER (peer)"])
    print(f"{label}:")
    for name, found in times.items():
        median = statistics.median(found)
        print(f"  {name:<48} {median:7.3f} s  {median / peer_time:5.2f}x the peer")


def one_process(tree: Path, rounds: int) -> None:
    print("in one process, per file (CPU), the median of each round's ratio:")
    for name, patch in (("as shipped", ""), ("without the device scan", WITHOUT_SCAN)):
        ratios = []
        for _ in range(rounds):
            out = subprocess.check_output([sys.executable, "-c", patch + ONE_PROCESS, str(tree)])
            parse, check = (float(x) for x in out.split())
            ratios.append(check / parse)
        print(f"  {'check, ' + name:<48} {statistics.median(ratios):5.2f}x the parse")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="the test tree")
    parser.add_argument("--peer", type=Path, required=True, help="upstream's test_linter.py, to time")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    # as run.py does: every variant runs from compiled bytecode, not paying to compile hwlint
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([tool("hwlint"), "check", "--no-cache", "--exit-zero", "-q", __file__], check=False)
    work = Path(tempfile.mkdtemp(prefix="hwlint-floors-"))
    try:
        tree = work / "tree"
        shutil.copytree(args.tree.resolve(), tree, symlinks=True)  # the tree given is never written
        against_peer(args.peer, tree, work, args.rounds, "the tree as given")
        migrated = work / "migrated"
        shutil.copytree(tree, migrated, symlinks=True)
        fix = [
            tool("hwlint"),
            "check",
            "-q",
            "--exit-zero",
            "--no-cache",
            "--fix",
            "--unsafe-fixes",
            str(migrated),
        ]
        subprocess.run(fix, capture_output=True, check=False)
        against_peer(args.peer, migrated, work, args.rounds, "the migrated tree")
        one_process(tree, args.rounds)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
