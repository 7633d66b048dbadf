"""`hwlint report --format html`: one offline page, checked as text and in a real headless chromium.

The chromium tests need Debian's `chromium` package (.ci/run installs it) and skip without it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT, run_tool

CHROMIUM = "/usr/bin/chromium"
needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is not installed")


def render(tmp_path: Path, *args: str, cwd: Path = ROOT, name: str = "report.html") -> Path:
    out = tmp_path / name
    res = run_tool("hwlint", "report", "--no-cache", "--format", "html", "-o", str(out), *args, cwd=cwd)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    return render(tmp_path_factory.mktemp("html"), "examples")


def test_page_is_self_contained(page):
    html = page.read_text()
    assert html.startswith("<!DOCTYPE html>\n")
    # the only URL is the SVG namespace, which is a name, not a fetch
    assert set(re.findall(r"https?://[^\"' )]+", html)) == {"http://www.w3.org/2000/svg"}
    for fetch in ("<script src", "<link", "@import", "url(", "<img", "<iframe"):
        assert fetch not in html
    assert "default-src 'none'" in html  # and the page's own policy forbids fetching anything


def test_page_has_charts_tables_and_source_links(page):
    html = page.read_text()
    for ident in ("chart-classes", "chart-runners"):
        assert f'<svg id="{ident}" class="chart"' in html
    for ident in ("directory-table", "runner-table", "attention-table", "findings-table"):
        assert f'<table id="{ident}" class="sortable">' in html
    # the links are relative to where the page is written and end in #L<line>
    links = [
        (href, re.sub(r"<[^>]+>", "", text))
        for href, text in re.findall(r'<a href="([^"]+)"><code class="path">(.+?)</code></a>', html)
    ]
    assert [text for _, text in links] == [
        "examples/test/test_cuda_kernels.py:40",
        "examples/test/test_ops.py:48",
        "examples/test/test_serialization.py:45",
    ]
    for href, text in links:
        path, line = text.rsplit(":", 1)
        target, anchor = href.split("#")
        assert anchor == f"L{line}"
        assert Path(os.path.normpath(page.parent / target)) == ROOT / path
    # one segment per non-zero count: directories 7 + 7 + 2 + 3, runners 3 + 2 + 2 + 2 + 1 + 1
    assert html.count('class="seg"') == 30
    assert 'aria-valuenow="88.9"' in html


def test_text_is_escaped(tmp_path):
    weird = tmp_path / "a&b <dir>"
    weird.mkdir()
    (weird / "test_x.py").write_text("class TestX(TestCase):\n    def test_x(self): ...\n")
    html = render(tmp_path, "--isolated", ".", cwd=weird).read_text()
    assert "<dir>" not in html
    assert 'href="test_x.py#L1"' not in html  # the page is written one level up
    assert 'href="a%26b%20%3Cdir%3E/test_x.py#L1"' in html


# ---------------------------------------------------------------------------------------------
# In a real browser


def chromium(page: Path, tmp_path: Path, *flags: str) -> tuple[str, str]:
    """(DOM after the page's scripts ran, chromium's log) for *page*, opened from disk."""
    profile = tmp_path / "profile"
    res = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *flags,
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout, res.stderr


def with_probe(html: str, probe: str) -> str:
    """*html* with the test script *probe* (``<script>...</script></body>``) at the end, allowed by
    its hash: the page's policy runs no inline script but its own."""
    code = probe[len("<script>") : -len("</script></body>")]
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    return html.replace("script-src '", f"script-src 'sha256-{digest}' '").replace("</body>", probe)


def console_errors(log: str) -> list[str]:
    """Console messages and script errors chromium logged for the page."""
    return [line for line in log.splitlines() if "CONSOLE" in line or "Uncaught" in line]


@needs_chromium
def test_page_loads_without_errors_in_chromium(page, tmp_path):
    dom, log = chromium(page, tmp_path)
    assert console_errors(log) == []
    assert re.search(r'<body[^>]* data-ready="1"', dom), "the page's script did not run to its end"
    assert dom.count('class="seg"') == 30
    for ident in ("chart-classes", "chart-runners"):
        assert f'<svg id="{ident}"' in dom
    rows = {
        ident: dom.split(f'<table id="{ident}"')[1].split("</table>")[0].count("<tr")
        for ident in ("directory-table", "runner-table", "attention-table", "findings-table")
    }
    assert rows == {"directory-table": 5, "runner-table": 7, "attention-table": 4, "findings-table": 10}


@needs_chromium
def test_tables_sort_when_a_header_is_clicked(page, tmp_path):
    # A test-only script clicks the runner table's "Tests" header twice and records the runner order.
    probe = """<script>
    const th = document.querySelectorAll("#runner-table th")[4];
    const order = () => Array.from(document.querySelectorAll("#runner-table tbody tr"))
        .map((r) => r.cells[0].dataset.sort).join(",");
    th.querySelector("button").click();
    document.body.dataset.ascending = order() + "|" + th.getAttribute("aria-sort");
    th.querySelector("button").click();
    document.body.dataset.descending = order() + "|" + th.getAttribute("aria-sort");
    </script></body>"""
    probed = tmp_path / "probed.html"
    probed.write_text(with_probe(page.read_text(), probe))
    dom, log = chromium(probed, tmp_path)
    assert console_errors(log) == []
    # ties keep the page's order (cuda before rocm); xpu 3, mps 4, privateuse1 7, cuda/rocm 11, cpu 14
    assert 'data-ascending="xpu,mps,privateuse1,cuda,rocm,cpu|ascending"' in dom
    assert 'data-descending="cpu,cuda,rocm,privateuse1,mps,xpu|descending"' in dom


@needs_chromium
def test_compare_page_loads_in_chromium(tmp_path):
    shutil.copytree(ROOT / "examples" / "test", tmp_path / "test")
    res = run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "json",
        "-o",
        "old.json",
        "test",
        cwd=tmp_path,
    )
    assert res.returncode == 0, res.stderr
    (tmp_path / "test" / "nn" / "test_new.py").write_text(
        "class TestNew(TestCase):\n    def test_n(self): ...\n"
    )
    (tmp_path / "test" / "nn" / "test_gen.py").write_text(
        "class TestGen(TestCase):\n"
        "    hw_classification = HardwareClassification.GENERIC\n"
        "    def test_g(self): ...\n"
    )
    page = render(tmp_path, "--isolated", "--compare", "old.json", "test", cwd=tmp_path)
    dom, log = chromium(page, tmp_path)
    assert console_errors(log) == []
    assert re.search(r'<body[^>]* data-ready="1"', dom)
    assert '<h2 id="compare-title">Since old.json</h2>' in dom
    assert '<table id="compare-table" class="sortable">' in dom
    assert '<table id="compare-runner-table" class="sortable">' in dom
    assert "<h3>New findings (1)</h3>" in dom


@needs_chromium
def test_a_script_error_would_be_caught(page, tmp_path):
    # the checks above are only worth something if a broken page fails them
    broken = tmp_path / "broken.html"
    # (the page's policy lets only its own script run: allow inline ones for this probe)
    html = re.sub(r"script-src [^;\"]+", "script-src 'unsafe-inline'", page.read_text())
    broken.write_text(html.replace("</body>", "<script>undefinedFunction();</script></body>"))
    _, log = chromium(broken, tmp_path)
    assert len(console_errors(log)) == 1
    assert "Uncaught ReferenceError: undefinedFunction is not defined" in console_errors(log)[0]


# ---------------------------------------------------------------------------------------------
# Layout on a large tree


@pytest.fixture(scope="module")
def large_page(tmp_path_factory) -> Path:
    """40 directories with long names (one without test classes) and 1,200 classes, under the vendor
    taxonomy (one more classification column): wider than the example suite on every count."""
    root = tmp_path_factory.mktemp("large")
    suite = root / "test"
    body = "".join(
        f"class TestC{i}(TestCase):\n"
        + ("    hw_classification = HardwareClassification.GENERIC\n" if i % 3 else "")
        + f"    def test_{i}(self): ...\n\n"
        for i in range(30)
    )
    for d in range(40):
        where = suite / f"area_{d:02d}_with_a_rather_long_directory_name" / "and_a_nested_level_below_it"
        where.mkdir(parents=True)
        (where / f"test_module_{d}.py").write_text(body)
    (suite / "helpers_without_tests").mkdir()
    (suite / "helpers_without_tests" / "test_nothing.py").write_text("X = 1\n")
    vendor = ROOT / "examples" / "taxonomy-vendor.yaml"
    return render(root, "--isolated", "--taxonomy", str(vendor), "test", cwd=root, name="large.html")


def test_large_tree_lists_the_top_level_without_empty_rows(large_page):
    html = large_page.read_text()
    table = html.split('<table id="directory-table"')[1].split("</table>")[0]
    assert table.count("<tr") == 1 + 1 + 40  # header, the root, the 40 top-level directories
    assert "helpers_without_tests" not in html
    assert "and_a_nested_level_below_it" not in table
    note = (
        "Shown: the top level only (41 of 82 directories; --depth N lists more); "
        "1 directory without test classes left out."
    )
    assert note in html
    # one number format: thousands separated, "N of M"
    assert "800 of 1,200 test classes" in html
    assert not re.findall(r">\d{4,}<", html)


@pytest.mark.slow
@needs_chromium
def test_no_table_overflows_its_card_at_1400_px(large_page, tmp_path):
    probe = """<script>
    document.body.dataset.overflow = Array.from(document.querySelectorAll(".scroll"))
      .filter((card) => card.querySelector("table").scrollWidth > card.clientWidth)
      .map((card) => {
        const table = card.querySelector("table");
        return table.id + ":" + table.scrollWidth + ">" + card.clientWidth;
      }).join(",") || "none";
    document.body.dataset.tables = document.querySelectorAll(".scroll table").length;
    </script></body>"""
    probed = tmp_path / "probed.html"
    probed.write_text(with_probe(large_page.read_text(), probe))
    dom, log = chromium(probed, tmp_path, "--window-size=1400,1000")
    assert console_errors(log) == []
    assert 'data-tables="4"' in dom
    assert 'data-overflow="none"' in dom, re.search(r'data-overflow="([^"]*)"', dom).group(1)
    # the check can fail: the same page in a window too narrow for it overflows
    narrow, _ = chromium(probed, tmp_path, "--window-size=700,1000")
    assert 'data-overflow="none"' not in narrow


# ---------------------------------------------------------------------------------------------
# A compared report is input: it must neither break the command nor inject into the page

INJECTION = '1</code></a><script>document.body.dataset.pwned = "1"</script><img src=x onerror="x()">'


def _old_report(tmp_path: Path) -> tuple[Path, dict]:
    shutil.copytree(ROOT / "examples" / "test", tmp_path / "test")
    old = tmp_path / "old.json"
    args = ["hwlint", "report", "--isolated", "--no-cache", "--format", "json", "-o", str(old), "test"]
    assert run_tool(*args, cwd=tmp_path).returncode == 0
    return old, json.loads(old.read_text())


def test_compared_report_is_validated_against_its_schema(tmp_path):
    old, doc = _old_report(tmp_path)
    removed = {"path": "test/test_gone.py", "line": INJECTION, "name": "TestGone", "tests": 1}
    injected = [*doc["classes"], {**removed, "status": "unclassified", "classification": None}]
    cases = {
        f"classes[{len(doc['classes'])}].line: expected int, got str": {**doc, "classes": injected},
        "the top level: missing key 'findings'": {k: v for k, v in doc.items() if k != "findings"},
        "total.classified_percent: expected int or float or null, got str": {
            **doc,
            "total": {**doc["total"], "classified_percent": "1"},
        },
    }
    for problem, bad in cases.items():
        old.write_text(json.dumps(bad))
        res = run_tool(
            "hwlint", "report", "--isolated", "--no-cache", "--compare", "old.json", "test", cwd=tmp_path
        )
        assert res.returncode == 2, res.stderr
        assert res.stderr == f"hwlint: error: old.json: not a valid hwlint-report/1 report: {problem}\n"


def _injected_page(tmp_path: Path) -> Path:
    """A compare page whose removed class carries markup in `line`, rendered straight from the
    document (as if a report got past validation): only escaping stands between it and the page."""
    from hwlint.report.html import render_html

    _, doc = _old_report(tmp_path)
    doc["compare"] = {
        "against": "old.json",
        "total": {
            k: [1, 1]
            for k in ("files", "classes", "tests", "classified", "never_run_tests", "findings_total")
        }
        | {"classified_percent": [50.0, 50.0]},
        "directories": [],
        "runners": [],
        **{k: [] for k in ("newly_classified", "declassified", "reclassified", "new_classes")},
        "removed_classes": [{"path": "test/test_gone.py", "line": INJECTION, "name": "TestGone", "tests": 1}],
        "new_findings": [],
        "fixed_findings": [],
    }
    page = tmp_path / "injected.html"
    page.write_text(render_html(doc, str(page)))
    return page


def test_values_are_escaped_and_inline_scripts_refused(tmp_path):
    from hwlint.report.html import _SCRIPT

    html = _injected_page(tmp_path).read_text()
    assert "<script>document.body" not in html and "<img" not in html
    assert '<span class="pc">test_gone.py:1&lt;/</span>' in html  # a piece ends after each "/"
    [policy] = re.findall(r'content="(default-src[^"]+)"', html)
    digest = base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()
    assert policy == f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"
    assert html.count("<script>") == 1 and f"<script>{_SCRIPT}</script>" in html


@pytest.mark.slow
@needs_chromium
def test_injection_does_not_run_in_chromium(tmp_path):
    page = _injected_page(tmp_path)
    dom, log = chromium(page, tmp_path)
    assert re.search(r'<body[^>]* data-ready="1"', dom)  # the page's own script ran
    assert "data-pwned" not in dom and "<img" not in dom
    # and a script that got into the page anyway is refused by the policy, not run
    smuggled = tmp_path / "smuggled.html"
    smuggled.write_text(
        page.read_text().replace("</main>", '<script>document.body.dataset.pwned = "1"</script></main>')
    )
    dom, log = chromium(smuggled, tmp_path)
    assert re.search(r'<body[^>]* data-ready="1"', dom)
    assert "data-pwned" not in dom
    assert "Content Security Policy" in log


# ---------------------------------------------------------------------------------------------
# The page as a CI artifact: no identifier cut in two, nothing wider than the screen, links that
# work where the page is downloaded (issue 28)

LONG_CLASS = "TestDistributedCheckpointingWithFullyShardedDataParallelAndTensorParallelism"


@pytest.fixture(scope="module")
def artifact_page(tmp_path_factory) -> Path:
    """Long directory names, a long class name, every state (unclassified, unknown, never run)."""
    root = tmp_path_factory.mktemp("artifact")
    deep = root / "test" / "distributed_checkpointing_and_resharding" / "fully_sharded_data_parallel"
    deep.mkdir(parents=True)
    (deep / "test_state_dict_round_trips_across_world_sizes.py").write_text(
        "import enum\n"
        'HardwareClassification = enum.Enum("HardwareClassification", "GENERIC GPU")\n\n\n'
        f"class {LONG_CLASS}:\n    def test_x(self):\n        pass\n\n\n"
        "class TestUnknownClassificationOfADeviceNobodyKnows:\n"
        "    hw_classification = HardwareClassification.GPU\n\n    def test_y(self):\n        pass\n"
    )
    return render(root, "--isolated", "test", cwd=root, name="artifact.html")


PROBE = """<script>
const broken = [];
for (const el of document.querySelectorAll("code:not(.path), .pc, .state, .chart text")) {
  if (el.getClientRects().length > 1) broken.push(el.textContent);
}
document.body.dataset.broken = broken.join("|") || "none";
document.body.dataset.pagewidth = document.documentElement.scrollWidth;
document.body.dataset.pieces = document.querySelectorAll(".pc, .state, code:not(.path)").length;
document.body.dataset.viewport = window.innerWidth;
</script></body>"""


@pytest.mark.slow
@needs_chromium
@pytest.mark.parametrize("width", [1400, 390])
@pytest.mark.parametrize("fixture", ["artifact_page", "large_page", "page"])
def test_no_identifier_is_cut_and_nothing_overflows(fixture, width, tmp_path, request):
    page = request.getfixturevalue(fixture)
    probed = tmp_path / "probed.html"
    probed.write_text(with_probe(page.read_text(), PROBE))
    data, log = chromium_at(probed, tmp_path, width)
    assert console_errors(log) == []
    assert data["viewport"] == str(width)
    assert int(data["pieces"]) > 10  # the probe saw the page
    assert data["broken"] == "none"
    assert int(data["pagewidth"]) <= width  # a wide table scrolls inside its card, not the page


def chromium_at(page: Path, tmp_path: Path, width: int) -> tuple[dict, str]:
    """The ``data-*`` the page's probe left on its body, with *page* laid out *width* CSS pixels
    wide: in a frame of that width (headless chromium will not make its window narrower than 500
    px), its document read by the frame's parent."""
    frame = tmp_path / f"frame-{width}.html"
    frame.write_text(
        f'<html><body style="margin:0"><iframe id="f" src="{page.name}" width="{width}" height="1000" '
        'style="border:0"></iframe><script>document.getElementById("f").addEventListener("load", () => {'
        'const d = document.getElementById("f").contentDocument;'
        "for (const [k, v] of Object.entries(d.body.dataset)) document.body.dataset[k] = v;"
        'document.body.dataset.framed = "1"; });</script></body></html>'
    )
    assert frame.parent == page.parent
    dom, log = chromium(frame, tmp_path, "--allow-file-access-from-files", "--window-size=1600,1000")
    body = re.search(r"<body([^>]*)>", dom).group(1)
    data = {k: html.unescape(v) for k, v in re.findall(r'data-([a-z]+)="([^"]*)"', body)}
    assert data.get("framed") == "1", dom[:500]
    return data, log


def test_the_state_badge_and_its_word_stay_together(artifact_page):
    html = artifact_page.read_text()
    assert '<span class="state"><span class="swatch" style="background:' in html
    assert re.search(r'<span class="state"><span class="swatch"[^>]*></span>unclassified</span>', html)


def test_base_url_makes_source_links_absolute(tmp_path):
    shutil.copytree(ROOT / "examples" / "test", tmp_path / "repo" / "test")
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    base = "https://github.com/pytorch/pytorch/blob/0123abc/"
    out = tmp_path / "artifacts" / "report.html"
    out.parent.mkdir()
    # run from a subdirectory: links are relative to the work tree's top, as a forge's blob URL is
    res = run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "html",
        "--base-url",
        base,
        "-o",
        str(out),
        ".",
        cwd=repo / "test",
    )
    assert res.returncode == 0, res.stderr
    links = set(re.findall(r'href="([^"]+)"', out.read_text()))
    assert f"{base}test/test_serialization.py#L45" in links
    assert all(link.startswith(base) for link in links if "#L" in link)
    # without it, links stay relative to where the page is written
    res = run_tool(
        "hwlint",
        "report",
        "--isolated",
        "--no-cache",
        "--format",
        "html",
        "-o",
        str(out),
        ".",
        cwd=repo / "test",
    )
    assert "../repo/test/test_serialization.py#L45" in out.read_text()
    bad = run_tool("hwlint", "report", "--base-url", "javascript:alert(1)//", ".", cwd=repo)
    assert (bad.returncode, bad.stderr) == (
        2,
        "hwlint: error: --base-url 'javascript:alert(1)//': expected an http:// or https:// URL\n",
    )
