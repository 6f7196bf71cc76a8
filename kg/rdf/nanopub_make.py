"""Making a nanopublication trusty, and signed where a key is given, as nanopub-java does,
so that the same content and the same key give the same trusty URI everywhere:

1. every IRI under the nanopublication's own (its graphs, its other nodes) is rewritten
   under the target base with a space where the artifact code will be (a stand-in in
   the IRI, a space in the digest text): ``<base> `` for the
   nanopublication, ``<base> /Head`` for its head graph (a suffix that starts with a letter
   or digit after ``/``, any other as it is); a nanopublication under nanopub-java's
   temporary namespace (``http://purl.org/nanopub/temp/...``) moves to ``https://w3id.org/np/``;
2. with a key, a signature element ``<base> /sig`` joins the publication info (algorithm,
   public key, target, signer) and is signed: RSA (PKCS #1 v1.5) with SHA-256 over the
   digest text of every quad (:func:`kg.rdf.trusty.digest_text`);
3. the artifact code is the hash of every quad, the signature's too; it replaces the space,
   and the marker ``~~~ARTIFACTCODE~~~`` in any other IRI (a concept it mints).

Blank nodes are skolemised as nanopub-java does: ``<base> /_1``, ``<base> /_2``, ... in the
order they first appear (each quad's graph, subject, then object), and an IRI of the
nanopublication whose suffix starts with ``_`` takes a second one (``/__x``), so the two
never meet. The numbers follow the order of the quads given: a maker that wants the same
URI for the same content gives its quads in an order of their own (kg/export/nanopub.py
labels its blank nodes canonically and sorts them).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from typing import Any

import pyoxigraph as ox
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from .nanopub import read_nanopubs
from .nanopub_signature import ALGORITHM, NPX, PUBLIC_KEY, SIGNATURE, TARGET
from .trusty import TrustyError, artifact_code, digest_text

TEMPORARY = "http://purl.org/nanopub/temp/"
W3ID = "https://w3id.org/np/"
SIGNED_BY = NPX + "signedBy"
#: Where the artifact code goes while it is made: IRIs cannot hold the space the hash
#: reads there, so this stands in for it, and the digest text turns it into the space.
PENDING = "RA" + "_" * 43
#: Where an IRI of another namespace is to hold the artifact code (a concept the
#: nanopublication mints): nanopub-java's marker.
MARKED = "~~~ARTIFACTCODE~~~"
_BASE64_END = re.compile(r"[A-Za-z0-9_-]$")
#: An IRI that ends in an artifact code already (another nanopublication under the same
#: base): kept as it is.
_TRUSTY_END = re.compile(r"(?<![A-Za-z0-9_-])(RA|RB|FA)[A-Za-z0-9_-]{43}$")


def make_trusty(
    quads: Iterable[ox.Quad],
    key: rsa.RSAPrivateKey | None = None,
    signer: str | None = None,
) -> tuple[str, list[ox.Quad]]:
    """(the trusty IRI, the quads) of the one nanopublication ``quads`` hold, signed with
    ``key`` (and said to be signed by ``signer``, an IRI) where one is given.

    :raises TrustyError: for quads that hold not exactly one nanopublication.
    """
    every = list(quads)
    found = read_nanopubs(every)
    if len(found) != 1:
        raise TrustyError(f"{len(found)} nanopublications where one is to be made trusty")
    np = found[0]
    base = W3ID if np.iri.startswith(TEMPORARY) else np.iri
    if _BASE64_END.search(base):
        base += "/"  # the code must not run on from the base's own characters

    blank: dict[ox.BlankNode, ox.NamedNode] = {}

    def placed(term: Any) -> Any:
        if isinstance(term, ox.BlankNode):
            if term not in blank:
                blank[term] = ox.NamedNode(f"{base}{PENDING}/_{len(blank) + 1}")
            return blank[term]
        if isinstance(term, ox.NamedNode) and MARKED in term.value:
            return ox.NamedNode(term.value.replace(MARKED, PENDING))
        if not isinstance(term, ox.NamedNode) or not term.value.startswith(np.iri):
            return term
        if term.value != np.iri and _TRUSTY_END.search(term.value):
            return term
        suffix = term.value[len(np.iri) :]
        if not suffix:
            return ox.NamedNode(base + PENDING)
        if suffix.startswith("_"):  # kept apart from the skolemised blank nodes
            joined = "/_" + suffix
        elif _BASE64_END.search(suffix[0]):
            joined = "/" + suffix
        else:
            joined = suffix
        return ox.NamedNode(base + PENDING + joined)

    seen: dict[Any, Any] = {}  # each term placed once: most repeat

    def once(term: Any) -> Any:
        found = seen.get(term)
        if found is None:
            found = seen[term] = placed(term)
        return found

    pending = [
        ox.Quad(once(q.subject), once(q.predicate), once(q.object), once(q.graph_name))
        for q in np.quads
    ]
    if key is not None:
        target = ox.NamedNode(base + PENDING)
        pubinfo = placed(ox.NamedNode(np.pubinfo))
        element = ox.NamedNode(base + PENDING + "/sig")
        pending += _signed(pending, key, signer, target, pubinfo, element)
    code = artifact_code(pending, PENDING)

    def final(term: Any) -> Any:
        if isinstance(term, ox.NamedNode) and PENDING in term.value:
            return ox.NamedNode(term.value.replace(PENDING, code))
        return term

    made = [
        ox.Quad(final(q.subject), final(q.predicate), final(q.object), final(q.graph_name))
        for q in pending
    ]
    return base + code, made


def _signed(
    quads: list[ox.Quad],
    key: rsa.RSAPrivateKey,
    signer: str | None,
    target: ox.NamedNode,
    pubinfo: ox.NamedNode,
    element: ox.NamedNode,
) -> list[ox.Quad]:
    """The signature element's quads, the signature last."""
    public = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    added = [
        ox.Quad(element, ox.NamedNode(ALGORITHM), ox.Literal("RSA"), pubinfo),
        ox.Quad(
            element,
            ox.NamedNode(PUBLIC_KEY),
            ox.Literal(base64.b64encode(public).decode()),
            pubinfo,
        ),
        ox.Quad(element, ox.NamedNode(TARGET), target, pubinfo),
    ]
    if signer:
        added.append(ox.Quad(element, ox.NamedNode(SIGNED_BY), ox.NamedNode(signer), pubinfo))
    text = digest_text([*quads, *added], PENDING).encode("utf-8")
    value = key.sign(text, padding.PKCS1v15(), hashes.SHA256())
    signature = ox.Literal(base64.b64encode(value).decode())
    return [*added, ox.Quad(element, ox.NamedNode(SIGNATURE), signature, pubinfo)]


def load_private_key(data: bytes) -> rsa.RSAPrivateKey:
    """An RSA private key from PEM, or from Base64 of PKCS #8 DER without PEM's lines (as
    nanopub-java writes ``id_rsa``).

    :raises ValueError: for anything else.
    """
    text = data.strip()
    try:
        if text.startswith(b"-----"):
            key = serialization.load_pem_private_key(text, password=None)
        else:
            key = serialization.load_der_private_key(base64.b64decode(text), password=None)
    except (ValueError, TypeError, binascii.Error) as exc:  # binascii.Error is a ValueError
        raise ValueError(f"not a private key without a password ({exc})") from None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("not an RSA private key")
    return key
