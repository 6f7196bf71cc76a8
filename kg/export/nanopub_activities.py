"""What is said of a record after it, as nanopublications of their own that name the
record's (docs/nanopublications.md): a change of standing that ends it (retracted,
withdrawn, superseded) and each run that measured it again.

- A **retraction** or **withdrawal**: its assertion says that the curator retracts the
  record's nanopublication (``<agent> npx:retracts <np>``, as the network's services read a
  retraction) and that the record was invalidated by the change; its provenance, the
  change itself (when, why, by whom, on what evidence).
- A **supersession**: its assertion says which record supersedes the record (where the
  change names one) and that the record was invalidated by the change; its publication
  info, that it supersedes the record's nanopublication (``npx:supersedes``).
- A **run**: its assertion, the run's own statements (parameters, stages, measurements,
  environment, verdicts); its provenance, the run as the activity that generated them;
  its publication info, how it bears on each record it judged: ``cito:confirms`` (its
  verdicts on it consistent), ``cito:disputes`` (one inconsistent), else ``cito:discusses``.

Each is made from the graph that states the activity, so the same content gives the same
trusty URI; a run that judged several records is one nanopublication, whichever record's
closure it is found in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyoxigraph as ox

from ..model.fields import FIELDS
from ..model.standing import INVALIDATING
from ..rdf.namespaces import CITO, DCTERMS, KG, KGV, PROV
from ..rdf.nanopub import RDF_TYPE
from ..rdf.nanopub_make import TEMPORARY
from ..rdf.nanopub_signature import NPX
from .nanopub import (
    QUOTED,
    Frame,
    canonical,
    in_graph,
    licence_of,
    published_by,
    quad,
    reached,
)

#: The record IRI's current nanopublication IRI (None: it has none).
NanopubOf = Callable[[str], "str | None"]

CHANGE, RUN = ox.NamedNode(str(KG.StandingChange)), ox.NamedNode(str(KG.ReproductionRun))
RETRACTING = {"retracted", "withdrawn"}
# a run's fields as kg/model/fields.py declares them
REPRODUCES, VERDICT = str(FIELDS["reproduces"].predicate), str(FIELDS["verdict"].predicate)
#: How a run's verdicts on a record bear on the record's nanopublication.
BEARING = {"inconsistent": CITO.disputes, "consistent": CITO.confirms}


class Closure:
    """A record's closure, indexed: each graph's triples, and the changes of standing and
    runs it holds with the graph that states each."""

    def __init__(self, quads: list[ox.Quad]):
        self.quads = quads
        self.graphs: dict[Any, set[ox.Triple]] = {}
        self.kinds: dict[Any, ox.NamedNode] = {}
        self.home: dict[Any, Any] = {}
        for q in quads:
            self.graphs.setdefault(q.graph_name, set()).add(q.triple)
            if q.predicate == _TYPE and q.object in (CHANGE, RUN):
                self.kinds[q.subject] = CHANGE if q.object == CHANGE else RUN
                self.home[q.subject] = q.graph_name

    def typed(self, kind: ox.NamedNode) -> list[Any]:
        """The changes or the runs, sorted."""
        return sorted((node for node, k in self.kinds.items() if k == kind), key=str)

    def objects(self, subject: Any, predicate: object) -> list[Any]:
        """What the graph that states ``subject`` (else any graph) says it ``predicate``."""
        name = str(predicate)
        graphs = [self.graphs[self.home[subject]]] if subject in self.home else self.graphs.values()
        found = {
            t.object
            for g in graphs
            for t in g
            if t.subject == subject and t.predicate.value == name
        }
        return sorted(found, key=str)

    def statements(self, node: Any) -> set[ox.Triple]:
        """What ``node``'s graph says of it and of its fragments and blank nodes, the blank
        nodes labelled canonically."""
        graph = self.graphs[self.home[node]]
        return canonical(set(reached(graph, {node}, (node.value + "#",))))


_TYPE = ox.NamedNode(RDF_TYPE)


def change_pres(
    closure: Closure,
    record_iri: str,
    ident: str,
    record_np: str,
    operator: str,
    publisher: str | None = None,
) -> list[tuple[str, list[ox.Quad]]]:
    """(key, pre-nanopublication) of each change that ends record ``ident`` (by name, or
    by retracting the source it was quoted from), retracting or superseding its
    nanopublication ``record_np``."""
    record = ox.NamedNode(record_iri)
    sources = set(closure.objects(record, QUOTED))
    made = []
    for change in closure.typed(CHANGE):
        what = [c.value.removeprefix(str(KGV)) for c in closure.objects(change, KG.standingChange)]
        if not what or what[0] not in INVALIDATING:
            continue
        named = record in closure.objects(change, KG.standingOf)
        if not named and not sources & set(closure.objects(change, KG.retractedSource)):
            continue
        frame = Frame(f"{TEMPORARY}claimgraph/{_local(change)}/{ident}/")
        out = frame.head()
        out.append(quad(record, str(PROV.wasInvalidatedBy), change, frame.assertion))
        if what[0] in RETRACTING:
            for agent in closure.objects(change, PROV.wasAssociatedWith) or [change]:
                out.append(quad(agent, NPX + "retracts", ox.NamedNode(record_np), frame.assertion))
        else:
            for newer in closure.objects(change, KG.supersededBy):
                out.append(quad(newer, str(KG.supersedes), record, frame.assertion))
            out.append(quad(frame.np, NPX + "supersedes", ox.NamedNode(record_np), frame.pubinfo))
        out += _about(closure, change, frame, operator, publisher)
        made.append((f"{change.value} {record_iri}", out))
    return made


def run_pres(
    closure: Closure, operator: str, nanopub_of: NanopubOf, publisher: str | None = None
) -> list[tuple[str, list[ox.Quad]]]:
    """(key, pre-nanopublication) of each run in the closure, naming the nanopublication of
    each record it reproduced or judged."""
    made = []
    for run in closure.typed(RUN):
        frame = Frame(f"{TEMPORARY}claimgraph/{_local(run)}/")
        statements = closure.statements(run)
        out = frame.head() + [in_graph(t, frame.assertion) for t in sorted(statements, key=str)]
        for agent in closure.objects(run, PROV.wasAssociatedWith):
            out.append(quad(frame.assertion, str(PROV.wasAttributedTo), agent, frame.provenance))
        out += _about(closure, run, frame, operator, publisher)
        out.append(quad(frame.np, NPX + "introduces", run, frame.pubinfo))
        for record, outcomes in sorted(_judged(statements, run).items(), key=str):
            np = nanopub_of(record.value)
            if np is not None:
                bearing = next((BEARING[o] for o in BEARING if o in outcomes), CITO.discusses)
                out.append(quad(frame.np, str(bearing), ox.NamedNode(np), frame.pubinfo))
        made.append((run.value, out))
    return made


def _judged(statements: set[ox.Triple], run: Any) -> dict[Any, set[str]]:
    """Each record the run reproduces or judges, with its verdicts' outcomes on it."""
    judged: dict[Any, set[str]] = {}
    by_subject: dict[Any, dict[str, list[Any]]] = {}
    for t in statements:
        by_subject.setdefault(t.subject, {}).setdefault(t.predicate.value, []).append(t.object)
    for record in by_subject.get(run, {}).get(REPRODUCES, []):
        judged.setdefault(record, set())
    for verdict in by_subject.get(run, {}).get(VERDICT, []):
        said = by_subject.get(verdict, {})
        for record in said.get(str(KG.verdictOn), []):
            outcomes = {o.value.removeprefix(str(KGV)) for o in said.get(str(KG.outcome), [])}
            judged.setdefault(record, set()).update(outcomes)
    return judged


def _about(
    closure: Closure, activity: Any, frame: Frame, operator: str, publisher: str | None
) -> list[ox.Quad]:
    """The provenance an activity's nanopublication shares: the activity generated the
    assertion (and, for a change, what the change states); its publication info: its
    time, licence, publisher and type."""
    out = [quad(frame.assertion, str(PROV.wasGeneratedBy), activity, frame.provenance)]
    kind = closure.kinds[activity]
    if kind == CHANGE:
        statements = closure.statements(activity)
        out += [in_graph(t, frame.provenance) for t in sorted(statements, key=str)]
    ended = closure.objects(activity, PROV.endedAtTime)
    out += [quad(frame.np, str(DCTERMS.created), at, frame.pubinfo) for at in ended[:1]]
    licence = licence_of(closure.quads, activity, operator)
    if licence.iri:
        out.append(quad(frame.np, str(DCTERMS.license), ox.NamedNode(licence.iri), frame.pubinfo))
    out += published_by(frame, publisher)
    out.append(quad(frame.np, NPX + "hasNanopubType", kind, frame.pubinfo))
    return out


def _local(node: Any) -> str:
    """The last segment of a registry IRI: an activity's id."""
    return str(node.value).rstrip("/").rsplit("/", 1)[-1]
