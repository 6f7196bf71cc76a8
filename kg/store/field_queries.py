"""Query text written out from the field declarations (kg/model/fields.py): a query file
names the fields it reads in a block, and the declarations say how each is reached.

    {{rows: a b}}          (?node, ?field, ?value) solutions, one per value of each field
    {{columns: a ?b}}      the fields of ?record as variables of their names (?: optional)
    {{template: a b}}      CONSTRUCT's template: each field's statements, from ?record
    {{patterns: a b}}      the matching WHERE: a UNION of each field's path

The SPARQL stays in ``queries/``; only how a field is reached comes from here.
"""

from __future__ import annotations

import re

from ..errors import UsageError
from ..model.fields import FIELDS, Field

#: ``{{rows: NAME...}}`` and ``{{columns: NAME...}}`` in a query file: fields of
#: :data:`kg.model.fields.FIELDS`, read as the declarations say.
_FIELD_BLOCK = re.compile(r"\{\{(rows|columns|template|patterns):([\s\w?]*)\}\}")


def expand_fields(text: str) -> str:
    """``text`` with its field blocks written out:

    - ``{{rows: a b}}``: one ``(?node, ?field, ?value)`` solution per value of each field
      of any node, a UNION of one pattern each (one scan or path each: per-node joins of a
      dozen OPTIONALs were an hour at 100k records);
    - ``{{columns: a ?b}}``: the fields of ``?record`` as variables named after them, those
      with a ``?`` optional;
    - ``{{template: a b}}`` and ``{{patterns: a b}}`` (the same names, in the same order):
      a CONSTRUCT of the statements that reach each field from ``?record``, and its WHERE.

    >>> print(expand_fields("{{template: id printed}}\\n{{patterns: id printed}}"))
    ?record dcterms:identifier ?g0 .
      ?record kg:reportedValue ?g1 . ?g1 kg:printedValue ?g1f0_1 .
    { ?record dcterms:identifier ?g0 . }
      UNION { ?record kg:reportedValue ?g1 . OPTIONAL { ?g1 kg:printedValue ?g1f0_1 . } }
    >>> print(expand_fields("{{columns: id locator ?page}}"))
    ?record dcterms:identifier ?id .
      ?record kg:locator ?locator .
      OPTIONAL { ?locator kg:page ?page . }

    :raises UsageError: for a name no field has, or a template whose patterns name other
        fields.
    """
    templates = [
        m.group(2).split() for m in _FIELD_BLOCK.finditer(text) if m.group(1) == "template"
    ]
    patterns = [m.group(2).split() for m in _FIELD_BLOCK.finditer(text) if m.group(1) == "patterns"]
    if templates != patterns:
        raise UsageError("a query's {{template: ...}} and {{patterns: ...}} name other fields")

    def block(match: re.Match[str]) -> str:
        kind, names = match.group(1), match.group(2).split()
        lines = []
        columns = _Columns()
        graph_fields: list[Field] = []
        for i, name in enumerate(names):
            optional = name.startswith("?")
            field = FIELDS.get(name.lstrip("?"))
            if field is None:
                raise UsageError(f"no field named {name.lstrip('?')!r} (kg/model/fields.py)")
            if kind == "rows":
                typed = "a kg:Claim ; " if field.claims_only else ""
                first, _, rest = field.path.partition("/")
                # a path that starts backwards, as a join from the node that points to it
                # (what every store plans as two scans)
                pattern = (
                    f"?by {first[1:]} ?node ; {rest} ?value"
                    if first.startswith("^") and rest
                    else f"?node {typed}{field.path} ?value"
                )
                union = "UNION " if i else ""
                lines.append(f'{union}{{ {pattern} BIND("{field.name}" AS ?field) }}')
            elif kind == "columns":
                lines.append(columns.pattern(field, optional))
            else:
                graph_fields.append(field)
        if graph_fields:
            lines = _graph_block(kind, graph_fields)
        return "\n  ".join(lines)

    return _FIELD_BLOCK.sub(block, text)


def _graph_block(kind: str, fields: list[Field]) -> list[str]:
    """A CONSTRUCT's template (``kind`` "template") or its WHERE ("patterns"): the fields
    that start with one step share a branch, its node read once and each field's further
    steps OPTIONAL (a record's value node once, for its printed value and its unit), so
    both name the same variables: ``?gN`` for a group's first node, ``?gNfI_J`` beyond."""
    groups: dict[str, list[Field]] = {}
    for field in fields:
        groups.setdefault(field.path.split("/")[0], []).append(field)
    lines = []
    for g, (first, members) in enumerate(groups.items()):
        head = f"?record {first} ?g{g} ."
        tails = []
        for i, field in enumerate(members):
            at, steps = f"?g{g}", []
            for j, step in enumerate(field.path.split("/")[1:], start=1):
                steps.append(f"{at} {step} ?g{g}f{i}_{j} .")
                at = f"?g{g}f{i}_{j}"
            if steps:
                tails.append(" ".join(steps))
        if kind == "template":
            lines.append(" ".join([head, *tails]))
        else:
            optional = "".join(f" OPTIONAL {{ {tail} }}" for tail in tails)
            lines.append(f"{'UNION ' if g else ''}{{ {head}{optional} }}")
    return lines


class _Columns:
    """The patterns of a ``{{columns: ...}}`` block: each field's path walked from
    ``?record`` one step at a time, a step that a required field took already not taken
    again (its node bound once, as a query written by hand binds ``?locator`` once for the
    page and the quote)."""

    def __init__(self) -> None:
        #: a path from ?record -> the variable bound to where it leads (required fields')
        self.bound: dict[str, str] = {}
        self.made = 0  # variables made, each new

    def pattern(self, field: Field, optional: bool) -> str:
        steps = field.path.split("/")
        at, taken = "?record", 0
        for i in range(len(steps) - 1, 0, -1):  # the longest prefix bound already
            known = self.bound.get("/".join(steps[:i]))
            if known:
                at, taken = known, i
                break
        patterns = []
        for i in range(taken, len(steps)):
            last = i == len(steps) - 1
            variable = (
                f"?{field.name}"
                if last
                else self._variable("/".join(steps[: i + 1]), named=not optional)
            )
            patterns.append(f"{at} {steps[i]} {variable} .")
            if not optional:
                self.bound["/".join(steps[: i + 1])] = variable
            at = variable
        text = " ".join(patterns)
        return f"OPTIONAL {{ {text} }}" if optional else text

    def _variable(self, path: str, named: bool) -> str:
        """The variable of a node on the way: a declared field's name where one reaches it
        (``named``: a required field's, bound once for all), else a new one."""
        name = next((f.name for f in FIELDS.values() if f.path == path), None) if named else None
        self.made += 1
        return f"?{name}" if name else f"?_{self.made}"
