"""A node whose id ends as a format name does (RewardBench names models such as
``ai2/tulu-2-7b-rm-v0.json``) is that node, not another node in that format: its page, its
RDF and the lists' links all answer, in the app in this process."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

import pytest

from helpers.eee import import_beside, lower_is_better_files
from helpers.web import app_over

MODEL = "tiny/reward-model-v0.json"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    files = {}
    for path, raw in list(lower_is_better_files().items())[:2]:
        doc = json.loads(raw)
        doc["model_info"]["id"] = MODEL
        files[path] = json.dumps(doc).encode()
    root: Path = tmp_path_factory.mktemp("suffix-ids")
    import_beside(root, files)
    with app_over(root) as app:
        yield app.test_client()


def test_the_models_page_answers_at_its_whole_id(client) -> None:
    path = f"/model/{quote(MODEL, safe='')}"
    page = client.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert f"<h1>{MODEL}</h1>" in page.get_data(as_text=True)
    turtle = client.get(path, headers={"Accept": "text/turtle"})
    assert turtle.status_code == 200 and MODEL.encode() in turtle.data
    # a format's name after the whole id still asks for that format
    assert client.get(f"{path}.ttl").mimetype == "text/turtle"


def test_the_models_list_links_to_it(client) -> None:
    found = client.get("/models.json", query_string={"q": "reward-model"}).get_json()
    [item] = found["items"]
    assert client.get(item["page"], headers={"Accept": "text/html"}).status_code == 200
