"""A wheel built from the repository works on its own, outside the source tree."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv

import pytest

from .conftest import EXAMPLES, ROOT


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    work = tmp_path_factory.mktemp("wheel")
    dist = work / "dist"
    # The test extra brings the build backend: building in this environment spares pip the isolated
    # one it would set up (3 of the fixture's 8 s); the wheel is the same.
    isolation = [] if importlib.util.find_spec("hatchling") is None else ["--no-build-isolation"]
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", str(dist), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if build.returncode != 0:
        pytest.fail(f"wheel build failed:\n{build.stdout}\n{build.stderr}")
    (wheel,) = dist.glob("hwlint-*.whl")
    env_dir = work / "venv"
    # An isolated venv: the wheel must bring its own dependencies (pyyaml, ast-grep-py), as it does for
    # a user. pip resolves them as it would for `pip install hwlint-*.whl`, from its cache when it can.
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if install.returncode != 0:
        pytest.fail(f"wheel install failed:\n{install.stdout}\n{install.stderr}")
    return env_dir, wheel


@pytest.mark.slow
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
    isolated = subprocess.run([str(python), "-c", "import pytest"], capture_output=True, env=env)
    assert isolated.returncode != 0, "the wheel's venv must not see this interpreter's packages"
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
