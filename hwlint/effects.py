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

import contextlib
import errno
import os
import stat
import subprocess
from collections.abc import Mapping, Sequence

from .roots import under

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


# -- output files --------------------------------------------------------------------------------

#: Paths that are streams or the kernel's (``-o /dev/stdout``, ``/dev/null``, ``/proc/self/fd/3``
#: from a shell's ``>(...)``): written as they are, never replaced by a file.
_STREAMS = ("/dev/", "/proc/")


class OutputError(OSError):
    """An output file that is not written, and why (``strerror``): an ``OSError``, so that every
    front end reports it as it reports a directory that cannot be written (exit 2)."""


def write_output(path: str | os.PathLike, data: str | bytes) -> None:
    """Write *data* (text as UTF-8) to the output file *path* a user named (``-o``,
    ``--argsfile``, a baseline), whole or not at all, and never anywhere else: to a temporary file
    in its directory, renamed over it. A symlink at *path* is replaced by the file, never followed
    (a pull request commits ``findings.json -> ~/.ssh/authorized_keys``); a directory on the way
    below the current directory that is a symlink is refused (:class:`OutputError`), for the same
    reason. A regular file keeps its mode; a stream (``/dev/stdout``, a FIFO) is written as it is.
    Raises OSError."""
    blob = data.encode("utf-8") if isinstance(data, str) else data
    path = os.fspath(path)
    absolute = os.path.abspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    if absolute.startswith(_STREAMS) or (st is not None and _is_stream(st.st_mode)):
        with open(path, "wb") as f:
            f.write(blob)
        return
    _refuse_linked_directories(absolute)
    mode = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else None
    write_atomic(path, blob, mode)


def _is_stream(mode: int) -> bool:
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _refuse_linked_directories(absolute: str) -> None:
    """An :class:`OutputError` when a directory between the current directory and *absolute*
    is a symlink: below the current directory (a checkout, in CI) any name may be the pull
    request's."""
    cwd = os.getcwd()
    parent = os.path.dirname(absolute)
    if not under(parent, cwd):
        return
    rel = os.path.relpath(parent, cwd)
    d = cwd
    for part in rel.split(os.sep):
        d = os.path.join(d, part)
        if os.path.islink(d):
            shown = os.path.relpath(d, cwd)
            raise OutputError(errno.ELOOP, f"{shown} is a symlink; an output is never written through one")


def rename_own(src: str, dst: str) -> None:
    """Rename *src* to *dst*, both inside a temporary directory hwlint made for itself (never a
    path of the checkout: nothing there can be a link someone else planted)."""
    os.rename(src, dst)


def write_atomic(path: str | os.PathLike, data: bytes, mode: int | None = None, replace: bool = True) -> None:
    """Make *path* a regular file holding *data*: written to a new temporary file beside it (mode
    *mode*, else 0666 less the umask), then renamed over it, so that a reader sees the old file
    or the new one, and a symlink at *path* is replaced, never written through. Without *replace*
    the file is linked in only where nothing is (FileExistsError otherwise): a file another
    process made meanwhile is kept. Raises OSError (and leaves no temporary file)."""
    path = os.fspath(path)
    directory, name = os.path.split(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(directory, f".{name[:64]}.{os.urandom(6).hex()}.tmp")
        try:
            fd = os.open(tmp, flags, 0o666 if mode is None else mode)
            break
        except FileExistsError:
            continue
    gone = False  # whether the temporary file was renamed away
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.fchmod(f.fileno(), mode)  # the umask applies to os.open's mode, not to this
            f.write(data)
        if replace:
            os.replace(tmp, path)
        else:
            os.link(tmp, path)
        gone = replace
    finally:
        if not gone:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
