"""``hwlint report --compare``: a saved ``hwlint-report/1`` JSON read back (its shape checked) and what
changed since it, per directory, per runner and per finding."""

from __future__ import annotations

import json
from collections import Counter

from .data import CLASSIFIED, SCHEMA, ReportError


def load_report(path: str) -> dict:
    """An earlier ``hwlint report --format json``; ReportError when it is not one."""

    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: cannot read: {e.strerror or e}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ReportError(f"{path}: not a JSON report: {e}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        found = data.get("schema") if isinstance(data, dict) else None
        raise ReportError(f"{path}: not a {SCHEMA} report (schema: {found!r})")
    problem = _schema_problem(data, _REPORT_SCHEMA, "")
    if problem is not None:
        raise ReportError(f"{path}: not a valid {SCHEMA} report: {problem}")
    return data


def compare(new: dict, old: dict, against: str) -> dict:
    """What changed from *old* to *new* (both ``to_json()`` documents without their compare).

    Classes are matched by (path, name), findings by (path, code, message): line numbers move with
    every edit above them. Both reports must be made from the same directory for paths to match.
    """
    old_classes, new_classes = _by_key(old["classes"]), _by_key(new["classes"])
    changed = {"newly_classified": [], "declassified": [], "reclassified": []}
    for key, row in new_classes.items():
        before = old_classes.get(key)
        if before is None:
            continue
        was, now = before["status"] == CLASSIFIED, row["status"] == CLASSIFIED
        entry = {**_class_ref(row), "before": _label(before), "after": _label(row)}
        if now and not was:
            changed["newly_classified"].append(entry)
        elif was and not now:
            changed["declassified"].append(entry)
        elif was and before["classification"] != row["classification"]:
            changed["reclassified"].append(entry)
    new_findings, fixed = _finding_changes(old["findings"], new["findings"])
    return {
        "against": against,
        "total": _delta(old["total"], new["total"]),
        "directories": _directory_deltas(old["directories"], new["directories"]),
        "runners": _runner_deltas(old["runners"], new["runners"]),
        **changed,
        "new_classes": [_class_ref(r) for k, r in new_classes.items() if k not in old_classes],
        "removed_classes": [_class_ref(r) for k, r in old_classes.items() if k not in new_classes],
        "new_findings": new_findings,
        "fixed_findings": fixed,
    }


_DELTA_KEYS = (
    "files",
    "classes",
    "tests",
    "classified",
    "classified_percent",
    "never_run_tests",
    "findings_total",
)


def _delta(old: dict | None, new: dict | None) -> dict:
    """[before, after] for each headline count; None on the side where the directory is absent."""
    return {k: [old.get(k) if old else None, new.get(k) if new else None] for k in _DELTA_KEYS}


def _directory_deltas(old: list[dict], new: list[dict]) -> list[dict]:
    """Directories whose headline counts changed (added and removed ones too), in path order."""
    before, after = {d["path"]: d for d in old}, {d["path"]: d for d in new}
    out = []
    for path in sorted(before.keys() | after.keys(), key=lambda p: p.split("/")):
        delta = _delta(before.get(path), after.get(path))
        if any(a != b for a, b in delta.values()):
            out.append({"path": path, **delta})
    return out


def _runner_deltas(old: list[dict], new: list[dict]) -> list[dict]:
    before = {r["name"]: r for r in old}
    out = []
    for r in new:
        b = before.get(r["name"], {})
        out.append(
            {
                "name": r["name"],
                "classes": [b.get("classes"), r["classes"]],
                "tests": [b.get("tests"), r["tests"]],
            }
        )
    return out


def _by_key(rows: list[dict]) -> dict[tuple, dict]:
    """Rows keyed by (path, name, n): n tells apart classes of one name defined twice in a file."""
    seen: Counter = Counter()
    out = {}
    for row in rows:
        seen[(row["path"], row["name"])] += 1
        out[(row["path"], row["name"], seen[(row["path"], row["name"])])] = row
    return out


def _class_ref(row: dict) -> dict:
    return {"path": row["path"], "line": row["line"], "name": row["name"], "tests": row["tests"]}


def _label(row: dict) -> str:
    """A class's state in one word: its classification, or its status when it has none."""
    return row["classification"] if row["status"] == CLASSIFIED else row["status"]


def _finding_changes(old: list[dict], new: list[dict]) -> tuple[list[dict], list[dict]]:
    """(new findings, fixed findings), matched as multisets of (path, code, message)."""

    def key(f: dict) -> tuple:
        return f["path"], f["code"], f["message"]

    left = Counter(key(f) for f in old)
    added = []
    for f in new:
        if left[key(f)]:
            left[key(f)] -= 1
        else:
            added.append(f)
    right = Counter(key(f) for f in new)
    fixed = []
    for f in old:
        if right[key(f)]:
            right[key(f)] -= 1
        else:
            fixed.append(f)
    return added, fixed


# What --compare reads from an earlier report, with its types (docs/report-json.md): an old report
# is input like any other, and its values end up in an HTML page. A dict is a mapping with at
# least these keys; a one-item list is a list of such items; a tuple lists the accepted types.
_NUMBER = (int, float)


_COUNTS = {k: int for k in _DELTA_KEYS} | {"classified_percent": (*_NUMBER, type(None))}


_REPORT_SCHEMA = {
    "taxonomy": {"digest": str, "classifications": [str]},
    "total": _COUNTS,
    "directories": [{"path": str, **_COUNTS}],
    "runners": [{"name": str, "classes": int, "tests": int}],
    "classes": [
        {
            "path": str,
            "line": int,
            "name": str,
            "tests": int,
            "status": str,
            "classification": (str, type(None)),
        }
    ],
    "findings": [{"path": str, "line": int, "col": int, "code": str, "message": str}],
}


def _schema_problem(value: object, schema: object, where: str) -> str | None:
    """Where *value* departs from *schema* (see _REPORT_SCHEMA), or None."""
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return f"{where or 'the top level'}: expected an object"
        for key, sub in schema.items():
            if key not in value:
                return f"{where or 'the top level'}: missing key {key!r}"
            problem = _schema_problem(value[key], sub, f"{where}.{key}" if where else key)
            if problem is not None:
                return problem
        return None
    if isinstance(schema, list):
        if not isinstance(value, list):
            return f"{where}: expected a list"
        for i, item in enumerate(value):
            problem = _schema_problem(item, schema[0], f"{where}[{i}]")
            if problem is not None:
                return problem
        return None
    types = schema if isinstance(schema, tuple) else (schema,)
    if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
        expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
        return f"{where}: expected {expected}, got {type(value).__name__}"
    return None


# -- against a revision: the report of its tree, and hwselect diff's tests --------------------


def compare_revision(doc: dict, rev: str, paths: list[str], taxonomy, configs, options) -> dict:
    """What changed since the git revision *rev*: the report of *rev*'s files (read as
    ``hwselect diff`` reads them, never checked out) compared as a saved report is, with the
    classes hwselect diff finds renamed taken out of ``new_classes``/``removed_classes`` into
    ``renamed_classes``, and, per runner, hwselect diff's own counts (``tests``): one diff, so the
    report and hwselect never disagree."""
    import os

    from ..pipeline.session import Session
    from ..select.diff import diff_trees
    from ..select.trees import Request, revision_tree, select_tree
    from .data import report_paths

    primary = configs.primary
    session = Session.from_config(primary, options, taxonomy, trees=configs.trees)  # the run's
    request = Request(session, primary, list(taxonomy.runners.values()))
    given = paths or ["."]
    with revision_tree(rev, given) as (root, rels, shown):
        scan = [os.path.join(root, r) for r in rels if os.path.lexists(os.path.join(root, r))]
        old = report_paths(scan, taxonomy, primary, doc.get("depth"), options).to_json() if scan else None
        old = _respelled(old, root, shown) if old is not None else _empty(doc)
        before = select_tree(request, root, rels, shown, rev, cached=False)
    after = select_tree(request, os.path.abspath(shown), rels, shown, "work tree")
    diff = diff_trees(before, after)
    out = compare(doc, old, rev)
    renamed = {o: (n, kind) for o, n, kind, _ in diff.renames}
    gone = {(n[0], n[1]) for n, _ in renamed.values()}
    out["removed_classes"] = [c for c in out["removed_classes"] if (c["path"], c["name"]) not in renamed]
    out["new_classes"] = [c for c in out["new_classes"] if (c["path"], c["name"]) not in gone]
    out["renamed_classes"] = [
        {"old": f"{o[0]}::{o[1]}", "new": f"{n[0]}::{n[1]}", "cause": kind}
        for o, (n, kind) in renamed.items()
    ]
    out["tests"] = [{"runner": r.runner, **r.as_json()["counts"]} for r in diff.runners]
    return out


def _respelled(value, root: str, shown: str):
    """*value* (a report document) with every path under the temporary *root* spelled as the
    work tree's files are (under *shown*)."""
    import os

    prefix = os.path.abspath(root) + os.sep
    if isinstance(value, dict):
        return {k: _respelled(v, root, shown) for k, v in value.items()}
    if isinstance(value, list):
        return [_respelled(v, root, shown) for v in value]
    if isinstance(value, str) and value.startswith(prefix):
        return os.path.normpath(os.path.join(shown, value[len(prefix) :])).replace(os.sep, "/")
    return value


def _empty(doc: dict) -> dict:
    """A report of nothing, shaped as *doc*: the revision had none of the paths."""
    zero = {k: (0 if isinstance(v, int) else None) for k, v in doc["total"].items()}
    return {**doc, "total": zero, "directories": [], "runners": [], "classes": [], "findings": []}
