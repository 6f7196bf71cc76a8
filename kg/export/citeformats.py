"""CSL-JSON items written as CSL-JSON, BibTeX and RIS: one model, three syntaxes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from .citations import CslItem

#: BibTeX entry type for each CSL type (others: misc).
BIBTEX_TYPES = {
    "paper-conference": "inproceedings",
    "article-journal": "article",
    "report": "techreport",
    "article": "misc",
    "dataset": "misc",
}
#: The BibTeX field a CSL venue variable becomes, by entry type.
BIBTEX_VENUE = {
    ("inproceedings", "container-title"): "booktitle",
    ("article", "container-title"): "journal",
    ("techreport", "publisher"): "institution",
}
#: RIS reference type for each CSL type (others: GEN).
RIS_TYPES = {
    "paper-conference": "CONF",
    "article-journal": "JOUR",
    "report": "RPRT",
    "article": "UNPB",
    "dataset": "DATA",
}
#: RIS tag for each CSL text variable (TY, AU, dates and ER are written apart).
RIS_TAGS = {
    "title": "TI",
    "container-title": "T2",
    "publisher": "PB",
    "DOI": "DO",
    "URL": "UR",
    "version": "ET",
    "note": "N1",
}


def to_csl_json(items: list[CslItem]) -> str:
    """A CSL-JSON document: an array of items."""
    return json.dumps(items, ensure_ascii=False, indent=2) + "\n"


def licence_words(item: CslItem) -> str:
    """The licence an item carries (``custom``), in words: its name and IRI; "" for none."""
    custom = item.get("custom", {})
    name, iri = custom.get("license-name", ""), custom.get("license", "")
    return f"{name} ({iri})" if iri and name != iri else name


# -- BibTeX ----------------------------------------------------------------------------------

# LaTeX's special characters, escaped so that a field says the same text once typeset
# (and once decoded by a BibTeX reader); everything else stays UTF-8.
_LATEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_LATEX_RE = re.compile("|".join(re.escape(c) for c in _LATEX))


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped for a braced BibTeX field."""
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], " ".join(text.split()))


def _bibtex_name(name: dict[str, str]) -> str:
    if "literal" in name:  # an organization: braces keep it one name
        return "{" + latex_escape(name["literal"]) + "}"
    family, given = latex_escape(name.get("family", "")), latex_escape(name.get("given", ""))
    return f"{family}, {given}" if given else family


def _date(item: CslItem, key: str) -> list[int]:
    parts = item.get(key, {}).get("date-parts", [[]])
    return [int(p) for p in parts[0]]


def to_bibtex(items: Iterable[CslItem]) -> str:
    """BibTeX entries for CSL items (keys are the item ids)."""
    entries = []
    for item in items:
        entry_type = BIBTEX_TYPES.get(item["type"], "misc")
        fields: list[tuple[str, str]] = []
        if item.get("author"):
            fields.append(("author", " and ".join(_bibtex_name(a) for a in item["author"])))
        fields.append(("title", latex_escape(item.get("title", ""))))
        for variable in ("container-title", "publisher"):
            if item.get(variable):
                field = BIBTEX_VENUE.get(
                    (entry_type, variable), variable.replace("container-title", "howpublished")
                )
                fields.append((field, latex_escape(item[variable])))
        issued = _date(item, "issued")
        if issued:
            fields.append(("year", str(issued[0])))
            if len(issued) > 1:
                fields.append(("month", str(issued[1])))
        for variable, field in (("version", "version"), ("DOI", "doi"), ("URL", "url")):
            if item.get(variable):
                # DOIs and URLs are verbatim in BibTeX (url package): no escaping
                value = item[variable] if field != "version" else latex_escape(item[variable])
                fields.append((field, value))
        accessed = _date(item, "accessed")
        if accessed:
            fields.append(("urldate", "-".join(f"{p:02d}" for p in accessed)))
        if item.get("note"):
            fields.append(("note", latex_escape(item["note"])))
        licence = licence_words(item)
        if licence:  # no BibTeX style prints it; readers keep it (bibtexparser, Zotero)
            fields.append(("license", latex_escape(licence)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@{entry_type}{{{item['id']},\n{body}\n}}\n")
    return "\n".join(entries)


# -- RIS -------------------------------------------------------------------------------------


def _ris_line(tag: str, value: str) -> str:
    return f"{tag}  - {' '.join(value.split())}"


def to_ris(items: Iterable[CslItem]) -> str:
    """RIS records for CSL items: TY first, ER last, one tag per line."""
    records = []
    for item in items:
        lines = [_ris_line("TY", RIS_TYPES.get(item["type"], "GEN")), _ris_line("ID", item["id"])]
        for name in item.get("author", []):
            written = name.get("literal") or ", ".join(
                p for p in (name.get("family", ""), name.get("given", "")) if p
            )
            lines.append(_ris_line("AU", written))
        for variable, tag in RIS_TAGS.items():
            if item.get(variable):
                lines.append(_ris_line(tag, str(item[variable])))
        issued = _date(item, "issued")
        if issued:
            lines.append(_ris_line("PY", str(issued[0])))
            lines.append(
                _ris_line("DA", "/".join([str(issued[0]), *(f"{p:02d}" for p in issued[1:])]))
            )
        accessed = _date(item, "accessed")
        if accessed:
            lines.append(_ris_line("Y2", "/".join(f"{p:02d}" for p in accessed)))
        licence = licence_words(item)
        if licence:  # RIS has no licence tag: a note of its own
            lines.append(_ris_line("N1", f"Licence: {licence}"))
        lines.append("ER  - ")
        records.append("\n".join(lines) + "\n")
    return "\n".join(records)
