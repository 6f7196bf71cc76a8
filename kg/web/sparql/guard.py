"""What a read-only public endpoint refuses before running anything: updates sent as
queries, and SERVICE. The check reads the query's keywords (:mod:`kg.rdf.sparqltext`), so a
keyword inside a literal ("SERVICE" in a title) is not mistaken for one.
"""

from __future__ import annotations

from ...rdf.sparqltext import keywords, tokens
from ..http.request_rules import Refused

_UPDATE = keywords(
    "INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH"
)
_QUERY_FORM = keywords("SELECT", "CONSTRUCT", "DESCRIBE", "ASK")
_SERVICE = keywords("SERVICE")


def check_query(text: str) -> None:
    """Refuse updates and federated queries.

    :raises Refused: naming the reason.
    """
    bare = tokens(text)
    update = _UPDATE.search(bare)
    form = _QUERY_FORM.search(bare)
    if update and (form is None or update.start() < form.start()):
        raise Refused(
            f"this endpoint is read-only: SPARQL updates ({update.group(1).upper()}) are refused"
        )
    if _SERVICE.search(bare):
        raise Refused("SERVICE is refused: this endpoint sends no request to other hosts")
