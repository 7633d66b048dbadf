"""Configuration (``[tool.hwlint]``, ``hwlint.toml``, ``.hwlint.toml``) and file discovery.

Configuration is resolved per file, as ruff resolves it: the nearest configuration file at or above
a file governs it, with every path in it relative to its own directory, and no setting of a parent
configuration is merged in. In one directory ``.hwlint.toml`` wins over ``hwlint.toml``, which wins
over a ``pyproject.toml`` (one without a ``[tool.hwlint]`` table does not count). ``--config FILE``
and ``--isolated`` replace discovery with one configuration for every file (CI pins one that way);
settings given on the command line (``--select``, ``--exclude``, ``--config "key = value"``) apply
over every configuration, discovered or pinned.
"""

from __future__ import annotations

import fnmatch
import operator
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from ..roots import Trees, under
from ..words import EXCERPT_CHARS, excerpt, visible
from .hidden import behind_link, tracked_tests

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
    "__pypackages__",
    "__pycache__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".hwlint_cache",
)
#: The configuration files of one directory, the first found winning (ruff: .ruff.toml,
#: ruff.toml, pyproject.toml). hwlint.toml files hold the settings at top level.
CONFIG_NAMES = (".hwlint.toml", "hwlint.toml", "pyproject.toml")
#: Configuration and baseline files are read whole: larger ones are refused before reading.
MAX_CONFIG_BYTES = 4 * 1024 * 1024


class ConfigError(Exception):
    """A configuration problem; ``str()`` names the file and key."""


@dataclass(frozen=True)
class Config:
    root: Path = field(default_factory=Path.cwd)  # the directory holding the config file
    source: Path | None = None  # the file it came from
    taxonomy: str | None = None
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE  # relative to root
    extend_exclude: tuple[str, ...] = ()  # relative to root
    select: tuple[str, ...] = ("HWC",)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # patterns relative to root
    max_file_size: int = 10  # MB
    baseline: str | None = None  # the allowlist `check` applies to the files of this config (absolute)
    # extra import roots for the project model (absolute): where `import x` may find a test module
    roots: tuple[str, ...] = ()
    respect_gitignore: bool = True  # skip what git ignores, in a git work tree (ruff's default)
    # patterns given on the command line (--exclude, --config "exclude = [...]"): relative to cli_root
    cli_exclude: tuple[str, ...] = ()
    cli_per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    cli_root: Path | None = None

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """Codes that per-file-ignores switch off for *path*."""
        out: list[str] = []
        for table, root in ((self.per_file_ignores, self.root), (self.cli_per_file_ignores, self.cli_root)):
            if not table or root is None:
                continue
            rel = _relative(path, root)
            for pattern, codes in table:
                if _matches(rel, pattern):
                    out.extend(codes)
        return tuple(out)

    def is_excluded(self, path: str, parent_checked: bool = False) -> bool:
        """Whether *path* is excluded. With *parent_checked* (discovery, which prunes excluded
        directories as it walks) only the last component needs the name patterns."""
        for root, (names, paths) in self._exclude_patterns:
            # discovery asks this of every file: the path relative to the anchor only when a pattern reads it
            rel = _relative(path, root) if paths is not None or not parent_checked else ""
            if names is not None:
                parts = [os.path.basename(path)] if parent_checked else rel.split("/")
                if any(names.match(part) for part in parts):
                    return True
            if paths is not None and paths.match(rel) is not None:
                return True
        return False

    def is_included(self, name: str) -> bool:
        """Whether discovery takes a file named *name* (``include``)."""
        return self._include_pattern.match(name) is not None

    @cached_property
    def _include_pattern(self) -> re.Pattern[str]:
        return re.compile("|".join(fnmatch.translate(p) for p in self.include) or "(?!)")

    @cached_property
    def _exclude_patterns(self) -> list[tuple[Path, tuple[re.Pattern[str] | None, re.Pattern[str] | None]]]:
        """Per anchor (the config's root, the command line's directory): one regex for the patterns
        that match a path component, one for those that match a path (as :func:`_matches` defines
        them); discovery tests every file, so they are compiled once."""
        out = []
        for patterns, root in (
            (self.exclude + self.extend_exclude, self.root),
            (self.cli_exclude, self.cli_root),
        ):
            if not patterns or root is None:
                continue
            names = [p.rstrip("/") for p in patterns if "/" not in p.rstrip("/")]
            paths = [p for p in patterns if "/" in p.rstrip("/")]
            by_path = [fnmatch.translate(x) for p in paths for x in (p, p.rstrip("/") + "/*")]
            out.append(
                (
                    root,
                    (
                        re.compile("|".join(fnmatch.translate(p) for p in names)) if names else None,
                        re.compile("|".join(by_path)) if by_path else None,
                    ),
                )
            )
        return out

    def settings(self) -> list[tuple[str, object]]:
        """Every setting with its value, as ``--show-settings`` prints them."""
        return [
            ("source", str(self.source) if self.source else "(none: defaults)"),
            ("root", str(self.root)),
            ("taxonomy", self.taxonomy or "(bundled)"),
            ("include", list(self.include)),
            ("exclude", list(self.exclude)),
            ("extend-exclude", list(self.extend_exclude)),
            ("exclude (command line)", [f"{p} (in {self.cli_root})" for p in self.cli_exclude]),
            ("respect-gitignore", self.respect_gitignore),
            ("select", list(self.select)),
            ("ignore", list(self.ignore)),
            ("per-file-ignores", {p: list(c) for p, c in self.per_file_ignores}),
            ("per-file-ignores (command line)", {p: list(c) for p, c in self.cli_per_file_ignores}),
            ("max-file-size", self.max_file_size),
            ("baseline", self.baseline),
            ("roots", list(self.roots)),
        ]


#: Every key a configuration may hold, and what its value must be.
_KEYS = {
    "baseline": "path",
    "taxonomy": "path",
    "include": "strings",
    "exclude": "strings",
    "extend-exclude": "strings",
    "max-file-size": "megabytes",
    "select": "strings",
    "extend-select": "strings",
    "ignore": "strings",
    "extend-ignore": "strings",
    "per-file-ignores": "table",
    "roots": "paths",
    "respect-gitignore": "bool",
}
# the order settings apply in: a replacing key before the key that extends it
_ORDER = {k: i for i, k in enumerate(_KEYS)}
_ORDER.update({"select": -3, "ignore": -2, "exclude": -1})


def is_test_file_name(path: str, include: Sequence[str] = DEFAULT_INCLUDE) -> bool:
    """Whether discovery takes *path* for a test file by its name (``test_*.py``, ``*_test.py``)."""
    name = os.path.basename(path)
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in include)


def find_pyproject(start: Path) -> Path | None:
    """The nearest configuration file at or above *start* (see :data:`CONFIG_NAMES`).

    A pyproject.toml on the way that cannot be read as TOML is a :class:`ConfigError`, not a
    file to step over: whether it configures hwlint cannot be told, and skipping it silently would
    apply another configuration (or none)."""
    for d in (start, *start.parents):
        found = config_file_in(d)
        if found is not None:
            return found
    return None


def config_file_in(directory: Path | str, names: Iterable[str] | None = None) -> Path | None:
    """The configuration file of *directory*, if it has one. *names*: the directory's entries,
    when the caller listed it already (discovery), so that nothing more is asked of the disk."""
    present = set(names) if names is not None else None
    for name in CONFIG_NAMES:
        if present is not None and name not in present:
            continue
        candidate = Path(directory) / name
        # os.path.isfile, not Path.is_file: that raises for a path past PATH_MAX
        if not os.path.isfile(candidate):
            continue
        if name != "pyproject.toml" or "hwlint" in read_toml(candidate).get("tool", {}):
            return candidate
    return None


_TOML_POSITION = re.compile(r" \(at line (\d+), column \d+\)$| \(at end of document\)$")


def read_bounded(path: str | os.PathLike, what: str, max_bytes: int = MAX_CONFIG_BYTES) -> bytes:
    """The bytes of a file a configuration names (a TOML file, a baseline, a taxonomy), read
    safely: a regular file only (a FIFO, a device or ``/proc/self/fd/0`` could block or never end),
    at most *max_bytes* (checked before reading, and while reading, for a file that grows).

    Raises :class:`ConfigError` naming the file and *what* it was read as."""
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise ConfigError(f"{path}: cannot read {what}: {reason}") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        from ..model.source import file_kind

        kind = file_kind(st.st_mode)
        if kind is not None:
            raise ConfigError(f"{path}: cannot read {what}: not a regular file ({kind})")
        if st.st_size > max_bytes:
            raise ConfigError(f"{path}: cannot read {what}: larger than {max_bytes // 1024} KB")
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            raise ConfigError(f"{path}: cannot read {what}: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise ConfigError(f"{path}: cannot read {what}: larger than {max_bytes // 1024} KB")
    return data


def read_toml(path: Path) -> dict:
    """*path* parsed as TOML; ConfigError naming the file and line when it is not UTF-8 or not TOML."""
    data = read_bounded(path, "configuration")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ConfigError(
            f"{path}:{line}: not UTF-8 (byte 0x{data[e.start]:02x}); TOML files are UTF-8"
        ) from None
    return _parse_toml(text, str(path))


def _parse_toml(text: str, where: str) -> dict:
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
        raise ConfigError(f"{where}:{line}: invalid TOML: {message[: m.start()] if m else message}") from None


# ---------------------------------------------------------------------------------------------
# Reading one configuration, and the command line's overrides

#: One validated setting: (key, value), paths made absolute, lists as tuples.
Setting = tuple[str, object]


def _settings(table: dict, where: str, prefix: str, base: Path) -> list[Setting]:
    """The settings of *table* (a ``[tool.hwlint]`` table, a hwlint.toml, a ``--config`` override),
    validated; *where* and *prefix* name them in errors (``pyproject.toml: tool.hwlint.select``),
    *base* is what relative paths are relative to."""
    out: list[Setting] = []
    for key, value in table.items():
        kind = _KEYS.get(key)
        shown = visible(key) if len(key) <= EXCERPT_CHARS else excerpt(key)  # a key is the file's text
        name = f"{where}: {prefix}{shown}" if where else f"{prefix}{shown}"
        if kind is None:
            raise ConfigError(f"{name}: unknown key (expected one of {', '.join(sorted(_KEYS))})")
        if kind == "path":
            if not isinstance(value, str):
                raise ConfigError(f"{name}: expected a path string")
            value = str(base / value)
        elif kind in ("strings", "paths"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{name}: expected a list of strings")
            value = tuple(str(base / v) for v in value) if kind == "paths" else tuple(value)
        elif kind == "megabytes":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{name}: expected a whole number of megabytes >= 1")
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"{name}: expected true or false")
        elif kind == "table":
            if not isinstance(value, dict) or not all(
                isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()
            ):
                raise ConfigError(f"{name}: expected a table of lists of codes")
            value = tuple((k, tuple(v)) for k, v in value.items())
        out.append((key, value))
    return sorted(out, key=lambda s: _ORDER[s[0]])


def _apply(cfg: Config, settings: Iterable[Setting], anchor: Path | None = None) -> Config:
    """*cfg* with *settings* applied. Without *anchor* they are the config file's own (patterns
    relative to its root); with one they come from the command line, patterns relative to *anchor*."""
    changes: dict[str, object] = {}

    def now(name: str):
        return changes.get(name, getattr(cfg, name))

    for key, value in settings:
        if key in ("taxonomy", "baseline", "include", "roots", "select", "ignore"):
            changes[key] = value
        elif key == "max-file-size":
            changes["max_file_size"] = value
        elif key == "respect-gitignore":
            changes["respect_gitignore"] = value
        elif key in ("extend-select", "extend-ignore"):
            name = key.split("-")[1]
            changes[name] = (*now(name), *value)
        elif anchor is None:
            if key == "exclude":
                changes["exclude"] = value
            elif key == "extend-exclude":
                changes["extend_exclude"] = (*now("extend_exclude"), *value)
            elif key == "per-file-ignores":
                changes["per_file_ignores"] = value
        else:
            changes["cli_root"] = anchor
            if key == "exclude":  # replaces the configured exclusions, defaults included (ruff)
                changes["exclude"] = ()
                changes["cli_exclude"] = (*now("cli_exclude"), *value)
            elif key == "extend-exclude":
                changes["cli_exclude"] = (*now("cli_exclude"), *value)
            elif key == "per-file-ignores":
                changes["per_file_ignores"] = ()
                changes["cli_per_file_ignores"] = value
    return replace(cfg, **changes) if changes else cfg


def load_config(path: Path | None = None, start: Path | None = None) -> Config:
    """The configuration in *path*, or in the nearest configuration file at or above *start* (cwd);
    the defaults, relative to *start*, when there is none."""
    if path is None:
        path = find_pyproject((start or Path.cwd()).resolve())
        if path is None:
            return Config(root=(start or Path.cwd()).resolve())
    return _load_file(Path(path))


def _load_file(path: Path) -> Config:
    data = read_toml(path)
    root = path.resolve().parent
    if path.name == "pyproject.toml":
        table, prefix = data.get("tool", {}).get("hwlint", {}), "tool.hwlint."
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.hwlint] must be a table")
    else:  # hwlint.toml, .hwlint.toml, or any file given to --config: the settings at top level
        table, prefix = data, ""
    settings = _settings(table, str(path), prefix, root)
    for key, value in settings:
        if _KEYS[key] in ("path", "paths"):
            for named in (value,) if isinstance(value, str) else value:
                _confine(named, path, root, f"{prefix}{key}")
    return _apply(Config(root=root, source=path), settings)


def _confine(named: str, source: Path, root: Path, key: str) -> None:
    """A :class:`ConfigError` unless *named* (a path the configuration file *source* gives under
    *key*), its links resolved, lies in the configuration's tree: the directory holding it, the git
    work tree holding that, or the current directory. A pull request's ``taxonomy = "/any/file"``
    would have hwlint read, and quote in its errors, a file outside the checkout."""
    from ..effects import work_tree

    try:
        mode = os.stat(named).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return  # a device, a FIFO: refused unread when it is read (read_bounded), naming its kind
    except (OSError, ValueError):
        pass
    real = os.path.realpath(named)
    found = work_tree(str(root))
    trees = [str(root), os.getcwd(), *([os.path.realpath(found[0])] if found else [])]
    if any(under(real, t, itself=True) for t in trees):
        return
    raise ConfigError(
        f"{visible(str(source))}: {key}: {visible(named)} lies outside the "
        "configuration's tree (its directory, its git work tree, the current directory); "
        "name a file elsewhere on the command line"
    )


def parse_override(text: str, cwd: Path | None = None) -> list[Setting]:
    """A ``--config "key = value"`` argument as settings (ruff's syntax: one TOML ``key = value``,
    applied over every configuration; relative paths are relative to the current directory)."""
    try:
        table = _parse_toml(text, "--config")
    except ConfigError as e:
        raise ConfigError(
            f"not a configuration file, nor a TOML `key = value` override ({str(e).split(': ', 1)[1]})"
        ) from None
    return _settings(table, "", "", cwd or Path.cwd())


def is_override(text: str) -> bool:
    """Whether a ``--config`` argument is an override rather than a file: as ruff decides, an
    existing file is a file, and anything else must be TOML."""
    return not os.path.isfile(text)


class Configs:
    """Which configuration governs each file: the nearest one at or above it, or one pinned
    configuration (``--config FILE``, ``--isolated``) for every file; *overrides* (the command line)
    apply over each. *validate* is called on every configuration once, when it is first used: a
    problem it returns is a :class:`ConfigError`.

    ``primary`` is the configuration of the first path: where the cache lives by default, and what
    ``hwlint baseline`` writes by default."""

    def __init__(
        self,
        paths: Sequence[str] = (),
        config_file: str | None = None,
        isolated: bool = False,
        overrides: Sequence[Setting] = (),
        validate: Callable[[Config], str | None] | None = None,
        cwd: Path | None = None,
    ):
        if isolated and config_file:
            raise ConfigError(
                f"the argument `--config={config_file}` cannot be used with `--isolated` "
                "(`--isolated` ignores every configuration file)"
            )
        self.paths = tuple(paths)  # as given: the trees the run reads (:attr:`trees`)
        self._given = Trees.of(self.paths or ["."])  # resolved once: pre-commit names every file
        self._projects: set[str] = set()  # the directories of the configurations made
        self.cwd = (cwd or Path.cwd()).resolve()
        self.overrides = tuple(overrides)
        self.validate = validate
        self._by_dir: dict[str, Config] = {}
        self._made: dict[int, Config] = {}  # id(file config) -> with overrides
        self._files: dict[str, Config | None] = {}  # config file path -> its configuration
        self._pinned: Config | None = None
        if isolated:
            self._pinned = self._final(Config(root=self.cwd))
        elif config_file:
            self._pinned = self._final(_load_file(Path(config_file)))
        self._fallback = self._final(Config(root=self.cwd))
        start = _first_readable(paths)
        start = start if os.path.isdir(start) else start.parent
        self.primary = self.for_directory(str(start))
        # where the cache lives without --cache-dir: next to the configuration, else (as before
        # configurations were per file) next to the first path
        self.cache_root = self.primary.root if self.primary.source or self._pinned else start.resolve()

    @property
    def pinned(self) -> bool:
        return self._pinned is not None

    @property
    def trees(self) -> Trees:
        """The trees this run checks: those of the paths given (the current directory when none
        was) and the directories of the configurations used so far (their files are the pull
        request's too). Trusted for nothing (:class:`~hwlint.roots.Trees`)."""
        return self._given.adding(projects=sorted(self._projects))

    def _final(self, cfg: Config) -> Config:
        self._projects.add(str(cfg.root))
        cfg = _apply(cfg, self.overrides, self.cwd)
        problem = self.validate(cfg) if self.validate is not None else None
        if problem:
            raise ConfigError(problem)
        return cfg

    def _file_config(self, path: Path) -> Config:
        key = str(path)
        if key not in self._files:
            self._files[key] = self._final(_load_file(path))
        return self._files[key]

    def for_directory(self, directory: str, names: Iterable[str] | None = None) -> Config:
        """The configuration of the files in *directory*. *names*: its entries, when listed."""
        if self._pinned is not None:
            return self._pinned
        d = os.path.abspath(directory)
        found = self._by_dir.get(d)
        if found is not None:
            return found
        from ..roots import linked_away

        chain = []
        # a link out of the checkout: its configuration is not read (discovery, which gives *names*,
        # walks no link, and asks of every directory it lists)
        while names is None and linked_away(d) is not None:
            chain.append(d)
            d = os.path.dirname(d)
        cfg = None
        while True:
            known = self._by_dir.get(d)
            if known is not None:
                cfg = known
                break
            chain.append(d)
            source = config_file_in(d, names if len(chain) == 1 else None)
            if source is not None:
                cfg = self._file_config(source)
                break
            parent = os.path.dirname(d)
            if parent == d:
                cfg = self._fallback
                break
            d = parent
        for visited in chain:
            self._by_dir[visited] = cfg
        return cfg

    def for_path(self, path: str) -> Config:
        """The configuration that governs the file *path*."""
        if self._pinned is not None:
            return self._pinned
        return self.for_directory(os.path.dirname(path) or ".")

    def all(self) -> list[Config]:
        """Every configuration used so far, the primary one first."""
        out = [self.primary]
        for cfg in [self._pinned, *self._files.values(), self._fallback]:
            if cfg is not None and all(cfg is not c for c in out):
                out.append(cfg)
        return out


def config_for_paths(paths: Sequence[str], config_file: str | None = None, isolated: bool = False) -> Config:
    """The configuration of the first of *paths* (as :attr:`Configs.primary`): *config_file* when
    given, else the nearest configuration at or above the first path (the defaults when there is
    none). Commands that check files resolve each file's own with :class:`Configs`."""
    if isolated:
        return Config()
    if config_file:
        config = load_config(Path(config_file))
    else:
        start = _first_readable(paths)
        config = load_config(start=start if os.path.isdir(start) else start.parent)
    return config


def _first_readable(paths: Sequence[str]) -> Path:
    """The first of *paths* that discovery reads (not one a symlink leads out of the checkout:
    its configuration is not read either); the current directory when there is none."""
    from ..roots import linked_away

    return next((Path(p) for p in paths if linked_away(p) is None), Path("."))


@dataclass(frozen=True)
class Skipped:
    """A path discovery could not take: a directory it cannot list (*error*: reported as HWC901,
    as ruff reports E902) or a file that is not a regular file (a FIFO, a device: a warning)."""

    path: str
    reason: str
    error: bool
    # a directory discovery does not walk but pytest collects test files from (a directory symlink,
    # a default exclusion pytest does not share): hwselect counts these apart
    collected: bool = False

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def discover(
    paths: Sequence[str],
    config: Config | Configs,
    force_exclude: bool = False,
    skipped: list[Skipped] | None = None,
) -> Iterator[str]:
    """Files to check, in a stable order. Directories expand to files matching ``include``, each
    directory with the configuration that governs it (*config*: one :class:`Config` for every
    file, or the :class:`Configs` of a run); files named explicitly are always checked (missing
    ones too, so that they are reported), unless *force_exclude* applies the exclusions to them as
    well (for pre-commit). With ``respect-gitignore`` (the default), what git ignores in a work tree
    is skipped, as ruff skips it: untracked files matched by ``.gitignore``, ``.git/info/exclude``
    or the global excludes file (a file git tracks is never ignored).

    Nothing is dropped silently: what cannot be listed or is not a regular file is appended to
    *skipped*, which the caller reports."""
    from ..roots import linked_away

    configs = config if isinstance(config, Configs) else None
    seen: set[str] = set()
    skipped = skipped if skipped is not None else []
    for given in paths:
        away = linked_away(given)
        if away is not None:  # neither walked nor read, nor its configuration
            skipped.append(Skipped(os.path.normpath(given), away, True))
            continue
        if os.path.isdir(given):
            top = configs.for_directory(given) if configs is not None else config
            for found in _walk(given, top, configs, skipped):
                if found not in seen:
                    seen.add(found)
                    yield found
            continue
        if given in seen:
            continue
        governing = configs.for_path(given) if configs is not None else config
        if force_exclude and governing.is_excluded(given):
            continue
        seen.add(given)
        kind = _special(given)
        if kind is not None:
            skipped.append(Skipped(given, f"not a regular file ({kind}); skipped", False))
            continue
        yield given


def project_files(configs: Configs, prune: frozenset[str] = frozenset()) -> Iterator[str]:
    """The files ``hwlint check`` with no path would check: the current directory's scope, as
    discovery walks it (without adding to the trees a symlink may be read into). *prune*: absolute
    directories not to list (a run's given directories, whose files it has already)."""
    if os.path.abspath(".") not in prune:
        yield from _walk(".", configs.for_directory("."), configs, [], prune)


def _special(path: str, entry: os.DirEntry | None = None) -> str | None:
    """What *path* is when it exists and is not a regular file (None otherwise: a missing or
    unreadable file is read, and reported, like any other)."""
    from ..model.source import file_kind

    try:
        mode = entry.stat().st_mode if entry is not None else os.stat(path).st_mode
    except OSError:
        return None
    return file_kind(mode)


_name = operator.attrgetter("name")


def _walk(
    top: str,
    config: Config,
    configs: Configs | None,
    skipped: list[Skipped],
    prune: frozenset[str] = frozenset(),
) -> Iterator[str]:
    """os.walk's top-down order without its recursion (a tree nested deeper than the recursion
    limit) and without its silence (a directory it cannot list, a path past PATH_MAX). A directory
    holding a configuration file is walked with it (unless one is pinned); one in *prune* (absolute
    paths) is not walked."""

    shown = os.path.normpath  # "./a/b.py" -> "a/b.py", as relpath would say it, without its abspath calls
    gitignore = config.respect_gitignore or (configs is not None and not configs.pinned)
    ignored = git_ignored(top) if gitignore else None
    prefix = top if top.endswith(os.sep) else top + os.sep

    stack: list[tuple[str, Config]] = [(top, config)]
    while stack:
        dirpath, cfg = stack.pop()
        try:
            with os.scandir(dirpath) as it:
                entries = list(it)
        except OSError as e:
            skipped.append(Skipped(shown(dirpath), f"cannot list directory: {e.strerror or e}", True))
            continue
        if configs is not None and dirpath != top:
            cfg = configs.for_directory(dirpath, [e.name for e in entries])
        # the directories and the files the include patterns name, each in the order of their names
        # (a test tree's data files, seven in eight of PyTorch's entries, are never sorted)
        dirs, files = [], []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                dirs.append(entry)
            elif cfg.is_included(entry.name):
                files.append(entry)
        subdirs = []
        for entry in sorted(dirs, key=_name):
            # as os.walk: a link to a directory is not followed (a link may lead out of the checkout),
            # but pytest follows it: one that may hide test files is named, once
            if entry.is_symlink():
                hidden = behind_link(entry.path, cfg)
                if hidden is not None:
                    skipped.append(Skipped(shown(entry.path), hidden, False, collected=True))
                continue
            if cfg.is_excluded(entry.path, True):
                hidden = tracked_tests(entry, cfg)
                if hidden is not None:
                    skipped.append(Skipped(shown(entry.path), hidden, False, collected=True))
                continue
            if cfg.respect_gitignore and ignored and _ignored(entry.path, prefix, ignored, True):
                continue
            if prune and os.path.abspath(entry.path) in prune:
                continue
            subdirs.append((entry.path, cfg))
        for entry in sorted(files, key=_name):
            if cfg.is_excluded(entry.path, True):
                continue
            if cfg.respect_gitignore and ignored and _ignored(entry.path, prefix, ignored, False):
                continue
            kind = _special(entry.path, entry)
            if kind is not None:
                skipped.append(Skipped(shown(entry.path), f"not a regular file ({kind}); skipped", False))
                continue
            yield shown(entry.path)
        stack.extend(reversed(subdirs))


#: git ls-files answers in well under a second on a large tree; past this, check everything
GIT_TIMEOUT = 60


def git_ignored(top: str) -> frozenset[str] | None:
    """What git ignores under the directory *top*: untracked paths relative to *top* (directories
    with a trailing ``/``), as ``git ls-files --others --ignored --exclude-standard --directory``
    lists them. None when *top* is not in a git work tree or git cannot tell (then nothing is
    skipped: checking a file too many is the safe side). git reads the work tree's own repository
    only, with nothing that runs a program (:func:`hwlint.effects.git`)."""
    from ..effects import git

    out = git(
        ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"], top, GIT_TIMEOUT
    )
    if out is None:
        return None
    return frozenset(os.fsdecode(p) for p in out.split(b"\0") if p and p not in (b"./", b"."))


def _ignored(path: str, prefix: str, ignored: frozenset[str], is_dir: bool) -> bool:
    # discovery joins every path to the walked top: strip it rather than ask relpath (two abspaths)
    rel = (path[len(prefix) :] if path.startswith(prefix) else os.path.relpath(path, prefix)).replace(
        os.sep, "/"
    )
    return (rel + "/" if is_dir else rel) in ignored


def _relative(path: str, root: Path) -> str:
    # abspath, not resolve(): a symlink loop must not stop discovery, and links are judged by their name
    absolute = os.path.abspath(path)
    if os.sep == "/" and not os.altsep:  # POSIX: Path.relative_to's answer, without building two Paths
        base = str(root)
        if absolute == base:
            return "."
        if absolute.startswith(base if base.endswith("/") else base + "/"):
            return absolute[len(base) + (not base.endswith("/")) :]
    try:
        return Path(absolute).relative_to(root).as_posix()
    except ValueError:
        return Path(path).as_posix()


def _matches(rel: str, pattern: str) -> bool:
    """ruff-like matching: a pattern without "/" matches any path component; otherwise the path."""
    if "/" not in pattern.rstrip("/"):
        pattern = pattern.rstrip("/")
        return any(fnmatch.fnmatchcase(part, pattern) for part in rel.split("/"))
    return fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern.rstrip("/") + "/*")
