"""The project installed as a wheel into a new virtual environment, served with the
default settings from a folder of its own: the dumps answer 200 and their SHA-256
manifest checks (they once answered 500, read from the installed package's folder)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import requests
from rdflib import Graph, URIRef

from helpers import DATA, ROOT
from helpers.servers import running_server
from kg.export.dump import MANIFEST, NANOPUB_DUMP, SERVED, SUMS

VOID_DUMP = URIRef("http://rdfs.org/ns/void#dataDump")


#: The environment with no KG_ setting and no PYTHONPATH (conftest.py points it at the
#: checkout): the wheel's kg, with its defaults.
BARE = {k: v for k, v in os.environ.items() if not k.startswith("KG_") and k != "PYTHONPATH"}


def run(*command: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=BARE,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A virtual environment with the wheel of this checkout installed (its dependencies
    from the Python that runs the tests: no network)."""
    where = tmp_path_factory.mktemp("wheel")
    # hatchling (the build backend) is one of the check extra's packages: no isolation,
    # so nothing is fetched
    run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        where / "dist",
        ROOT,
    )
    (wheel,) = (where / "dist").glob("claimgraph-*.whl")
    venv = where / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", venv)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", wheel)
    return venv


@pytest.mark.slow  # a wheel built and installed, a store loaded: half a minute
def test_the_dumps_answer_from_a_wheel_with_the_default_settings(
    installed: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    shutil.copytree(DATA, site / "data")  # the default data folder: ./data
    imported = run(installed / "bin" / "python", "-c", "import kg; print(kg.__file__)", cwd=site)
    assert Path(imported.strip()).is_relative_to(installed), imported
    with running_server(site, kg=[str(installed / "bin" / "kg")], environ=BARE) as served:
        void = requests.get(
            served.url + "/.well-known/void", headers={"Accept": "text/turtle"}, timeout=30
        )
        assert void.status_code == 200
        advertised = {str(o) for o in Graph().parse(data=void.text).objects(None, VOID_DUMP)}
        assert {url.rsplit("/", 1)[1] for url in advertised} == set(SERVED)
        bodies = {}
        # and the nanopublications, made by the installed package (its cryptography too)
        for name in [*SERVED, f"{NANOPUB_DUMP}.gz"]:
            response = requests.get(f"{served.url}/dumps/{name}", timeout=120)
            assert response.status_code == 200, (name, response.text[:300])
            bodies[name] = response.content
        manifest = requests.get(f"{served.url}/dumps/{MANIFEST}", timeout=30)
        sums = requests.get(f"{served.url}/dumps/{SUMS}", timeout=30)
        assert manifest.status_code == sums.status_code == 200
        # the upstream licences' notices travel with the dumps (docs/following.md)
        notices = json.loads(manifest.text)["notices"]
        assert notices, "the bundled import's MIT notice"
        for name, sha in notices.items():
            notice = requests.get(f"{served.url}/dumps/{name}", timeout=30)
            assert notice.status_code == 200 and hashlib.sha256(notice.content).hexdigest() == sha
    files = json.loads(manifest.text)["files"]
    assert set(files) == {*SERVED, f"{NANOPUB_DUMP}.gz"}
    for name, body in bodies.items():
        assert hashlib.sha256(body).hexdigest() == files[name]["sha256"], name
    listed = dict(reversed(line.split("  ")) for line in sums.text.splitlines())
    assert listed == {name: entry["sha256"] for name, entry in files.items()} | notices
    # under the working directory, as the default settings say: nothing beside the package
    assert (site / ".kg" / "store").is_dir() and (site / ".kg" / "dumps").is_dir()
