"""HWC9xx: file-level findings the checker raises itself (an internal error, an unreadable file, a
stale baseline entry); these functions only hold their documentation."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import Context
from .base import Hit, doc_only, rule


@rule("HWC900", "internal-error", "Internal error in rule {rule}: {error}.")
@doc_only
def internal_error(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports that one of hwlint's own rules failed on this file. The other rules and files still run.

    ## Why is this bad?
    The failed rule did not check the file, so its findings may be missing. It is a bug in hwlint:
    please report it with the file that triggers it.

    ## Example
    ```
    test_x.py:1:1: HWC900 Internal error in rule HWC204: RecursionError: maximum recursion depth.
    ```

    ## Use instead
    Nothing to change in the file; upgrade hwlint or report the bug.
    """
    return iter(())


@rule("HWC901", "unparsable-file", "Cannot check file: {reason}.")
@doc_only
def unparsable_file(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports a file that cannot be read, decoded or parsed as Python.

    ## Why is this bad?
    A file hwlint cannot read is a file whose classes it cannot check; the upstream linter passes
    such a file silently, which hides every problem in it.

    ## Example
    ```python
    class TestFoo(TestCase)
        def test_x(self): ...
    ```

    ## Use instead
    Fix the syntax error (or the encoding, or the file's permissions).
    """
    return iter(())


@rule(
    "HWC902",
    "stale-baseline-entry",
    "Baseline entry `{entry}` has no findings any more; remove it from {baseline}.",
    severity="warning",
)
@doc_only
def stale_baseline_entry(ctx: Context) -> Iterator[Hit]:
    """
    ## What it does
    Reports an entry of the baseline (the allowlist of files `check --baseline FILE` skips) whose file
    now checks clean, or no longer exists.

    ## Why is this bad?
    The baseline exists so a project can adopt hwlint without fixing every file on day one; it
    should only shrink. A stale entry lets new findings creep back into a file that was clean.

    ## Example
    ```json
    ["test/test_ops.py", "test/test_already_fixed.py"]
    ```

    ## Use instead
    ```json
    ["test/test_ops.py"]
    ```
    or rewrite the file with `hwlint baseline --regenerate`.
    """
    return iter(())
