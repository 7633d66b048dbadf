"""Do hwlint's front ends report the same findings on a real tree? (docs/integrations.md, issue 28)

    python benchmarks/agree.py --out /tmp/agree
    python benchmarks/agree.py --tree /work/pt/src/pytorch-v2.6.0/test --out /tmp/agree -j 2
    python benchmarks/agree.py --out /tmp/agree --reuse          # keep the copy made before

Makes a git repository OUT/pytorch holding a copy of the tree as ``test/`` (the original is never
written), with the checkout's own ``.flake8`` and ``pyproject.toml`` when the tree's parent has
them, the ``[tool.hwlint]`` table of ``examples/pytorch/pyproject.toml`` added to that
``pyproject.toml`` (as that file says to do) and ``examples/.pre-commit-config.yaml`` (the
documented local hook), all committed. Then, from its root, with the hwlint, flake8 and pre-commit
of this interpreter's environment:

* ``hwlint check test`` (one run over the tree);
* ``flake8 --select HWC test`` (``-j`` processes, as a user runs it);
* ``pre-commit run --all-files`` (the shipped hook);
* ``hwlint check FILE``, one process per file that the tree run checks (``--show-files``), and per
  ``.py`` file flake8 reads that the tree run does not check, each with ``--force-exclude`` as the
  hook runs it (a file named alone is otherwise checked whatever its name: ruff's habit);

each finding taken as (path, line, column, code), and prints the set each front end has and what
differs from the tree run's. flake8 skips a file holding ``# flake8: noqa`` before the plugin sees
it, while hwlint check reads only ``# hwlint: noqa``: flake8's set is compared with the tree run's
on the other files (those files are listed in the summary). Every run starts from an empty cache.
Written to OUT/agree.json. Not timed: ``benchmarks/run.py`` times flake8. Exits 1 when the sets
differ.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
# path:line:col: CODE, in hwlint's concise and full formats, flake8's default and pre-commit's echo
_LINE = re.compile(r"^(?:\./)?(\S+?\.py):(\d+):(\d+): (HWC\d{3})\b")

Finding = tuple[str, int, int, str]


def _tool(name: str) -> list[str]:
    """The command running *name* from this interpreter's environment (flake8 and pre-commit run
    as modules: one found on PATH may load, or put first on PATH, another hwlint)."""
    if name in ("flake8", "pre-commit"):  # a pyenv shim would also put its own hwlint first on PATH
        return [sys.executable, "-m", name.replace("-", "_")]
    exe = BIN / name
    return [str(exe) if exe.exists() else name]


def prepare(tree: Path, out: Path, reuse: bool = False) -> Path:
    """OUT/pytorch: a committed git repository holding *tree* as test/ and the documented configs."""
    repo = out / "pytorch"
    if reuse and (repo / ".git").is_dir():
        return repo
    if repo.exists():
        shutil.rmtree(repo)
    shutil.copytree(tree, repo / "test", symlinks=True)
    checkout = tree.resolve().parent
    pyproject = (checkout / "pyproject.toml").read_text() if (checkout / "pyproject.toml").is_file() else ""
    table = "".join(
        line
        for line in (ROOT / "examples/pytorch/pyproject.toml").read_text().splitlines(keepends=True)
        if not line.startswith("#")
    )
    (repo / "pyproject.toml").write_text(pyproject + ("\n" if pyproject else "") + table)
    if (checkout / ".flake8").is_file():
        shutil.copyfile(checkout / ".flake8", repo / ".flake8")
    shutil.copyfile(ROOT / "examples/.pre-commit-config.yaml", repo / ".pre-commit-config.yaml")
    git = ["git", "-C", str(repo), "-c", "user.name=agree", "-c", "user.email=agree@localhost"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "tree"], check=True)
    return repo


def parse(text: str) -> set[Finding]:
    out = set()
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.add((os.path.normpath(m.group(1)), int(m.group(2)), int(m.group(3)), m.group(4)))
    return out


def _run(cmd: list[str], repo: Path, ok=(0, 1)) -> str:
    env = {**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # pre-commit's system hook: this hwlint
    res = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=env, timeout=3600)
    if res.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {res.returncode}:\n{res.stderr[-3000:]}")
    return res.stdout


def _clear_cache(repo: Path) -> None:
    for found in repo.rglob(".hwlint_cache"):
        shutil.rmtree(found, ignore_errors=True)


def front_ends(repo: Path, jobs: int) -> dict[str, set[Finding]]:
    """The findings of each front end, from an empty cache each."""
    check = [*_tool("hwlint"), "check", "--output-format", "concise"]
    out = {}
    _clear_cache(repo)
    out["hwlint check test"] = parse(_run([*check, "test"], repo))
    out[FLAKE8] = parse(_run([*_tool("flake8"), "--select", "HWC", "-j", str(jobs), "test"], repo))
    _clear_cache(repo)
    hook = _run([*_tool("pre-commit"), "run", "--all-files", "--color", "never"], repo, ok=(0, 1))
    out["pre-commit run --all-files"] = parse(hook)
    _clear_cache(repo)
    shown = _run([*_tool("hwlint"), "check", "--show-files", "test"], repo).split()
    checked = {os.path.relpath(p, repo) if os.path.isabs(p) else os.path.normpath(p) for p in shown}
    read = {str(p.relative_to(repo)) for p in (repo / "test").rglob("*.py")}

    def alone(path: str) -> set[Finding]:
        return parse(_run([*check, "--force-exclude", path], repo))

    with ThreadPoolExecutor(jobs) as pool:
        per_file = list(pool.map(alone, sorted(checked | read)))
    out["hwlint check FILE, each alone"] = set().union(*per_file)
    _clear_cache(repo)
    return out


FLAKE8 = "flake8 --select HWC test"


def skipped_by_flake8(repo: Path) -> set[str]:
    """The files under *repo*/test that flake8 skips whole: a line matching its own pattern."""
    from flake8.defaults import NOQA_FILE

    out = set()
    for path in (repo / "test").rglob("*.py"):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        if any(NOQA_FILE.match(line) for line in lines):
            out.add(str(path.relative_to(repo)))
    return out


def compare(found: dict[str, set[Finding]], flake8_skips: frozenset[str] | set[str] = frozenset()) -> dict:
    base_name, base = next(iter(found.items()))
    summary: dict = {
        "reference": base_name,
        "counts": {k: len(v) for k, v in found.items()},
        "skipped by flake8": sorted(flake8_skips),
        "differences": {},
    }
    for name, got in found.items():
        if name == base_name:
            continue
        if name == FLAKE8:
            base = {f for f in found[base_name] if f[0] not in flake8_skips}
        else:
            base = found[base_name]
        only_here, only_base = sorted(got - base), sorted(base - got)
        summary["differences"][name] = {
            "only here": [list(f) for f in only_here],
            f"only in {base_name}": [list(f) for f in only_base],
            "codes": _codes(only_here, only_base),
        }
    return summary


def _codes(*sides: list[Finding]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for side in sides:
        for f in side:
            counts[f[3]] = counts.get(f[3], 0) + 1
    return dict(sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tree", default="/work/pt/src/pytorch-v2.6.0/test")
    p.add_argument("--out", required=True)
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--reuse", action="store_true", help="keep OUT/pytorch when it exists")
    args = p.parse_args(argv)
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    repo = prepare(Path(args.tree), out, args.reuse)
    summary = compare(front_ends(repo, args.jobs), skipped_by_flake8(repo))
    (out / "agree.json").write_text(json.dumps(summary, indent=1) + "\n")
    print(json.dumps(summary["counts"], indent=1))
    for name, diff in summary["differences"].items():
        sides = [(k, v) for k, v in diff.items() if k != "codes"]
        print(f"{name}: " + ", ".join(f"{len(v)} {k}" for k, v in sides) + f" {diff['codes']}")
        for k, v in sides:
            for f in v[:10]:
                print(f"  {k}: {':'.join(map(str, f))}")
    return 1 if any(d["codes"] for d in summary["differences"].values()) else 0


if __name__ == "__main__":
    sys.exit(main())
