"""A wheel built from the repository works on its own, outside the source tree."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from .conftest import EXAMPLES, ROOT


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"wheel build failed:\n{build.stdout}\n{build.stderr}")
    (wheel,) = dist.glob("hwlint-*.whl")
    env_dir = work / "venv"
    # The test interpreter's site-packages supply the dependencies (pyyaml, ast-grep-py, flake8),
    # whether they live in a venv or in the system; the wheel itself is installed into the new venv,
    # which comes first on sys.path (a path line in a .pth file adds a directory after it, and does
    # not run that directory's own .pth files, such as the editable install's).
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "_test_dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if install.returncode != 0:
        pytest.fail(f"wheel install failed:\n{install.stdout}\n{install.stderr}")
    return env_dir, wheel


def test_wheel_bundles_the_default_taxonomy_and_lints_examples(wheel_venv, tmp_path):
    env_dir, _ = wheel_venv
    suite = tmp_path / "suite"
    shutil.copytree(EXAMPLES / "test", suite / "test")
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run(
        [
            str(python),
            "-c",
            "import hwlint, hwlint.taxonomy as t; print(hwlint.__file__); print(t.default_taxonomy_path())",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    module, taxonomy = where.stdout.split()
    assert module.startswith(str(env_dir)), where.stdout + where.stderr
    assert taxonomy.startswith(str(env_dir)) and taxonomy.endswith("hwlint/taxonomy.yaml")
    res = subprocess.run(
        [str(env_dir / "bin" / "hwlint"), "check", "--output-format", "json", "suite"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert res.returncode == 1, res.stderr
    codes = sorted(f["code"] for f in json.loads(res.stdout))
    assert codes == ["HWC001", "HWC002", "HWC101", "HWC102", "HWC107", "HWC201", "HWC202", "HWC203", "HWC204"]
