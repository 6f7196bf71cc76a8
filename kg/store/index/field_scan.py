"""Every node's index fields read in one pass, for an index written whole.

``queries/internal/index-rows.rq`` asked for a few thousand records at a time (their IRIs
bound) makes the store join each of its branches record by record: about 0.6 ms a record,
most of an index's writing (43 of 67 s at 35,000 records, 613 s at a million). Asked once
with nothing bound, each branch is one scan of its properties (9 s at 35,000). Its answer
goes into a table of a private SQLite file beside the index, not into memory: a million
records' fields are about 20 million rows. The table is then asked a chunk of records at
a time, as the store was.

Only a store in this process is read so: a remote one would send every field of every node
in one answer (SPARQL servers cap those), so it is asked a chunk at a time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from pathlib import Path

from ..base import GraphStore, solutions
from ..queries import internal_query
from .files import rows_among

#: node -> field -> its values, in the order the store gave them (rows.py's ``Fields``)
Fields = dict[str, dict[str, list[str]]]


class FieldScan:
    """The fields of every node of ``store``, scanned into a file at ``path`` (deleted by
    :meth:`close`); called with some nodes, their fields, as ``rows._fields`` reads them
    from the store.

    >>> import pyoxigraph as ox, tempfile
    >>> from pathlib import Path
    >>> from kg.store.embedded import EmbeddedStore
    >>> store = EmbeddedStore(None)  # in memory
    >>> store.replace_graphs({"urn:g": [ox.Quad(ox.NamedNode("urn:s"),
    ...     ox.NamedNode("http://purl.org/dc/terms/title"), ox.Literal("A source"),
    ...     ox.NamedNode("urn:g"))]})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     scan = FieldScan(store, Path(folder) / "fields")
    ...     print(scan(["urn:s", "urn:other"]))
    ...     scan.close()
    {'urn:s': {'title': ['A source']}}
    """

    def __init__(self, store: GraphStore, path: Path):
        self._path = path
        path.unlink(missing_ok=True)
        self._db = sqlite3.connect(path)
        try:
            # a private scratch file: no journal, no syncs
            self._db.executescript(
                "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
                "CREATE TABLE field (node TEXT NOT NULL, field TEXT NOT NULL, value TEXT NOT NULL);"
            )
            answer = solutions(store.query(internal_query("index-rows").text))
            with self._db:
                self._db.executemany(
                    "INSERT INTO field VALUES (?, ?, ?)",
                    ((r[0].value, r[1].value, r[2].value) for r in answer),
                )
                # the index keeps each node's rows in the order they came (by rowid)
                self._db.execute("CREATE INDEX by_node ON field (node)")
        except BaseException:
            self.close()
            raise

    def __call__(self, nodes: Collection[str]) -> Fields:
        fields: Fields = {}
        found = rows_among(self._db, "SELECT node, field, value FROM field WHERE node", nodes)
        for node, name, value in found:
            values = fields.setdefault(node, {}).setdefault(name, [])
            if value not in values:
                values.append(value)
        return fields

    def close(self) -> None:
        """Close the file and delete it."""
        self._db.close()
        self._path.unlink(missing_ok=True)
