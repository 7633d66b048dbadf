"""The pipeline every command runs: one :class:`Session`, and its two phases.

A session holds what a run shares: the taxonomy, the worker processes, the cache, the size cap on
the files read, the checked roots, the progress bar and the notices the run gives. It is built one
way, :meth:`Session.from_config`, from a configuration and the :class:`RunOptions` a front end
translated its own arguments into. Every command (check, fix, select, report) runs the same two
phases on it:

* the **per-file phase** (:meth:`Session.analyze`): each file read once, analysed alone on the
  pool, its value cached by content; every analysis also returns the file's
  :class:`~hwlint.project.Links`, what the second phase needs of it;
* the **cross-file phase** (:meth:`Session.link`, :meth:`Session.linked`): over those links, only the
  files whose bases or instantiated classes come from another test module, and those modules, are
  given the project's resolver, the whole phase cached as one value. Their models come from the
  processes of the per-file phase, which keep them until this phase has asked (a check's analysis
  builds the same model), or are built again. The modules a file imports are followed as flake8's
  plugin follows them, whether or not they were given on the command line: a file's findings do not
  depend on which other files are checked with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..model import FileModel
from ..model.source import MAX_FILE_BYTES, read_source
from ..project import Instantiators, Links, Project, model_at, with_resolver
from ..roots import NONE_GIVEN, Trees
from ..taxonomy import Taxonomy
from .cache import Cache, content_hash
from .config import Config, Configs
from .engine import Held, analyze_files, file_hash, store_values


@dataclass(frozen=True)
class RunOptions:
    """What a front end asks of a run beyond the configuration, typed: each front end translates
    its own arguments (a command line, flake8's options, a pytest config) into one of these once."""

    jobs: int | None = None  # worker processes (None: one per core)
    no_cache: bool = False  # `--no-cache`
    cache_dir: str | None = None  # `--cache-dir` (else $HWLINT_CACHE_DIR, else next to the config)
    # a cache the caller opened and keeps across runs (the library's entry points): used as it is
    cache: Cache | None = None
    max_bytes: int | None = None  # a size cap in bytes over the configuration's max-file-size
    noqa: bool = True  # False: `--ignore-noqa`
    progress: bool = False  # `--progress`: a progress bar even where one is not shown by default


@dataclass(frozen=True)
class Session:
    """What one run shares across its phases; built by :meth:`from_config`."""

    taxonomy: Taxonomy
    jobs: int | None = None
    cache: Cache | None = None
    max_bytes: int = MAX_FILE_BYTES
    roots: tuple[str, ...] = ()  # the configuration's import roots
    # the trees the run checks: a symlink is read only into them, no cache key is trusted in them
    trees: Trees = NONE_GIVEN
    progress: Callable[[int], None] | None = field(default=None, compare=False)
    # which files an import may be followed into (the files a check would scan), beyond those given
    follow: Callable[[str], bool] | None = field(default=None, compare=False)
    # the project's files that may instantiate a class of another file (None: only those given)
    instantiators: Instantiators | None = field(default=None, compare=False)
    # whether noqa comments suppress findings (False: `--ignore-noqa`)
    noqa: bool = True
    # the processes of a per-file phase run with ``keep``, and the models they hold for :meth:`link`
    held: Held = field(default_factory=Held, compare=False, repr=False)
    # what the run has to say beside its results (a cache turned off...): the front end shows them
    notices: list[str] = field(default_factory=list, compare=False, repr=False)
    # what the front end asked (the options the session's own fields do not hold: its progress bar)
    options: RunOptions = field(default=RunOptions(), compare=False, repr=False)

    @classmethod
    def from_config(
        cls,
        config: Config,
        options: RunOptions,
        taxonomy: Taxonomy,
        configs: Configs | None = None,
        project: bool = False,
        walked: frozenset[str] = frozenset(),
        paths: Sequence[str] | None = None,
        trees: Trees | None = None,
    ) -> Session:
        """The session of a run over files *config* governs (its size cap and roots) with
        *taxonomy* (the one *config* names, which the front end loaded and reported errors of),
        as *options* ask. *configs*: the run's configurations, when it has several; the cache then
        lives next to the primary one. With *project* (``hwlint check``), imports are followed into
        the test files of *configs*' project and its files are read for the instantiations of a
        checked class (but the directories in *walked*: given directories whose files the run has).

        The run's :class:`~hwlint.roots.Trees` are those of *configs* (the paths it was given, the
        directories of its configurations), else those of *paths* as given and *config*'s
        directory, else the current directory's (a library call given no paths); *trees*, when
        given, are the run's (a second session of a run that has them)."""
        trees = trees if trees is not None else run_trees(config, configs, paths)
        max_bytes = options.max_bytes or config.max_file_size * 1024 * 1024
        notices: list[str] = []
        cache = options.cache
        if cache is None and not options.no_cache:
            from .cache import open_cache

            root = configs.cache_root if configs is not None else config.root
            cache = open_cache(taxonomy.digest, root, options.cache_dir, trees=trees)
            if cache is not None and cache.key_refused:
                notices.append(f"cache key not used, the cache is off: {cache.key_problem}")
        follow = instantiators = None
        if project:
            import functools

            from ..project import project_instantiators
            from .config import is_test_file_name, project_files

            configs = configs or Configs()
            follow = functools.partial(is_test_file_name, include=configs.primary.include)
            instantiators = project_instantiators(lambda: project_files(configs, walked), taxonomy, max_bytes)
        return cls(
            taxonomy,
            options.jobs,
            cache,
            max_bytes,
            tuple(config.roots),
            trees,
            follow=follow,
            instantiators=instantiators,
            noqa=options.noqa,
            notices=notices,
            options=options,
        )

    def reading(self, paths: Sequence[str]) -> Session:
        """This session over the trees under *paths* too (discovered after it was built): a
        symlink may point into them (:meth:`~hwlint.roots.Trees.adding`)."""
        return replace(self, trees=self.trees.adding(paths))

    def noqa_kind(self, kind: str) -> str:
        """The cache kind of an analysis whose findings *noqa* changes."""
        return kind if self.noqa else f"{kind}:ignore-noqa"

    def instantiating(self, files: Sequence[str], links: dict[str, Links]) -> list[str]:
        """Files of the project, beyond *files*, that may instantiate a class one of *files*
        defines (*links*: theirs): the cross-file phase reads them as if they were given, so a
        file's findings do not depend on which others were named."""
        if self.instantiators is None:
            return []
        classes = {path: [name for name, _ in lk.classes] for path, lk in links.items()}
        classes.update((path, []) for path in files if path not in classes)
        return self.instantiators.candidates(classes)

    def prefetch(self, files: Sequence[str]) -> None:
        """Read now what :meth:`instantiating` will read of the project's files other than *files*
        (a run's per-file phase does it while its processes work: it needs no result of theirs)."""
        if self.instantiators is not None:
            self.instantiators.prefetch({os.path.abspath(p) for p in files})

    def analyze(
        self,
        files: Sequence[str],
        analysis: Callable[[str, bytes | str, Taxonomy], Any],
        kind: str,
        value_type: Any = Any,
        progress: bool = True,
        keep: bool = False,
        **options: Any,
    ) -> list:
        """The per-file phase: *analysis* of each of *files* (see
        :func:`hwlint.pipeline.engine.analyze_files` for *options*), in the order given. With
        *keep*, the processes stay open with the models the analysis kept, for :meth:`link` (an
        analysis that keeps the models :func:`model_analysis` would build)."""
        return analyze_files(
            files,
            self.taxonomy,
            analysis,
            kind,
            self.jobs,
            self.cache,
            self.max_bytes,
            value_type,
            self.progress if progress else None,
            keep=self.held if keep else None,
            trees=self.trees,
            **options,
        )

    def project(
        self, files: Sequence[str], loader: Callable[[str], FileModel | None] | None = None
    ) -> Project:
        """The project of *files* (as given), following imports into the files :attr:`follow` accepts."""
        index = {os.path.abspath(p): p for p in files}
        return Project((), self.roots, loader=loader, paths=index, follow=self.follow, helper_loader=loader)

    def link(self, files: Sequence[str], links: dict[str, Links]) -> Linked:
        """The cross-file phase's models over the per-file *links* (path as given -> its :class:`Links`).

        Only the files whose bases or instantiated classes come from another test module, and
        those modules, are loaded (cached apart, so a warm run parses nothing); every other file is
        left to its per-file result. A file one of those instantiates a class of is linked too: its
        instantiation rules read the calls of the other file."""
        taxonomy, max_bytes, trees = self.taxonomy, self.max_bytes, self.trees

        def load(path: str) -> FileModel | None:
            found = model_analysis(path, read_source(path, max_bytes, trees=trees), taxonomy)
            return None if isinstance(found, str) else found

        project = self.project(files, load)
        index = project.given
        helpers = {path: project.helpers(lk) for path, lk in links.items()}
        wanted = {path: project.providers(lk) + helpers[path] for path, lk in links.items()}
        wanted = {path: v for path, v in wanted.items() if v}
        only_helpers = {h for v in helpers.values() for h in v} - {
            p for path, lk in links.items() for p in project.providers(lk)
        }
        if not wanted:
            return Linked(project, {})
        need = sorted({*(os.path.abspath(p) for p in wanted), *(a for v in wanted.values() for a in v)})
        kept = self.held.models(need)
        self.held.close()
        store_values(self.cache, "model", max_bytes, kept)
        rest = [p for p in need if p not in kept]
        built = self.analyze(rest, model_analysis, "model", FileModel | str, progress=False)
        loaded = dict(zip(rest, built, strict=True))
        loaded.update((p, model) for p, (_, model) in kept.items())
        for path in need:
            model = loaded[path]
            if isinstance(model, str):
                continue
            if path in only_helpers and path not in index and path not in wanted:
                project.helper_models[path] = model if model.error is None else None  # read, never checked
            else:
                project.add(model_at(model, index.get(path, path)))
        resolver = project.resolver()
        linked = list(wanted)
        for path in wanted:
            model = project.model_of(os.path.abspath(path))
            if model is not None:
                # given or not: the phase's values then depend on the contents of the files it
                # reads alone, as its cache key does (a run given fewer files reads the same entry)
                linked += [index.get(a, a) for a in resolver.note_instantiations(model)]
        out = {}
        for path in dict.fromkeys(linked):
            model = project.model_of(os.path.abspath(path))
            if model is not None:
                out[path] = with_resolver(model, resolver)
        return Linked(project, out)

    def linked(
        self,
        files: Sequence[str],
        links: dict[str, Links],
        kind: str,
        compute: Callable[[dict[str, FileModel]], dict[str, Any]],
        value_type: Any,
        linker: Callable[[], Linked] | None = None,
    ) -> tuple[Project, dict[str, Any]]:
        """The cross-file phase of one analysis, cached as a whole: *compute* (linked models by
        path -> values by path) runs on :meth:`link`'s models, and its values are kept under *kind*
        for the contents of every file the phase read. A warm run then loads no model at all: it
        reads the links, hashes the few files they name, checks that every import the values
        depended on resolves as it did (a file that shadows another, a run from another directory:
        the module each lookup found, or that none was, is kept with the values) and finds the
        values. *linker*, when given,
        makes the :class:`Linked` models (a caller that needs them again keeps them).

        Returns the project (for what needs only links: imported classes, unresolved imports) and
        the values, by path as given."""
        project = self.project(files)
        wanted = {path: project.providers(lk) + project.helpers(lk) for path, lk in links.items()}
        need = sorted(
            {os.path.abspath(p) for p, v in wanted.items() if v} | {a for v in wanted.values() for a in v}
        )
        if not need:
            return project, {}
        cache, max_bytes = self.cache, self.max_bytes
        kind = f"{kind}:max-bytes={max_bytes}"
        stored = tuple[dict[str, str], list[tuple[str, str, str | None]], dict[str, value_type]]
        key = content_hash("\0".join(f"{p}\0{_sha(p, max_bytes, cache, self.trees)}" for p in need).encode())
        if cache is not None:
            hit = cache.get(need[0], key, kind, stored)
            if (
                hit is not None
                and all(_sha(p, max_bytes, cache, self.trees) == sha for p, sha in hit[0].items())
                and project.resolves_as(hit[1])
            ):
                cache.save()  # the stamps of files only this phase reads
                # a file given twice (`test_a.py`, `../sub/test_a.py`) has its value under both names
                spellings: dict[str, list[str]] = {}
                for given in files:
                    spellings.setdefault(os.path.abspath(given), []).append(given)
                return project, {g: v for p, v in hit[2].items() for g in spellings.get(p, ())}
        made = linker() if linker is not None else self.link(files, links)
        values = compute(made.models)
        if cache is not None:
            # files the phase loaded beyond those the links name (a base's own base): their contents
            # are checked on every hit; and how each import it looked up resolved
            read = [*made.project.models, *made.project.helper_models]
            extra = {p: _sha(p, max_bytes, cache, self.trees) for p in read if p not in need}
            lookups = dict.fromkeys([*project.resolutions(), *made.project.resolutions()])
            values_by_path = {os.path.abspath(p): v for p, v in values.items()}
            cache.store(need[0], key, kind, (extra, list(lookups), values_by_path))
            cache.save()
        # the values of the files given: the project's others (read for their instantiation calls)
        # are not this run's to report
        named = {*files, *project.given.values()}
        return made.project, {p: v for p, v in values.items() if p in named}


@dataclass
class Linked:
    """The outcome of the cross-file phase: the project, and the model (its resolver set to the
    project's) of every given file whose analysis depends on another test module."""

    project: Project
    models: dict[str, FileModel]  # by the path as given


def model_analysis(path: str, data: bytes | str, taxonomy: Taxonomy) -> FileModel | str:
    """The engine analysis the cross-file phase loads models with (cached as kind ``model``)."""
    from ..model import build_model  # the builder: imported by the runs that build a model

    return data if isinstance(data, str) else build_model(data, path, taxonomy)


def _sha(path: str, max_bytes: int, cache: Cache | None, trees: Trees) -> str:
    return file_hash(path, max_bytes, cache, trees=trees) or ""


def run_trees(config: Config, configs: Configs | None = None, paths: Sequence[str] | None = None) -> Trees:
    """The trees of a run over files *config* governs (see :meth:`Session.from_config`)."""
    if configs is not None:
        return configs.trees
    if paths is not None:
        return Trees.of(paths or ["."], [str(config.root)])
    return NONE_GIVEN
