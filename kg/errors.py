"""The one error hierarchy of claimgraph.

Every error a user can cause is a :class:`KgError`; each carries the exit code
the CLI returns and the HTTP status the web app answers with, so that both
adapters turn errors into messages in one place each.
"""

from __future__ import annotations

from dataclasses import dataclass


class KgError(Exception):
    """Base of all errors claimgraph reports to its users."""

    exit_code = 1
    http_status = 500

    def lines(self) -> list[str]:
        """The message as lines, one per problem."""
        return [str(self)]


class UsageError(KgError):
    """The command was called wrongly (bad option, missing path)."""

    exit_code = 2
    http_status = 400


class ConfigError(KgError):
    """A setting has a value that cannot be used."""

    exit_code = 2


class NotFoundError(KgError):
    """A record, graph or query that was asked for does not exist."""

    http_status = 404


class GoneError(NotFoundError):
    """A record that was in the registry and is no longer: HTTP's 410 Gone, with what it
    was, when and why it went, and the last release that held it."""

    http_status = 410

    def __init__(self, message: str, details: list[tuple[str, str, str | None]]):
        #: What the tombstone says: (what, text, link or None), for the page and as JSON.
        self.details = list(details)
        super().__init__(message)

    def lines(self) -> list[str]:
        return [str(self), *(f"{what}: {text}" for what, text, _ in self.details)]


@dataclass(frozen=True, order=True)
class Problem:
    """One problem with one data file, located by file, record and field."""

    file: str
    label: str  # "record <id>", "source <id>", or "" before the id is known
    field: str  # a YAML path such as "reviews[0].reviewed_at", or ""
    message: str

    def __str__(self) -> str:
        parts = [self.file]
        if self.label:
            parts.append(self.label)
        if self.field:
            parts.append(self.field)
        return ": ".join([*parts, self.message])


@dataclass(frozen=True)
class KeptAsWritten:
    """A warning: a value of an upstream file that does not fit the typed field it maps to, kept
    as written: where it is, what it is, which field it was meant for, and why not."""

    file: str
    label: str  # "record <id>", "evaluation <id>"
    pointer: str  # its RFC 6901 JSON Pointer in the file
    value: str  # as the file writes it
    field: str  # the property it was meant for, by its local name ("url", "samplesNumber")
    message: str  # what the shapes say of it

    def __str__(self) -> str:
        return (
            f"{self.file}: {self.label}: {self.pointer}: {self.message} ({self.value!r}); "
            "kept as written"
        )


class InvalidDataError(KgError):
    """One or more data files are invalid; nothing was changed."""

    http_status = 400

    def __init__(self, problems: list[Problem], consequence: str = ""):
        self.problems = sorted(set(problems))
        #: What the failure meant for the command ("nothing was loaded"), for the summary.
        self.consequence = consequence
        super().__init__(f"{len(self.problems)} problem(s) in the data files")

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems]


class QueryError(KgError):
    """A SPARQL query could not be parsed or run."""

    http_status = 400


class ReleaseError(KgError):
    """A release cannot be made as asked (nothing loaded, data files changed since the load)."""

    http_status = 409

    def __init__(self, message: str, details: list[str] | None = None):
        self.details = list(details or [])
        super().__init__(message)

    def lines(self) -> list[str]:
        return [*self.details, str(self)]


class WorkingFilesError(KgError):
    """A command's temporary working files could not be written (a full disk)."""


class StoreError(KgError):
    """The store could not be opened, read or written."""

    http_status = 503


class QueryTimeout(StoreError):
    """A query ran past its time limit and was stopped (or the store stopped answering)."""

    http_status = 503


class StoreBusy(StoreError):
    """A remote store is being written in steps (a server without one transaction per
    update request): readers wait rather than see half a load."""


class StoreUnreachable(StoreError):
    """A remote store could not be reached (refused, unknown host, connection lost)."""


class BadStoreAnswer(StoreError):
    """A remote store answered with an error status or a body that does not parse.

    A body cut short (the Oxigraph server answers a query stopped by its own time limit
    with HTTP 200 and a truncated body) is this error, never a partial result.
    """
