"""Project configuration (``[tool.hwlint]`` in pyproject.toml) and file discovery."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_INCLUDE = ("test_*.py", "*_test.py")
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".tox",
    ".nox",
    ".venv",
    "venv",
    ".eggs",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hwlint_cache",
)


class ConfigError(Exception):
    """A configuration problem; ``str()`` names the file and key."""


@dataclass(frozen=True)
class Config:
    root: Path = field(default_factory=Path.cwd)  # the directory holding the config file
    source: Path | None = None  # the pyproject.toml it came from
    taxonomy: str | None = None
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    select: tuple[str, ...] = ("HWC",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    max_file_size: int = 10  # MB
    baseline: str | None = None  # the allowlist of files `check` skips (absolute path)
    # extra import roots for the project model (absolute): where `import x` may find a test module
    roots: tuple[str, ...] = ()

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """Codes that per-file-ignores switch off for *path*."""
        if not self.per_file_ignores:
            return ()
        rel = _relative(path, self.root)
        out: list[str] = []
        for pattern, codes in self.per_file_ignores:
            if _matches(rel, pattern):
                out.extend(codes)
        return tuple(out)

    def is_excluded(self, path: str, parent_checked: bool = False) -> bool:
        """Whether *path* is excluded. With *parent_checked* (discovery, which prunes excluded
        directories as it walks) only the last component needs the name patterns."""
        names, paths = self._exclude_patterns
        if names is not None:
            parts = [os.path.basename(path)] if parent_checked else _relative(path, self.root).split("/")
            if any(names.match(part) for part in parts):
                return True
        return paths is not None and paths.match(_relative(path, self.root)) is not None

    @cached_property
    def _exclude_patterns(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
        """One regex for the patterns that match a path component, one for those that match a path
        (as :func:`_matches` defines them); discovery tests every file, so they are compiled once."""
        names = [p.rstrip("/") for p in self.exclude if "/" not in p.rstrip("/")]
        paths = [p for p in self.exclude if "/" in p.rstrip("/")]
        by_path = [fnmatch.translate(x) for p in paths for x in (p, p.rstrip("/") + "/*")]
        return (
            re.compile("|".join(fnmatch.translate(p) for p in names)) if names else None,
            re.compile("|".join(by_path)) if by_path else None,
        )


_KEYS = {
    "baseline",
    "taxonomy",
    "include",
    "exclude",
    "extend-exclude",
    "max-file-size",
    "select",
    "extend-select",
    "ignore",
    "per-file-ignores",
    "roots",
}


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above *start* that has a ``[tool.hwlint]`` table."""
    for d in (start, *start.parents):
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                with open(candidate, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if "hwlint" in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Read ``[tool.hwlint]`` from *path*, or from the nearest pyproject.toml above *start* (cwd)."""
    if path is None:
        path = find_pyproject((start or Path.cwd()).resolve())
        if path is None:
            return Config(root=(start or Path.cwd()).resolve())
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    table = data.get("tool", {}).get("hwlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.hwlint] must be a table")
    for key in table:
        if key not in _KEYS:
            raise ConfigError(
                f"{path}: tool.hwlint.{key}: unknown key (expected one of {', '.join(sorted(_KEYS))})"
            )
    root = path.resolve().parent
    cfg = Config(root=root, source=path)

    def strings(key: str) -> tuple[str, ...] | None:
        if key not in table:
            return None
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: tool.hwlint.{key}: expected a list of strings")
        return tuple(value)

    taxonomy = table.get("taxonomy")
    if taxonomy is not None:
        if not isinstance(taxonomy, str):
            raise ConfigError(f"{path}: tool.hwlint.taxonomy: expected a path string")
        taxonomy = str(root / taxonomy)
    max_size = table.get("max-file-size", cfg.max_file_size)
    if not isinstance(max_size, int) or isinstance(max_size, bool) or max_size < 1:
        raise ConfigError(f"{path}: tool.hwlint.max-file-size: expected a whole number of megabytes >= 1")
    baseline = table.get("baseline")
    if baseline is not None:
        if not isinstance(baseline, str):
            raise ConfigError(f"{path}: tool.hwlint.baseline: expected a path string")
        baseline = str(root / baseline)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict) or not all(
        isinstance(v, list) and all(isinstance(c, str) for c in v) for v in pfi.values()
    ):
        raise ConfigError(f"{path}: tool.hwlint.per-file-ignores: expected a table of lists of codes")
    return replace(
        cfg,
        taxonomy=taxonomy,
        baseline=baseline,
        include=strings("include") or cfg.include,
        exclude=(strings("exclude") or cfg.exclude) + (strings("extend-exclude") or ()),
        select=(strings("select") or cfg.select) + (strings("extend-select") or ()),
        ignore=strings("ignore") or (),
        per_file_ignores=tuple((k, tuple(v)) for k, v in pfi.items()),
        max_file_size=max_size,
        roots=tuple(str(root / r) for r in strings("roots") or ()),
    )


def discover(paths: Sequence[str], config: Config, force_exclude: bool = False) -> Iterator[str]:
    """Files to check, in a stable order. Directories expand to files matching ``include``;
    files named explicitly are always checked (missing ones too, so that they are reported),
    unless *force_exclude* applies the exclusions to them as well (for pre-commit)."""
    seen: set[str] = set()
    for given in paths:
        if os.path.isdir(given):
            for found in _walk(given, config):
                if found not in seen:
                    seen.add(found)
                    yield found
        elif given not in seen and not (force_exclude and config.is_excluded(given)):
            seen.add(given)
            yield given


def _walk(top: str, config: Config) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not config.is_excluded(os.path.join(dirpath, d), True))
        for name in sorted(filenames):
            if not any(fnmatch.fnmatchcase(name, p) for p in config.include):
                continue
            path = os.path.join(dirpath, name)
            if not config.is_excluded(path, True):
                yield os.path.normpath(path) if top != "." else os.path.relpath(path)


def _relative(path: str, root: Path) -> str:
    # abspath, not resolve(): a symlink loop must not stop discovery, and links are judged by their name
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _matches(rel: str, pattern: str) -> bool:
    """ruff-like matching: a pattern without "/" matches any path component; otherwise the path."""
    if "/" not in pattern.rstrip("/"):
        pattern = pattern.rstrip("/")
        return any(fnmatch.fnmatchcase(part, pattern) for part in rel.split("/"))
    return fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern.rstrip("/") + "/*")
