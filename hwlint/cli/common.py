"""What the ``hwlint`` and ``hwselect`` command lines share: argument parsing that exits 2 on a
usage error, the engine options, and the guard that turns any uncaught exception into exit 2.

It sits below both front ends, so neither imports the other.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable

from ..words import visible

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2  # hwlint's; hwselect adds 3, an empty selection


class Parser(argparse.ArgumentParser):
    """argparse's usage errors exit 2, as ruff's do, with the usage of the (sub)command at fault.

    Options are never abbreviated (argparse would take ``--stat`` for ``--statistics`` and, once
    another option starts so, refuse it): a mistyped option is an error that names the option
    meant, as ruff's clap does."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")

    def parse_known_args(self, args=None, namespace=None):
        try:
            return super().parse_known_args(args, namespace)
        except argparse.ArgumentError as e:  # pragma: no cover - exit_on_error is left on
            self.error(str(e))


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every long option *parser* accepts (the suppressed aliases too)."""
    return [o for a in parser._actions for o in a.option_strings if o.startswith("--")]


def unrecognized(parser: argparse.ArgumentParser, extra: list[str]) -> str:
    """argparse's "unrecognized arguments" message, with ruff's hint for a mistyped option:
    ``unrecognized arguments: --stat (did you mean `--statistics`?)``."""
    import difflib

    message = f"unrecognized arguments: {' '.join(extra)}"
    known = option_strings(parser)
    for arg in extra:
        if not arg.startswith("--"):
            continue
        name = arg.split("=", 1)[0]
        # a prefix of one option only is what an abbreviation meant; else the closest spelling
        prefixed = [o for o in known if o.startswith(name)]
        if len(prefixed) == 1:
            return f"{message} (did you mean `{prefixed[0]}`?)"
        # compared without the dashes every option shares, which would make any two look alike
        close = difflib.get_close_matches(name[2:], [o[2:] for o in known], n=1, cutoff=0.75)
        if close:
            return f"{message} (did you mean `--{close[0]}`?)"
    return message


def warn(prog: str, text: object) -> None:
    """``PROG: warning: TEXT`` on stderr, every name in it escaped (a file name's newline or ESC
    would start a forged line: ``::error::``)."""
    print(f"{prog}: warning: {visible(str(text))}", file=sys.stderr)


class UserError(Exception):
    """A usage, configuration or input problem: printed as ``PROG: error: MESSAGE``, exit 2.
    Several arguments are several lines (a list of the classes at fault)."""


def message(e: Exception) -> str:
    """*e*'s words for stderr: each argument of a :class:`UserError` one line, every line
    :func:`~hwlint.words.visible` (a name's newline would start a forged line)."""
    lines = [str(a) for a in e.args] if isinstance(e, UserError) and len(e.args) > 1 else [str(e)]
    return "\n".join(map(visible, lines))


def add_engine_options(parser: argparse.ArgumentParser) -> None:
    """--jobs, --no-cache and --cache-dir: how a command runs its per-file work
    (:mod:`hwlint.pipeline.engine`)."""
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="files read in parallel (default: number of cores)",
    )
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="cache directory (default: .hwlint_cache next to the configuration)",
    )


def options_of(cls, args, **extra):
    """The frozen options dataclass *cls* of a command's parsed *args*: each of its fields the
    arguments hold (a list as a tuple), *extra* over them, the others their default."""
    from dataclasses import fields

    given = {**vars(args), **extra}
    values = {f.name: given[f.name] for f in fields(cls) if f.name in given}
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def run_options(args):
    """The :class:`~hwlint.pipeline.session.RunOptions` of a command's parsed *args*: the one place
    a command's engine options (--jobs, --no-cache, --cache-dir, --ignore-noqa) are read; a command
    without one of them runs as its default says."""
    from ..pipeline.session import RunOptions

    given = vars(args)
    return RunOptions(
        jobs=given.get("jobs"),
        no_cache=bool(given.get("no_cache")),
        cache_dir=given.get("cache_dir"),
        noqa=not given.get("ignore_noqa"),
        progress=bool(given.get("progress")),
    )


def exiting(status: int) -> int:
    """*status*, for a console script about to exit: the objects the run left are frozen out of the
    cycle collector, whose collections at exit would walk every one of them to free nothing
    (a warm check of PyTorch's test/ spent 16 ms of its 0.22 s there). Finalizers and atexit
    handlers still run (``os._exit`` would skip them)."""
    gc.freeze()
    return status


def guarded(prog: str, run: Callable[[], int], ok: int = 0) -> int:
    """Run a command; map every way it can end to an exit code.

    Exit 1 means "findings" (hwlint) and 3 "empty selection" (hwselect), so a crash must never end
    with either: an uncaught exception is one line naming it, and exit 2 (ruff does the same).

    The cycle collector is off meanwhile, as in the engine's workers: hwlint's records and trees
    hold no reference cycles, and a warm run, which decodes some 100,000 cached objects, spent a
    tenth of its time in collections that found nothing to free.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        return run()
    except UserError as e:
        print(f"{prog}: error: {message(e)}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader stopped early: it decided nothing about the run
        quiet_stdout()
        return ok
    except Exception as e:  # the last line of defence
        where = _where(e)
        print(
            f"{prog}: error: internal error: {type(e).__name__}: {visible(str(e))}{where} "
            f"(please report it; a missing module means the installation is incomplete)",
            file=sys.stderr,
        )
        return EXIT_ERROR
    finally:
        if collecting:
            gc.enable()


def written(status: int, write: Callable[[], None]) -> int:
    """Write the command's output with *write*; return *status*, whatever happens to the pipe.

    A reader that stops early (``hwlint check . | head``) closes the pipe; the findings are still
    there, so the exit code stays the run's (1 with findings, under ``set -o pipefail`` too), never
    0 (ruff exits 0 then) nor a traceback (flake8's, exit 1)."""
    try:
        write()
        sys.stdout.flush()
    except BrokenPipeError:
        quiet_stdout()
    return status


def quiet_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush of a closed pipe neither
    prints "Exception ignored" nor turns the exit code into 120."""
    import os

    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's StringIO)
        pass


def _where(e: BaseException) -> str:
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    return f" at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
