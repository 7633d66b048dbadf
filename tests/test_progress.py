"""The progress bar: only where someone watches, never imported for short or piped runs."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hwlint.pipeline.progress import Bar, wanted


def test_not_shown_when_piped_or_in_ci(monkeypatch):
    # pytest captures stdout and stderr: neither is a terminal here
    assert not wanted()
    assert wanted(requested=True)
    monkeypatch.setenv("CI", "true")
    assert not wanted()
    assert wanted(requested=True)


def test_bar_counts_files_on_stderr(capsys):
    pytest.importorskip("tqdm")
    bar = Bar(3, "checking", show=True, delay=0)
    bar(1)
    bar(2)
    assert bar._bar is not None and bar._bar.n == 3
    bar.close()
    err = capsys.readouterr().err
    assert "checking:" in err and "/3 [" in err  # files done / total, as tqdm draws it
    assert err.endswith("\r")  # the bar is cleared when the run ends (leave=False)


def test_hidden_bar_is_a_no_op(capsys):
    bar = Bar(3, "checking", show=False)
    bar(3)
    bar.close()
    assert capsys.readouterr() == ("", "")


def test_short_runs_never_import_tqdm(tmp_path):
    (tmp_path / "test_a.py").write_text("class TestA:\n    def test_x(self):\n        pass\n")
    code = (
        "import sys\n"
        "from hwlint.cli.check import main\n"
        f"main(['check', '--isolated', '--no-cache', '--exit-zero', '-q', {str(tmp_path)!r}])\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('tqdm' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "False"
