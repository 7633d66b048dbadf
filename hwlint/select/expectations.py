"""A vendor's expectations: tests expected to fail, or to be skipped, on its runners, keyed by the
identity of :mod:`hwlint.select.identity` so that they survive a device suffix and a rename.

The file is YAML (a list, or a mapping with an ``expectations:`` list) or JSON Lines (one object a
line); docs/expectations.md is its schema. Each entry: ``key`` (``path::Class::test``, globs
allowed), ``status`` (``xfail`` or ``skip``), ``reason``, optional ``issue`` and ``runners`` (names
or globs; none: every runner). Node-id lists (Ascend's ``pr_skip_list.jsonl``: one JSON object a
line holding a node id, or plain node-id lines) are imported by :func:`import_nodeids`.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..collection import key_of_nodeid
from ..words import excerpt
from .identity import ClassRef, key_matches, moved_key

XFAIL, SKIP = "xfail", "skip"
STATUSES = (XFAIL, SKIP)
_FIELDS = ("key", "status", "reason", "issue", "runners")
#: Fields a node-id list's objects may name the test with, in the order they are tried.
NODEID_FIELDS = ("nodeid", "node_id", "test", "testcase", "case", "name", "id")


class ExpectationsError(Exception):
    """An expectations file that cannot be used; ``str()`` names the file and the line or entry."""


@dataclass(frozen=True)
class Expectation:
    key: str
    status: str
    reason: str
    issue: str | None = None
    runners: tuple[str, ...] = ()
    where: str = ""  # ``file:line`` or ``file: entry N``, for messages

    def applies_to(self, runner: str | None) -> bool:
        """Whether the entry is for *runner* (None: no runner given; only entries for every runner)."""
        if not self.runners:
            return True
        return runner is not None and any(fnmatch.fnmatchcase(runner, r) for r in self.runners)

    def as_json(self) -> dict:
        out: dict = {"key": self.key, "status": self.status, "reason": self.reason}
        if self.issue:
            out["issue"] = self.issue
        if self.runners:
            out["runners"] = list(self.runners)
        return out


def load_expectations(path: str) -> list[Expectation]:
    """The entries of *path*: JSON Lines when it ends in ``.jsonl``, YAML otherwise."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ExpectationsError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    if path.endswith(".jsonl"):
        raw = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                raw.append((f"{path}:{n}", json.loads(line)))
            except json.JSONDecodeError as e:
                raise ExpectationsError(f"{path}:{n}: not JSON: {e.msg}") from None
    else:
        raw = [(f"{path}: entry {i}", item) for i, item in enumerate(_yaml_entries(path, text), 1)]
    return [_entry(where, item) for where, item in raw]


def _yaml_entries(path: str, text: str) -> list:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        raise ExpectationsError(f"{where}: not YAML: {getattr(e, 'problem', None) or e}") from None
    if data is None:
        return []
    if isinstance(data, dict):
        data = data.get("expectations", None)
    if not isinstance(data, list):
        raise ExpectationsError(f"{path}: expected a list of entries (or `expectations:` holding one)")
    return data


def _entry(where: str, item: object) -> Expectation:
    if not isinstance(item, dict):
        raise ExpectationsError(f"{where}: expected an object with key, status and reason")
    unknown = sorted(set(item) - set(_FIELDS))
    if unknown:
        fields = ", ".join(_FIELDS)
        raise ExpectationsError(f"{where}: unknown field {excerpt(unknown[0])} (fields: {fields})")
    key, status, reason = item.get("key"), item.get("status"), item.get("reason")
    if not isinstance(key, str) or key.count("::") != 2:
        raise ExpectationsError(f"{where}: `key` must be path::Class::test, got {excerpt(key)}")
    if status not in STATUSES:
        allowed = ", ".join(STATUSES)
        raise ExpectationsError(f"{where}: `status` must be one of {allowed}, got {excerpt(status)}")
    if not isinstance(reason, str) or not reason.strip():
        raise ExpectationsError(f"{where}: `reason` must say why")
    issue = item.get("issue")
    if issue is not None and not isinstance(issue, str):
        raise ExpectationsError(f"{where}: `issue` must be a link or an issue reference")
    runners = item.get("runners", ())
    if isinstance(runners, str):
        runners = (runners,)
    if not isinstance(runners, (list, tuple)) or not all(isinstance(r, str) for r in runners):
        raise ExpectationsError(f"{where}: `runners` must be a runner name or a list of them")
    return Expectation(key, status, reason, issue, tuple(runners), where)


def matching(entries: Sequence[Expectation], key: str, runner: str | None) -> Expectation | None:
    """The first entry for *runner* that names *key*."""
    return next((e for e in entries if e.applies_to(runner) and key_matches(e.key, key)), None)


@dataclass
class Audit:
    """What an expectations file says against one runner's selection."""

    runner: str
    stale: list[Expectation]  # match no test the runner selects
    moved: list[tuple[Expectation, str]]  # a rename moved the class: the rewritten key
    uncovered: list[str]  # keys of tests new on the runner that no entry names

    def lines(self) -> list[str]:
        out = [f"{e.where}: {e.key}: stale on {self.runner}: matches no test it selects" for e in self.stale]
        out += [
            f"{e.where}: {e.key}: moved on {self.runner} to {new} (--fix rewrites it)"
            for e, new in self.moved
        ]
        if self.uncovered:
            out.append(f"{len(self.uncovered):,} tests new on {self.runner} have no expectation")
        return out

    def as_json(self) -> dict:
        return {
            "runner": self.runner,
            "stale": [e.key for e in self.stale],
            "moved": [{"key": e.key, "new_key": new} for e, new in self.moved],
            "uncovered": list(self.uncovered),
        }


def audit(
    entries: Sequence[Expectation],
    runner: str,
    selected: Iterable[str],
    renames: dict[ClassRef, tuple[ClassRef, float]] | None = None,
    new_tests: Iterable[str] = (),
    test_renames: dict[str, str] | None = None,
) -> Audit:
    """Entries for *runner* that name none of the *selected* keys (stale; those a rename moved are
    *moved*, with the key rewritten: a class renamed or moved by *renames*, a test renamed in its
    class by *test_renames*, old key -> new key), and the *new_tests* keys no entry names."""
    keys = list(selected)
    mine = [e for e in entries if e.applies_to(runner)]
    stale, moved = [], []
    for e in mine:
        new = (test_renames or {}).get(e.key) or moved_key(e.key, renames or {})
        if new is not None:
            moved.append((e, new))
        elif not any(key_matches(e.key, k) for k in keys):
            stale.append(e)
    uncovered = [k for k in new_tests if not any(key_matches(e.key, k) for e in mine)]
    return Audit(runner, stale, moved, uncovered)


def rewrite(path: str, moves: Iterable[tuple[str, str]]) -> int:
    """Rewrite the moved keys of the file *path* in place (its text otherwise as it was: comments
    and order stay); the number of keys rewritten. Written whole or not at all."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    done = 0
    for old, new in dict(moves).items():
        if old in text:
            text = text.replace(old, new)
            done += 1
    if done:
        from ..effects import write_output

        write_output(path, text)
    return done


def import_nodeids(
    lines: Iterable[str], suffixes: tuple[str, ...], runners: Sequence[str], status: str, reason: str
) -> tuple[list[Expectation], list[str]]:
    """Entries for a node-id list (each line a JSON object holding a node id, or a node id), one
    per key (dtype variants of a test fold into one); and the lines that name no test in a class."""
    out: dict[str, Expectation] = {}
    rejected = []
    for line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        nodeid, own_reason, issue = _nodeid_of(text)
        key = key_of_nodeid(nodeid, suffixes) if nodeid else None
        if key is None:
            rejected.append(text)
            continue
        out.setdefault(key, Expectation(key, status, own_reason or reason, issue, tuple(runners)))
    return list(out.values()), rejected


def _nodeid_of(text: str) -> tuple[str | None, str | None, str | None]:
    if not text.startswith("{"):
        return text, None, None
    try:
        obj = json.loads(text)
    except json.JSONDecodeError:
        return None, None, None
    if not isinstance(obj, dict):
        return None, None, None
    found = next((obj[f] for f in NODEID_FIELDS if isinstance(obj.get(f), str)), None)
    if found is None:
        strings = [v for v in obj.values() if isinstance(v, str) and "::" in v]
        found = strings[0] if len(strings) == 1 else None
    reason = obj.get("reason") if isinstance(obj.get("reason"), str) else None
    issue = obj.get("issue") if isinstance(obj.get("issue"), str) else None
    return found, reason, issue


def dump(entries: Sequence[Expectation], path: str) -> None:
    """Write *entries* to *path*: JSON Lines for ``.jsonl``, YAML otherwise (atomically)."""
    if path.endswith(".jsonl"):
        text = "".join(json.dumps(e.as_json()) + "\n" for e in entries)
    else:
        import yaml

        text = yaml.safe_dump({"expectations": [e.as_json() for e in entries]}, sort_keys=False, width=200)
    from ..effects import write_output

    write_output(path, text)
