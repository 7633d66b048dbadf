"""hwselect's options, typed (:class:`SelectOptions`): what its arguments ask, read once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .common import options_of, run_options

if TYPE_CHECKING:
    from ..pipeline.session import RunOptions


@dataclass(frozen=True)
class SelectOptions:
    """What the arguments of hwselect (or of ``hwselect explain``, ``hwselect verify``) ask, typed:
    read once from the parsed arguments (:meth:`of`; an option a command lacks has its default),
    the command then reads these, never the arguments. *run*: the session's options."""

    runner: str | None = None
    paths: tuple[str, ...] = ()  # as given (none: the current directory)
    target: str = ""  # explain: PATH::CLASS
    format: str = "nodeids"
    include_unclassified: bool = False
    runners: str | None = None  # matrix: "A,B"
    shards: int = 1  # matrix: shards per runner
    shard: str | None = None  # "I/N"
    durations: tuple[str, ...] = ()
    argsfile: str | None = None
    expectations: str | None = None
    quiet: bool = False
    verbose: bool = False
    taxonomy: str | None = None
    config: str | None = None
    backend: tuple[str, ...] = ()
    timeout: int = 3600  # verify: pytest's collection time limit
    allow_uncollectable: bool = False  # verify
    run: RunOptions | None = None

    @classmethod
    def of(cls, args) -> SelectOptions:
        return options_of(cls, args, run=run_options(args))
