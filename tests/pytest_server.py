"""Run real ``pytest`` sessions in fresh processes without paying the interpreter's start-up each time.

The tests that compare hwselect with pytest's own collection run dozens of ``pytest --collect-only``
sessions; with torch, each one spent about 4 s of CPU importing
``torch.testing._internal.common_device_type`` before collecting a handful of classes. A
:class:`PytestServer` is one long-lived process that imports the expensive modules once and then
``fork()``\\ s a child for every session: the child changes directory, takes the session's
environment and runs ``pytest.main(args)`` with its output in files, exactly as ``python -m pytest
ARGS`` would in that directory. Nothing of a session survives into the next one (each child exits),
so each is as independent as a fresh ``python -m pytest``; only the import is shared.

Without ``fork`` (not POSIX) every session is a plain subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# The hypothesis plugin imports all of hypothesis when a session ends (about 1 s of CPU): nested
# sessions that only collect never need it. A preloaded module cannot have its asserts rewritten,
# which only matters for tests that run. The outer run's own options (-n, -x, ...) are not theirs.
NESTED_ADDOPTS = "-p no:hypothesispytest -W ignore::pytest.PytestAssertRewriteWarning"


def pytest_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a nested pytest session: ours, minus the outer session's pytest and
    xdist variables, plus *extra*."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST_", "PYTEST_CURRENT_TEST"))}
    env.update({"PYTEST_ADDOPTS": NESTED_ADDOPTS, "PYTHONDONTWRITEBYTECODE": "1", **(extra or {})})
    return env


_DRIVER = r"""
import json, os, sys
try:
    for module in sys.argv[1:]:
        __import__(module)
except ImportError as e:
    print(f"cannot import {e.name or module}: {e}", flush=True)
    sys.exit(1)
import pytest

print("ready", flush=True)
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        rc = 3
        try:
            os.chdir(req["cwd"])
            os.environ.clear()
            os.environ.update(req["env"])
            for fd, name in ((1, "stdout"), (2, "stderr")):
                os.dup2(os.open(req[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            sys.argv = ["pytest", *req["args"]]
            rc = int(pytest.main(req["args"]))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(rc)
    _, status = os.waitpid(pid, 0)
    print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)
"""


class PytestServer:
    """Forks a fresh ``pytest`` session per :meth:`run` from one process that imported *preload*."""

    def __init__(self, preload: tuple[str, ...] = (), env: dict[str, str] | None = None):
        self._files = tempfile.mkdtemp(prefix="pytest-server-")
        self._proc: subprocess.Popen | None = None
        if hasattr(os, "fork"):
            self._proc = subprocess.Popen(
                [sys.executable, "-c", _DRIVER, *preload],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=pytest_env(env),
            )
            assert self._proc.stdout is not None
            ready = self._proc.stdout.readline()
            if ready != "ready\n":
                self._proc.wait(timeout=60)
                self._proc = None
                os.rmdir(self._files)
                # ImportError: the caller may skip, as with pytest.importorskip
                raise ImportError(f"pytest server did not start: {ready.strip() or 'no output'}")
        self._n = 0

    def run(self, cwd: Path | str, args: list[str], env: dict[str, str] | None = None):
        """``python -m pytest *args`` in *cwd* with :func:`pytest_env` (*env*), as a CompletedProcess."""
        env = pytest_env(env)
        if self._proc is None:
            cmd = [sys.executable, "-m", "pytest", *args]
            return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        self._n += 1
        out = os.path.join(self._files, f"{self._n}.out")
        err = os.path.join(self._files, f"{self._n}.err")
        req = {"cwd": str(cwd), "args": list(args), "env": env, "stdout": out, "stderr": err}
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(json.dumps(req) + "\n")
        self._proc.stdin.flush()
        rc = json.loads(self._proc.stdout.readline())
        stdout, stderr = Path(out).read_text(), Path(err).read_text()
        os.unlink(out)
        os.unlink(err)
        return subprocess.CompletedProcess(["pytest", *args], rc, stdout, stderr)

    def close(self) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.kill()  # every session has ended; torch's interpreter shutdown is slow
            self._proc.wait(timeout=60)
            self._proc = None
        os.rmdir(self._files)


_shared: dict[tuple[str, ...], PytestServer] = {}


def shared_server(preload: tuple[str, ...] = ("hwlint.pytest_plugin",)) -> PytestServer:
    """This process's server for *preload* (default: hwlint's own pytest plugin), started on first
    use and closed when the process exits: the tests that preload torch's testing modules share one
    import of them per worker. Raises ImportError when *preload* cannot be imported."""
    server = _shared.get(preload)
    if server is None:
        import atexit

        server = _shared[preload] = PytestServer(preload)
        atexit.register(server.close)
    return server
