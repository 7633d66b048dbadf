"""``hwlint check`` over many files: the per-file phase (each file checked alone, in parallel, cached
with its links), then the cross-file phase over the files whose findings depend on other modules."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..model import FileModel, Resolver
from ..model.source import MAX_FILE_BYTES
from ..project import Links, links_of
from ..rules.check import Finding, Selection, check_path, run_rules, unreadable
from ..taxonomy import Taxonomy
from .cache import Cache
from .config import Config
from .engine import keep_model
from .session import Linked, RunOptions, Session

_ALL = Selection(("HWC",), ())


def check_paths(
    files: Sequence[str],
    taxonomy: Taxonomy,
    jobs: int | None = None,
    cache: Cache | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> list[list[Finding]]:
    """Every finding (all codes, noqa applied) for each of *files*, in the same order: the library's
    one-call entry point (a :class:`Session` of these settings and :func:`check_project`).

    Files run in parallel on *jobs* processes; results are identical to a serial run. With a *cache*,
    unchanged files are not read again. The findings see the project."""
    options = RunOptions(jobs, no_cache=cache is None, cache=cache, max_bytes=max_bytes)
    return check_project(files, Session.from_config(Config(), options, taxonomy)).findings


@dataclass
class ProjectCheck:
    """The findings of each file, and which files' findings depend on other files."""

    findings: list[list[Finding]]
    linked: list[str] = field(default_factory=list)  # paths as given
    # the project's resolver of each linked file, by path: loads the models (a fix plans with them)
    resolvers: Callable[[], dict[str, Resolver]] = dict


#: The cache kind and value type of a file's check: its findings, alone, and its Links.
CHECK_KIND = "check"
CHECK_VALUE = tuple[list[Finding], Links | None]


def check_project(files: Sequence[str], session: Session) -> ProjectCheck:
    """:func:`check_paths` with the project model: two phases.

    The first checks each file on its own (parallel, cached with the file's
    :class:`~hwlint.project.Links`). The second, over those links, checks again with the project's
    resolver only the files whose bases or instantiated classes come from another test module, or
    whose classes another one instantiates (:meth:`Session.link`): their inherited
    classification, inherited tests and instantiations are the runtime's."""
    kind = session.noqa_kind(CHECK_KIND)
    try:
        per_file = session.analyze(
            files,
            check_analysis(session),
            kind,
            CHECK_VALUE,
            keep=True,
            meanwhile=lambda: session.prefetch(files),
        )
        return link_checked(files, per_file, session)
    finally:
        session.held.close()  # whatever the second phase did not take


def check_analysis(session: Session) -> Callable[[str, bytes | str, Taxonomy], CHECK_VALUE]:
    """The per-file check as *session* runs it (its cache kind: ``session.noqa_kind(CHECK_KIND)``)."""
    return _check_analysis if session.noqa else functools.partial(_check_analysis, noqa=False)


def link_checked(
    files: Sequence[str], per_file: Sequence[tuple[list[Finding], Links | None]], session: Session
) -> ProjectCheck:
    """The second phase of :func:`check_project`, over the first one's (findings, links) per file
    (however they were computed: a fix computes them in its own pass)."""
    links = {path: replace(lk, path=path) for path, (_, lk) in zip(files, per_file, strict=True) if lk}
    taxonomy = session.taxonomy
    given = files
    extra = session.instantiating(files, links)
    if extra:  # read as the given files are; their findings are not reported here
        kind = session.noqa_kind(CHECK_KIND)
        found = session.analyze(extra, check_analysis(session), kind, CHECK_VALUE, progress=False)
        links.update((path, replace(lk, path=path)) for path, (_, lk) in zip(extra, found, strict=True) if lk)
        files = [*files, *extra]

    def check_linked(models: dict[str, FileModel]) -> dict[str, list[Finding]]:
        return {path: run_rules(model, taxonomy, _ALL, noqa=session.noqa) for path, model in models.items()}

    made: list[Linked] = []  # the phase's models, made once: a fix plans with them after the check

    def linker() -> Linked:
        if not made:
            made.append(session.link(files, links))
        return made[0]

    def resolvers() -> dict[str, Resolver]:
        models = linker().models
        return {path: m.resolver for path, m in models.items() if m.resolver is not None}

    kind = session.noqa_kind("check-linked")
    linked = session.linked(files, links, kind, check_linked, list[Finding], linker)[1]
    out = []
    for path, (findings, _) in zip(given, per_file, strict=True):
        findings = linked.get(path, findings)
        # the cache is keyed by absolute path: a value cached from another directory names the
        # file as it was given then
        out.append([f if f.path == path else replace(f, path=path) for f in findings])
    named = set(given)
    return ProjectCheck(out, [p for p in linked if p in named], resolvers)


def _check_analysis(
    path: str, data: bytes | str, taxonomy: Taxonomy, noqa: bool = True
) -> tuple[list[Finding], Links | None]:
    """One file's findings, checked alone, and what the cross-file phase needs of it (its model is
    kept for that phase: :func:`~hwlint.pipeline.session.model_analysis` would build the same)."""
    if isinstance(data, str):
        return unreadable(path, data), None
    findings, context = check_path(path, data, taxonomy, _ALL, noqa=noqa)
    model = context.model if context is not None else None
    keep_model(model)
    return findings, links_of(model) if model is not None and model.error is None else None
