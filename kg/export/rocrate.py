"""A reproduction run as a Process Run Crate (RO-Crate 1.1, Workflow Run Crate profiles).

The crate holds the run file, its log and the recipe as they are, and describes the run
as a ``CreateAction`` that used the recipe (``instrument``) on the claim (``object``)
and produced measurements (``result``).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..errors import NotFoundError
from ..model.fields import FIELDS, field_text, field_value
from ..rdf.facts import Facts
from ..rdf.namespaces import KG, QUDT, RDFS
from ..registry import Registry
from ..resources import resource_dir
from ..store.records import describe

RO_CRATE = "https://w3id.org/ro/crate/1.1"
PROCESS_RUN_CRATE = "https://w3id.org/ro/wfrun/process/0.5"


def write_run_crate(registry: Registry, run_id: str, out: Path) -> Path:
    """Write ``out/ro-crate-metadata.json`` with the run file, its log and the recipe.

    :raises NotFoundError: when the run, or a file it names, is not there.
    """
    store = registry.store
    iri = registry.iri("activity", run_id)
    quads = describe(store, registry.base, "activity", run_id)
    facts = Facts(quads)
    run = ox.NamedNode(iri)
    if not facts.has_type(run, KG.ReproductionRun):
        raise NotFoundError(f"{run_id!r} is not a reproduction run")
    entry = store.manifest().get(iri)
    if entry is None:
        raise NotFoundError(f"the store does not say which file run {run_id!r} came from")
    run_file = Path(entry.file)
    log_file = run_file.parent / "logs" / f"{run_file.stem}.log"
    recipe = field_value(facts, run, "recipe")
    recipe_file = resource_dir("recipes") / Path(field_text(facts, run, "recipePath")).name
    for path in (run_file, log_file, recipe_file):
        if not path.is_file():
            raise NotFoundError(f"{path} is missing")

    out.mkdir(parents=True, exist_ok=True)
    files: list[dict[str, str | list[str]]] = []
    for path, media_type, about in (
        (run_file, "application/yaml", "The run file"),
        (log_file, "text/plain", "The runner's log"),
        (recipe_file, "text/x-python", "The recipe"),
    ):
        shutil.copyfile(path, out / path.name)
        files.append(
            {
                "@id": path.name,
                "@type": "File",
                "name": path.name,
                "description": about,
                "encodingFormat": media_type,
                "contentSize": str(path.stat().st_size),
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            }
        )
    files[2]["@type"] = ["File", "SoftwareSourceCode", "SoftwareApplication"]
    files[2]["name"] = facts.text(recipe, RDFS.label)

    records = sorted(FIELDS["reproduces"].values(facts, run), key=lambda r: r.value)
    agent = field_value(facts, run, "runAgent")
    status = field_value(facts, run, "runStatus")
    measurements = []
    for m in sorted(FIELDS["measurement"].values(facts, run), key=str):
        unit = facts.one(m, QUDT.unit)
        measurements.append(
            {
                "@id": m.value,
                "@type": "PropertyValue",
                "name": f"{facts.text(m, KG.stage)} {facts.text(m, KG.quantity)}",
                "value": facts.text(m, QUDT.numericValue),
                "unitCode": unit.value if isinstance(unit, ox.NamedNode) else "",
            }
        )
    action = {
        "@id": iri,
        "@type": "CreateAction",
        "name": f"Reproduction run {run_id}",
        "startTime": field_text(facts, run, "started"),
        "endTime": field_text(facts, run, "ended"),
        "actionStatus": {
            "@id": "http://schema.org/CompletedActionStatus"
            if status is not None and status.value.endswith("#completed")
            else "http://schema.org/FailedActionStatus"
        },
        "instrument": {"@id": recipe_file.name},
        "object": [{"@id": record.value} for record in records],
        "result": [
            {"@id": run_file.name},
            {"@id": log_file.name},
            *({"@id": m["@id"]} for m in measurements),
        ],
    }
    if agent is not None:
        action["agent"] = {"@id": agent.value}
    graph: list[dict[str, Any]] = [
        {
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "conformsTo": {"@id": RO_CRATE},
            "about": {"@id": "./"},
        },
        {
            "@id": "./",
            "@type": "Dataset",
            "name": f"claimgraph reproduction run {run_id}",
            "description": "A claim of a published result measured again by a claimgraph recipe.",
            "datePublished": field_text(facts, run, "ended"),
            "conformsTo": {"@id": PROCESS_RUN_CRATE},
            "hasPart": [{"@id": f["@id"]} for f in files],
            "mentions": {"@id": iri},
        },
        {
            "@id": PROCESS_RUN_CRATE,
            "@type": "CreativeWork",
            "name": "Process Run Crate",
            "version": "0.5",
        },
        action,
        *files,
        *measurements,
    ]
    graph.extend(
        {
            "@id": record.value,
            "@type": "CreativeWork",
            "name": f"claimgraph record {record.value.rsplit('/', 1)[-1]}",
            "url": record.value,
        }
        for record in records
    )
    if agent is not None:
        graph.append(
            {
                "@id": agent.value,
                "@type": "SoftwareApplication",
                "name": agent.value.rsplit("/", 1)[-1],
            }
        )
    path = out / "ro-crate-metadata.json"
    path.write_text(
        json.dumps(
            {"@context": f"{RO_CRATE}/context", "@graph": graph}, indent=2, ensure_ascii=False
        )
        + "\n"
    )
    return path
