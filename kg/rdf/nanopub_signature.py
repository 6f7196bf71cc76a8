"""A nanopublication's signature: the element in its publication info that names the
nanopublication as its target, with the algorithm (RSA or DSA), the public key (Base64
DER) and the signature (Base64), made with SHA-256 over the nanopublication's digest text
(:func:`kg.rdf.trusty.digest_text`) without the signature's own statement, its artifact
code replaced by a space, as nanopub-java signs before it makes the trusty URI.
"""

from __future__ import annotations

import base64
import binascii

import pyoxigraph as ox
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, padding, rsa

from .trusty import TrustyError, artifact_code_of, digest_text

NPX = "http://purl.org/nanopub/x/"
TARGET = NPX + "hasSignatureTarget"
SIGNATURE = NPX + "hasSignature"
ALGORITHM = NPX + "hasAlgorithm"
PUBLIC_KEY = NPX + "hasPublicKey"


def signature_problems(iri: str, pubinfo: list[ox.Quad], quads: list[ox.Quad]) -> list[str]:
    """What is wrong with the signature of the nanopublication ``iri`` (whose publication
    info is ``pubinfo`` and whose quads are ``quads``): nothing where it has none or it
    verifies."""
    elements = [
        q.subject
        for q in pubinfo
        if q.predicate.value == TARGET and isinstance(q.object, ox.NamedNode)
        if q.object.value == iri
    ]
    if not elements:
        return []
    if len(elements) > 1:
        return ["more than one signature element names it as its target"]
    element = elements[0]

    def values(predicate: str) -> list[str]:
        return [
            q.object.value
            for q in pubinfo
            if q.subject == element and q.predicate.value == predicate
            if isinstance(q.object, (ox.NamedNode, ox.Literal))
        ]

    signature, algorithm, key = values(SIGNATURE), values(ALGORITHM), values(PUBLIC_KEY)
    if len(signature) != 1 or len(algorithm) != 1 or len(key) != 1:
        return ["its signature element needs one signature, one algorithm and one public key"]
    try:
        code: str | None = artifact_code_of(iri)
    except TrustyError:
        code = None
    signed = [q for q in quads if not (q.subject == element and q.predicate.value == SIGNATURE)]
    try:
        text = digest_text(signed, code).encode("utf-8")
        public = serialization.load_der_public_key(base64.b64decode(key[0]))
        value = base64.b64decode(signature[0])
    except (TrustyError, ValueError, binascii.Error) as exc:
        return [f"its signature cannot be read: {exc}"]
    try:
        if algorithm[0].upper() == "RSA" and isinstance(public, rsa.RSAPublicKey):
            public.verify(value, text, padding.PKCS1v15(), hashes.SHA256())
        elif algorithm[0].upper() == "DSA" and isinstance(public, dsa.DSAPublicKey):
            public.verify(value, text, hashes.SHA256())
        else:
            return [f"its signature's algorithm {algorithm[0]!r} does not fit its key"]
    except InvalidSignature:
        return ["its signature does not verify against its public key"]
    return []
