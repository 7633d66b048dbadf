"""A progress bar for long runs, on stderr, only where a person is watching.

Shown when ``--progress`` asks for it, or when both stdout and stderr are terminals and no ``CI``
variable is set; even then only once a run has lasted a second. tqdm is imported only then, so
``hwlint --version`` and short runs never pay for it; without tqdm installed there is no bar.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

Progress = Callable[[int], None]


def wanted(requested: bool = False) -> bool:
    """Whether to show a bar: asked for, or an interactive terminal outside CI."""
    if requested:
        return True
    if os.environ.get("CI") or os.environ.get("NO_PROGRESS"):
        return False
    try:
        return sys.stderr.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


class Bar:
    """``bar(n)`` advances by *n* files; ``close()`` removes the bar. A no-op when not shown."""

    def __init__(self, total: int, description: str, show: bool, delay: float = 1.0):
        self._bar = None
        if not show or total == 0:
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self._bar = tqdm(
            total=total,
            desc=description,
            unit="file",
            delay=delay,
            leave=False,
            file=sys.stderr,
            dynamic_ncols=True,
        )

    def __call__(self, n: int) -> None:
        if self._bar is not None and n:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
