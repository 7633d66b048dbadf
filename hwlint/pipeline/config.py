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

    def is_included(self, name: str) -> bool:
        """Whether discovery takes a file named *name* (``include``)."""
        return self._include_pattern.match(name) is not None

    @cached_property
    def _include_pattern(self) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in self.include) or "(?!)")

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


def is_test_file_name(path: str, include: Sequence[str] = DEFAULT_INCLUDE) -> bool:
    """Whether discovery takes *path* for a test file by its name (``test_*.py``, ``*_test.py``)."""
    name = os.path.basename(path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in include)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above *start* that has a ``[tool.hwlint]`` table.

    A pyproject.toml on the way that cannot be read as TOML is a :class:`ConfigError`, not a
    file to step over: whether it configures hwlint cannot be told, and skipping it silently would
    apply another configuration (or none)."""
    for d in (start, *start.parents):
        candidate = d / "pyproject.toml"
        # os.path.isfile, not Path.is_file: that raises for a path past PATH_MAX
        if os.path.isfile(candidate) and "hwlint" in read_toml(candidate).get("tool", {}):
            return candidate
    return None


_TOML_POSITION = re.compile(r" \(at line (\d+), column \d+\)$| \(at end of document\)$")


def read_toml(path: Path) -> dict:
    """*path* parsed as TOML; ConfigError naming the file and line when it is not UTF-8 or not TOML."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ConfigError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[e.start]:02x}); TOML files are UTF-8"
        ) from None
    if sys.version_info >= (3, 11):  # imported here: a tree without a pyproject.toml never pays for it
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        m = _TOML_POSITION.search(message)
        line = int(m.group(1)) if m and m.group(1) else text.count("\n") + 1
        raise ConfigError(f"{path}:{line}: invalid TOML: {message[: m.start()] if m else message}") from None


def config_for_paths(paths: Sequence[str], config_file: str | None = None, isolated: bool = False) -> Config:
    """The configuration every command applies to *paths*: *config_file* when given, else (as in
    ruff) the nearest ``[tool.hwlint]`` at or above the first path (the current directory when there
    is none), whatever the current directory."""
    from .engine import allow_roots, note_project

    allow_roots(paths or ["."])  # the trees read (and trusted for nothing: see engine.checked_trees)
    if isolated:
        return Config()
    if config_file:
        config = load_config(Path(config_file))
    else:
        start = Path(paths[0]) if paths else Path(".")
        config = load_config(start=start if os.path.isdir(start) else start.parent)
    note_project(str(config.root))  # its files are the pull request's too
    return config


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """Read ``[tool.hwlint]`` from *path*, or from the nearest pyproject.toml above *start* (cwd)."""
    if path is None:
        path = find_pyproject((start or Path.cwd()).resolve())
        if path is None:
            return Config(root=(start or Path.cwd()).resolve())
    data = read_toml(path)
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


@dataclass(frozen=True)
class Skipped:
    """A path discovery could not take: a directory it cannot list (*error*: reported as HWC901,
    as ruff reports E902) or a file that is not a regular file (a FIFO, a device: a warning)."""

    path: str
    reason: str
    error: bool

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def discover(
    paths: Sequence[str],
    config: Config,
    force_exclude: bool = False,
    skipped: list[Skipped] | None = None,
) -> Iterator[str]:
    """Files to check, in a stable order. Directories expand to files matching ``include``;
    files named explicitly are always checked (missing ones too, so that they are reported),
    unless *force_exclude* applies the exclusions to them as well (for pre-commit).

    Nothing is dropped silently: what cannot be listed or is not a regular file is appended to
    *skipped*, which the caller reports."""
    from .engine import allow_roots

    allow_roots(paths)  # a symlink is read only into these trees (engine.read_source)
    seen: set[str] = set()
    skipped = skipped if skipped is not None else []
    for given in paths:
        if os.path.isdir(given):
            for found in _walk(given, config, skipped):
                if found not in seen:
                    seen.add(found)
                    yield found
        elif given not in seen and not (force_exclude and config.is_excluded(given)):
            seen.add(given)
            kind = _special(given)
            if kind is not None:
                skipped.append(Skipped(given, f"not a regular file ({kind}); skipped", False))
                continue
            yield given


def _special(path: str, entry: os.DirEntry | None = None) -> str | None:
    """What *path* is when it exists and is not a regular file (None otherwise: a missing or
    unreadable file is read, and reported, like any other)."""
    from .engine import file_kind

    try:
        mode = entry.stat().st_mode if entry is not None else os.stat(path).st_mode
    except OSError:
        return None
    return file_kind(mode)


def _walk(top: str, config: Config, skipped: list[Skipped]) -> Iterator[str]:
    """os.walk's top-down order without its recursion (a tree nested deeper than the recursion
    limit) and without its silence (a directory it cannot list, a path past PATH_MAX)."""

    shown = os.path.normpath  # "./a/b.py" -> "a/b.py", as relpath would say it, without its abspath calls

    stack = [top]
    while stack:
        dirpath = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            skipped.append(Skipped(shown(dirpath), f"cannot list directory: {e.strerror or e}", True))
            continue
        subdirs = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                # as os.walk: a link to a directory is not followed
                if not entry.is_symlink() and not config.is_excluded(entry.path, True):
                    subdirs.append(entry.path)
                continue
            if not config.is_included(entry.name):
                continue
            if config.is_excluded(entry.path, True):
                continue
            kind = _special(entry.path, entry)
            if kind is not None:
                skipped.append(Skipped(shown(entry.path), f"not a regular file ({kind}); skipped", False))
                continue
            yield shown(entry.path)
        stack.extend(reversed(subdirs))


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
