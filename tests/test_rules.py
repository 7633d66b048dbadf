"""Every rule against its fixture file, under every shipped taxonomy, through every front end.

Fixture files in tests/fixtures/ are named after a code; each offending line carries the expected
code as a trailing comment (`# HWC001`), optionally limited to one taxonomy (`# HWC104[strict]`) or
excluding one (`# HWC002[!vendor]`).
Clean lines sit next to flagged ones, so a rule that fires too often fails as surely as one that
does not fire.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest

from hwlint.rules.check import check_path
from hwlint.rules.registry import RULES
from hwlint.taxonomy import load_taxonomy

from .conftest import DEFAULT_TAXONOMY, ROOT, STRICT_TAXONOMY, VENDOR_TAXONOMY, expected, run_tool

FIXTURES = Path(__file__).parent / "fixtures"


def _inherit_taxonomy() -> Path:
    """The default taxonomy with `inherit: true` (the runtime's view of inherited declarations)."""
    path = Path(tempfile.mkdtemp(prefix="hwlint-")) / "taxonomy-inherit.yaml"
    text = DEFAULT_TAXONOMY.read_text()
    assert "\ninherit: false\n" in text
    path.write_text(text.replace("\ninherit: false\n", "\ninherit: true\n"))
    return path


TAXONOMIES = {
    "default": DEFAULT_TAXONOMY,
    "strict": STRICT_TAXONOMY,
    "vendor": VENDOR_TAXONOMY,
    "inherit": _inherit_taxonomy(),
    "availability": ROOT / "examples" / "taxonomy-availability-only.yaml",
}
FIXTURE_FILES = sorted(FIXTURES.glob("HWC*.py"))


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
@pytest.mark.parametrize("fixture", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture(fixture: Path, taxonomy: str):
    tax = load_taxonomy(TAXONOMIES[taxonomy])
    found = {(f.line, f.code) for f in check_path(str(fixture), fixture.read_bytes(), tax)[0]}
    assert found == expected(fixture, taxonomy)


def test_every_rule_has_a_doc_a_fixture_and_a_test():
    headings = ["## What it does", "## Why is this bad?", "## Example", "## Use instead"]
    fixture_codes = {p.stem for p in FIXTURE_FILES}
    marked = {code for p in FIXTURE_FILES for t in TAXONOMIES for _, code in expected(p, t)}
    # an internal error and a stale baseline entry cannot come from one file: see their own tests
    tested_elsewhere = {"HWC900", "HWC902"}
    for code, rule in RULES.items():
        positions = [rule.doc.find(h) for h in headings]
        assert -1 not in positions and positions == sorted(positions), f"{code} doc headings"
        assert re.fullmatch(r"[a-z]+(-[a-z0-9]+)+", rule.name), code
        if code in tested_elsewhere:
            continue
        assert code in fixture_codes, f"{code} has no fixture file"
        assert code in marked, f"{code} is never expected in any fixture"


def _flake8_findings(taxonomy: Path, files: list[Path]) -> set[tuple]:
    res = run_tool(
        "flake8",
        "--isolated",
        "--select",
        "HWC",
        "--hw-taxonomy",
        str(taxonomy),
        "--format",
        "%(path)s\t%(row)d\t%(col)d\t%(code)s\t%(text)s",
        *map(str, files),
    )
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    return {tuple(line.split("\t")) for line in res.stdout.splitlines()}


def _hwlint_findings(taxonomy: Path, files: list[Path]) -> set[tuple]:
    res = run_tool(
        "hwlint",
        "check",
        "--isolated",
        "--taxonomy",
        str(taxonomy),
        "--output-format",
        "json",
        *map(str, files),
    )
    assert res.returncode == 1, res.stderr
    return {
        (f["filename"], str(f["location"]["row"]), str(f["location"]["column"]), f["code"], f["message"])
        for f in json.loads(res.stdout)
    }


@pytest.mark.parametrize("taxonomy", TAXONOMIES)
def test_installed_hwlint_and_flake8_agree_on_the_fixtures(taxonomy):
    files = [p for p in FIXTURE_FILES if p.stem != "HWC901"]  # flake8 reports E999 itself
    # a cross-file case: bases, tests and device code from a test module the file imports
    files += sorted((FIXTURES / "project" / "forward").glob("test_*.py"))
    hw = _hwlint_findings(TAXONOMIES[taxonomy], files)
    fl = _flake8_findings(TAXONOMIES[taxonomy], files)
    assert hw == fl
    lines_and_codes = {(Path(p).name, int(row), code) for p, row, _, code, _ in hw}
    assert lines_and_codes == {(p.name, ln, code) for p in files for ln, code in expected(p, taxonomy)}


def test_flake8_reports_unparsable_files_as_e999():
    res = run_tool("flake8", "--isolated", "--select", "HWC,E999", str(FIXTURES / "HWC901.py"))
    assert res.returncode == 1
    assert res.stdout.startswith(f"{FIXTURES / 'HWC901.py'}:5:")
    assert " E999 SyntaxError" in res.stdout


def test_flake8_reads_the_taxonomy_from_its_config(tmp_path):
    (tmp_path / "setup.cfg").write_text(f"[flake8]\nselect = HWC\nhw-taxonomy = {STRICT_TAXONOMY}\n")
    src = (FIXTURES / "HWC104.py").read_text()
    (tmp_path / "test_x.py").write_text(src)
    res = run_tool("flake8", "test_x.py", cwd=tmp_path)
    codes = sorted(line.split()[1] for line in res.stdout.splitlines())
    assert codes == ["HWC104", "HWC104", "HWC104"], res.stdout + res.stderr


def test_flake8_with_bad_taxonomy_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("classifications: {A: {device: tpu}}\n")
    res = run_tool(
        "flake8", "--isolated", "--select", "HWC", "--hw-taxonomy", str(bad), str(FIXTURES / "HWC001.py")
    )
    assert res.returncode == 2
    assert f"hwlint: error: {bad}:1: classifications.A.device: unknown device type 'tpu'" in res.stderr
    assert "Traceback" not in res.stderr


def test_project_lints_clean_with_its_own_checker_and_ruff():
    # hwlint's own test files are where the checker applies (test_*.py); the fixtures are faulty on purpose.
    res = run_tool("hwlint", "check", "--isolated", "--extend-exclude", "fixtures", str(ROOT / "tests"))
    assert (res.returncode, res.stdout) == (0, "All checks passed!\n"), res.stdout + res.stderr
    ruff = run_tool("ruff", "check", str(ROOT))
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    fmt = run_tool("ruff", "format", "--check", str(ROOT / "hwlint"))
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_rule_docs_are_generated_from_the_registry():
    """docs/rules.md is `hwlint rule --all --output-format markdown`; regenerate it when a rule changes."""
    res = run_tool("hwlint", "rule", "--all", "--output-format", "markdown")
    assert res.returncode == 0, res.stderr
    assert (ROOT / "docs" / "rules.md").read_text() == res.stdout, (
        "docs/rules.md is stale: run `hwlint rule --all --output-format markdown > docs/rules.md`"
    )
    headings = re.findall(r"^## (HWC\d{3})$", res.stdout, re.MULTILINE)
    assert headings == list(RULES)


def test_rule_urls_point_at_anchors_of_the_rule_docs(tmp_path):
    from hwlint.rules.docs import RULES_DOC, RULES_URL

    anchors = {h.lower() for h in re.findall(r"^## (\S+)$", (ROOT / RULES_DOC).read_text(), re.MULTILINE)}
    (tmp_path / "test_a.py").write_text("class TestA:\n    def test_x(self):\n        pass\n")
    res = run_tool("hwlint", "check", "--output-format", "sarif", "test_a.py", cwd=tmp_path)
    sarif = json.loads(res.stdout)
    urls = [r["helpUri"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    res = run_tool("hwlint", "check", "--output-format", "json", "test_a.py", cwd=tmp_path)
    urls += [f["url"] for f in json.loads(res.stdout)]
    assert len(urls) == len(RULES) + 1
    for url in urls:
        base, _, anchor = url.partition("#")
        assert base == RULES_URL and anchor in anchors, url
