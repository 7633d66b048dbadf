"""What the ``hwlint`` commands share around the pipeline: each file's configuration with the
command line's settings over it, the taxonomies of a run (each loaded once), its baselines, the
session and cache of each group of files, and the check pass over one group.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from .common import UserError as _UserError
from .common import warn

if TYPE_CHECKING:
    from ..roots import Trees


@dataclass(frozen=True)
class ConfigOptions:
    """What a command's arguments say about the configuration of its files, typed: read once from
    the parsed arguments (:meth:`of`); a command without one of these options has its default."""

    command: str | None = None
    paths: list[str] | None = None
    config: list[str] | None = None  # `--config`: a file, or `key = value` overrides
    isolated: bool = False
    taxonomy: str | None = None
    max_file_size: int | None = None
    respect_gitignore: bool | None = None
    exclude: list[str] | None = None
    extend_exclude: list[str] | None = None
    select: list[str] | None = None
    ignore: list[str] | None = None
    extend_select: list[str] | None = None
    extend_ignore: list[str] | None = None

    @classmethod
    def of(cls, args) -> ConfigOptions:
        given = vars(args)
        return cls(**{f.name: given.get(f.name, f.default) for f in fields(cls)})


def load_configs(options: ConfigOptions, paths: Sequence[str] | None = None):
    """The :class:`~hwlint.pipeline.config.Configs` of a command (its :class:`ConfigOptions`):
    each file's nearest configuration, or the one ``--config FILE`` / ``--isolated`` pins, with the
    command line's settings (``--config "key = value"``, then the dedicated options) applied over
    every one."""
    from ..pipeline.config import ConfigError, Configs, is_override, parse_override
    from ..rules.check import selector_problem

    config_file = None
    overrides: list = []
    try:
        for value in options.config or []:
            if not is_override(value):
                if config_file is not None:
                    raise _UserError(
                        f"more than one configuration file on the command line: `--config={config_file}` "
                        f"and `--config={value}`"
                    )
                config_file = value
                continue
            try:
                settings = parse_override(value)
            except ConfigError as e:
                raise _UserError(f"invalid value {value!r} for '--config': {e}") from None
            _check_override_selectors(value, settings)
            overrides += settings
        overrides += _flag_settings(options)
        validate = selector_problem if options.command in ("check", "baseline") else None
        paths = options.paths or [] if paths is None else paths
        return Configs(paths, config_file, options.isolated, overrides, validate)
    except ConfigError as e:
        raise _UserError(str(e)) from None


def _flag_settings(options: ConfigOptions) -> list:
    """The dedicated options as settings over every configuration: they win over the files and over
    ``--config`` overrides, as ruff's do."""

    out: list = []
    if options.taxonomy:
        out.append(("taxonomy", options.taxonomy))  # relative to the current directory, as given
    if options.max_file_size:
        out.append(("max-file-size", options.max_file_size))
    if options.respect_gitignore is not None:
        out.append(("respect-gitignore", options.respect_gitignore))
    if options.exclude is not None:
        out.append(("exclude", tuple(options.exclude)))
    if options.extend_exclude:
        out.append(("extend-exclude", tuple(options.extend_exclude)))
    for key, value in (
        ("select", options.select),
        ("ignore", options.ignore),
        ("extend-select", options.extend_select),
        ("extend-ignore", options.extend_ignore),
    ):
        if value is not None and (value or key in ("select", "ignore")):
            out.append((key, tuple(value)))
    return out


def _check_override_selectors(value: str, settings) -> None:
    from ..rules.check import unknown_selectors

    for key, v in settings:
        codes = [c for _, cs in v for c in cs] if key == "per-file-ignores" else v
        if key in ("select", "extend-select", "ignore", "extend-ignore", "per-file-ignores"):
            bad = unknown_selectors(codes)
            if bad:
                raise _UserError(
                    f"invalid value {value!r} for '--config': {key}: unknown rule selector {bad[0]!r} "
                    "(`hwlint rule --all` lists the rules)"
                )


def config_and_taxonomy(config_file: str | None, taxonomy_file: str | None, run, paths: Sequence[str]):
    """The configuration of *paths* (as `hwlint check` finds it, not the working directory's, or
    *config_file*: ``--config``) and the taxonomy it or *taxonomy_file* (``--taxonomy``) names
    (:func:`read_taxonomy`), its parse remembered as the session's options *run* allow; a bad
    one is a UserError."""
    from ..pipeline.config import ConfigError, config_for_paths
    from ..pipeline.session import run_trees

    try:
        config = config_for_paths(paths, config_file)
    except ConfigError as e:
        raise _UserError(str(e)) from None
    trees = run_trees(config, paths=paths)
    return config, read_taxonomy(taxonomy_file or config.taxonomy, not run.no_cache, trees)


def read_taxonomy(path: str | None, remember: bool = True, trees: Trees | None = None):
    """The taxonomy at *path* (None: the bundled one), its parse kept between runs with
    *remember* (not with ``--no-cache``) beside a key outside the run's *trees*
    (:class:`~hwlint.roots.Trees`; None: a run given no paths); a bad one is a usage error."""
    from ..pipeline.config import ConfigError, read_bounded
    from ..taxonomy import TaxonomyError, load_taxonomy

    try:
        if path is not None:
            # a taxonomy a configuration names is read only if it is a regular file of a sane size
            # (TODO(lead): read it through this helper in hwlint.taxonomy, not twice)
            read_bounded(path, "taxonomy", TAXONOMY_MAX_BYTES)
        return load_taxonomy(path, remember) if trees is None else load_taxonomy(path, remember, trees)
    except (TaxonomyError, ConfigError) as e:
        raise _UserError(str(e)) from None


#: a taxonomy is a few KB of YAML; the bundled one 10 KB
TAXONOMY_MAX_BYTES = 4 * 1024 * 1024


class Taxonomies:
    """The taxonomies of one run, by path, each loaded once (None: the bundled one)."""

    def __init__(self, remember: bool = True, trees: Trees | None = None):
        """*remember*, *trees*: see :func:`read_taxonomy`."""
        self.remember, self.trees = remember, trees
        self.loaded: dict[str | None, object] = {}

    def __call__(self, path: str | None):
        if path not in self.loaded:
            self.loaded[path] = read_taxonomy(path, self.remember, self.trees)
        return self.loaded[path]


def selections(configs):
    """path -> the Selection its configuration (with the command line's over it) enables."""
    from ..rules.check import Selection

    def selection_for(path: str) -> Selection:
        cfg = configs.for_path(path)
        return Selection(cfg.select, cfg.ignore).with_ignored(cfg.ignored_for(path))

    return selection_for


def groups(paths: Sequence[str], configs) -> list[tuple[object, list[str]]]:
    """*paths* grouped by what the engine needs one of per run: the taxonomy, the size cap and the
    import roots of the configuration that governs each file; in the order of first appearance,
    each with the configuration of its first file (which says those three for all of them).

    Each group is checked as a project of its own (cross-file links do not cross groups): a run
    over files whose configurations name different taxonomies is several runs."""
    groups: dict[tuple, tuple[object, list[str]]] = {}
    for path in paths:
        cfg = configs.for_path(path)
        groups.setdefault((cfg.taxonomy, cfg.max_file_size, cfg.roots), (cfg, []))[1].append(path)
    return list(groups.values())


class Baselines:
    """The baselines of a run: ``--baseline FILE`` for every file (relative to the first path's
    configuration), else the one each file's configuration names."""

    def __init__(self, given: str | None, configs):
        """*given*: ``--baseline FILE``, None when not given."""
        self.given, self.configs = given, configs
        self.loaded: dict[str, object] = {}
        self.warnings: list[str] = []
        self.any = bool(given) or any(c.baseline for c in configs.all())
        self._stale_done: set[tuple] = set()
        # read now, whether or not a file follows it: a bad baseline is an error in any run
        if given:
            self._load(given, configs.primary.root)
        elif configs.primary.baseline:
            self._load(configs.primary.baseline, configs.primary.root)

    def for_path(self, path: str):
        if self.given:
            return self._load(self.given, self.configs.primary.root)
        cfg = self.configs.for_path(path)
        if cfg.baseline is None:
            return None
        self.any = True
        return self._load(cfg.baseline, cfg.root)

    def _load(self, path: str, root):
        from ..pipeline.baseline import BaselineError, load_baseline

        if path not in self.loaded:
            try:
                baseline = load_baseline(path, root)
            except BaselineError as e:
                raise _UserError(str(e)) from None
            if baseline.legacy:
                self.warnings.append(
                    f"{path}: a list of files is the first baseline format, which hides every new "
                    f"finding in a listed file; `hwlint baseline --regenerate -o {path}` records "
                    "(file, class, code)"
                )
            self.loaded[path] = baseline
        return self.loaded[path]

    def apply(self, found):
        """*found* less what the baselines record, and each baseline's stale entries (HWC902) among
        these files, each baseline's entries once over the run."""
        from ..pipeline.baseline import apply_baseline

        by_baseline: dict[str, list] = {}
        out = []
        for path, findings in found:
            baseline = self.for_path(path)
            if baseline is None:
                out.append((path, findings))
            else:
                by_baseline.setdefault(baseline.path, []).append((path, findings))
        stale = []
        for key, items in by_baseline.items():
            kept, stale_here = apply_baseline(self.loaded[key], items)
            out += kept
            fresh = [f for f in stale_here if (f.path, f.line, f.message) not in self._stale_done]
            self._stale_done.update((f.path, f.line, f.message) for f in fresh)
            stale += fresh
        order = {path: i for i, (path, _) in enumerate(found)}
        out.sort(key=lambda item: order[item[0]])
        return out, stale


def check_all(session, paths, selection_for, fix=None, fixable=None):
    """(path, enabled findings) for every path: parallel, cached, in the order given, seen through
    the project model; the project check (which files' findings depend on others); and the files
    planned in the same pass (with *fix*, the fix options: see :func:`hwlint.fix.apply.check_and_fix_paths`;
    *fixable* says which paths may be fixed)."""
    from ..pipeline.check import check_project
    from ..pipeline.progress import Bar

    planned: dict = {}
    bar = Bar(len(paths), "checking", show_progress(session))
    session = replace(session, progress=bar)
    try:
        if fix is None:
            checked = check_project(paths, session)
        else:
            from ..fix.apply import check_and_fix_paths

            checked, planned = check_and_fix_paths(paths, session, selection_for, fix, fixable)
    finally:
        bar.close()
    found = []
    for path, findings in zip(paths, checked.findings, strict=True):
        selection = selection_for(path)
        found.append((path, [f for f in findings if selection.enabled(f.code)]))
    return found, checked, planned


def skipped_findings(skipped, selection_for) -> list:
    """Of the paths discovery *skipped*, a directory it cannot list is an HWC901 finding (as
    ruff's E902); a file that is not a regular file (a FIFO) is a warning."""
    from ..rules.check import unreadable

    out = []
    for s in skipped:
        if not s.error:
            warn("hwlint", s)
            continue
        selection = selection_for(s.path)
        out.append((s.path, [f for f in unreadable(s.path, s.reason) if selection.enabled(f.code)]))
    return out


def session_for(options, configs, taxonomy, config, given: Sequence[str], paths: Sequence[str], group):
    """The pipeline session of one *group* of the files discovered (*paths*) under the *given*
    paths, which *config* governs: run as *options* ask, an import followed into any file named
    as the configuration's tests are."""
    from ..pipeline.session import Session

    walked = walked_whole(given or ["."], paths, group)
    return Session.from_config(config, options, taxonomy, configs, project=True, walked=walked)


def say_notices(session, said: set[str]) -> None:
    """What *session* has to say (a cache turned off), but what the run has *said* already."""
    for notice in session.notices:
        if notice not in said:
            said.add(notice)
            warn("hwlint", notice)


def walked_whole(given: Sequence[str], paths: Sequence[str], group: Sequence[str]) -> frozenset[str]:
    """The directories among *given* (absolute) that discovery walked into *paths* and all of whose
    files are in *group*: the project's walk for the files that may instantiate the group's
    classes need not list them again (a given file is no candidate), as it would on every run of
    ``hwlint check test/`` from a checkout's root."""
    from ..roots import under

    cwd = os.getcwd()
    dirs = {os.path.normpath(os.path.join(cwd, d)) for d in given if os.path.isdir(d)}
    if not dirs:
        return frozenset()
    grouped = set(group)
    for path in paths:
        if path not in grouped:
            absolute = os.path.normpath(os.path.join(cwd, path))
            dirs = {d for d in dirs if not under(absolute, d)}
    return frozenset(dirs)


def show_progress(session) -> bool:
    """Whether *session*'s run shows a progress bar (asked, or a terminal: see :func:`wanted`)."""
    from ..pipeline.progress import wanted

    return wanted(session.options.progress)
