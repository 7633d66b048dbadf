"""``hwlint check --watch``: check again whenever a file the check reads changes."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from .common import EXIT_CLEAN, guarded


def watch(paths: Sequence[str], check_once: Callable[[], int]) -> int:
    """``--watch``: *check_once*, then again whenever a checked file, a directory on the way (a file
    added or removed) or a configuration file changes; poll-based (every HWLINT_WATCH_INTERVAL
    seconds, default 0.5), so it needs nothing but the standard library. Ends on Ctrl-C (exit 0)."""
    import os
    import time

    interval = float(os.environ.get("HWLINT_WATCH_INTERVAL", "0.5"))
    print("Starting hwlint in watch mode...", file=sys.stderr, flush=True)
    try:
        state = _watched_state(paths)
        while True:
            try:
                guarded("hwlint", check_once)
            finally:
                sys.stdout.flush()
            print("Watching for file changes.", file=sys.stderr, flush=True)
            while True:
                time.sleep(interval)
                now = _watched_state(paths)
                if now != state:
                    state = now
                    print("File change detected...", file=sys.stderr, flush=True)
                    break
    except KeyboardInterrupt:
        return EXIT_CLEAN


def _watched_state(paths) -> frozenset:
    """What a change of restarts a watched check: (path, mtime, size) of every directory and file
    under *paths* that discovery would look at, and of the configuration files."""
    import os

    from ..pipeline.config import CONFIG_NAMES, DEFAULT_EXCLUDE

    out = set()
    skip = set(DEFAULT_EXCLUDE)
    for top in paths or ["."]:
        stack = [top]
        while stack:
            d = stack.pop()
            try:
                st = os.stat(d)
                out.add((d, st.st_mtime_ns, st.st_size))
                if not os.path.isdir(d):
                    continue
                with os.scandir(d) as it:
                    for e in it:
                        if e.is_dir(follow_symlinks=False):
                            if e.name not in skip:
                                stack.append(e.path)
                        elif (
                            e.name.endswith((".py", ".toml", ".yaml", ".yml", ".json"))
                            or e.name in CONFIG_NAMES
                        ):
                            s = e.stat()
                            out.add((e.path, s.st_mtime_ns, s.st_size))
            except OSError:
                continue
    return frozenset(out)
