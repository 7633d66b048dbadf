"""What hwlint does beyond reading the checked trees: every subprocess it runs (:func:`run`,
:func:`git`) and every file it writes for its user (:func:`open_output`, :func:`write_atomic`).

Both assume that the checkout is hostile. A pull request commits any file, name or symbolic link:
a directory that looks like a git repository to git (``HEAD``, ``objects/``, ``refs/`` and a
``config`` whose ``core.fsmonitor`` is a command), or ``findings.json -> ~/.ssh/authorized_keys``.
So git is told which repository to read, with the settings that run programs pinned off, and an
output file is replaced, never written through a link. It sits at the bottom of the package
because the configuration's discovery, the signed store, the report and the front ends all need it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Mapping, Sequence

#: Settings that make git run a program, or write to the repository, pinned off for every git this
#: process starts (given with ``-c`` and, for a git started by a child, in the environment): a
#: command-line setting outranks every configuration file, the checkout's, the user's and the system's.
GIT_PINS = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.untrackedCache", "false"),
    ("core.pager", "cat"),
    ("safe.bareRepository", "explicit"),  # git >= 2.38: a repository embedded in a tree is not entered
    ("protocol.allow", "never"),
)


def pinned_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """*env* (the process's by default) with :data:`GIT_PINS` added to git's ``GIT_CONFIG_COUNT``
    settings (git >= 2.31 reads them as if given with ``-c``), after any the caller had."""
    out = dict(os.environ if env is None else env)
    try:
        count = int(out.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        count = 0
    for i, (key, value) in enumerate(GIT_PINS, count):
        out[f"GIT_CONFIG_KEY_{i}"], out[f"GIT_CONFIG_VALUE_{i}"] = key, value
    out["GIT_CONFIG_COUNT"] = str(count + len(GIT_PINS))
    out["GIT_OPTIONAL_LOCKS"] = "0"  # reading needs no lock, and leaves the index as it was
    out["GIT_TERMINAL_PROMPT"] = "0"
    return out


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    text: bool = False,
    data: bytes | None = None,
) -> subprocess.CompletedProcess:
    """Run *argv* (never through a shell) with no standard input (or *data* as its input), its
    output captured, at most *timeout* seconds, in *env* with :data:`GIT_PINS` added. Raises what
    :func:`subprocess.run` raises (OSError, TimeoutExpired)."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=pinned_env(env),
        stdin=subprocess.DEVNULL if data is None else None,
        input=data,
        capture_output=True,
        text=text,
        timeout=timeout,
        check=False,
    )


def work_tree(path: str) -> tuple[str, str] | None:
    """The git work tree holding *path* and its ``.git`` (a directory, or the file a worktree or
    a submodule has): the nearest directory at or above *path* with an entry named ``.git``, or
    None. A tree cannot hold a ``.git`` of its own (git refuses the name in any commit), so the
    one found was made by whoever cloned it; a directory that only looks like a repository
    (``HEAD``, ``objects/``, ``refs/``), which git itself would enter, is never taken for one."""
    d = os.path.abspath(path)
    while True:
        dot_git = os.path.join(d, ".git")
        try:
            mode = os.lstat(dot_git).st_mode
        except (OSError, ValueError):
            mode = 0
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            return d, dot_git
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def git(args: Sequence[str], where: str, timeout: float, data: bytes | None = None) -> bytes | None:
    """The output of ``git ARGS`` run in the directory *where*, on the repository
    :func:`work_tree` finds for it (named with ``--git-dir`` and ``--work-tree``, so git looks
    for no other), with :data:`GIT_PINS` and none of the caller's ``GIT_*`` variables; *data* is
    its standard input (``cat-file --batch``). None when *where* is in no work tree, or git is
    missing, fails or takes over *timeout* seconds."""
    found = work_tree(where)
    if found is None:
        return None
    top, dot_git = found
    pins = [arg for key, value in GIT_PINS for arg in ("-c", f"{key}={value}")]
    argv = ["git", *pins, f"--git-dir={dot_git}", f"--work-tree={top}", *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["LC_ALL"] = "C"
    try:
        res = run(argv, timeout=timeout, env=env, cwd=where, data=data)
    except (OSError, subprocess.SubprocessError):
        return None
    return res.stdout if res.returncode == 0 else None
