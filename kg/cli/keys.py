"""``kg keys``: a key pair to sign nanopublications with (docs/nanopublications.md)."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import click
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from ..config import Settings
from ..errors import UsageError


@click.command()
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    help="The private key's file [default: the file KG_NANOPUB_KEY names].",
)
@click.pass_obj
def keys(settings: Settings, output: Path | None) -> None:
    """Make an RSA key pair (2048 bits) to sign nanopublications with.

    The private key is written as PEM to a new file only its owner can read; the public
    key is printed (Base64 DER, as a signature states it). Keep the private key outside
    the repository and name it with KG_NANOPUB_KEY; an existing file is never replaced.

    \\b
    Example:
      kg keys -o ~/.config/claimgraph/nanopub.pem
      KG_NANOPUB_KEY=~/.config/claimgraph/nanopub.pem kg export --all --format nanopub -o np/
    """
    target = output or settings.nanopub_key
    if target is None:
        raise UsageError("kg keys needs -o FILE, or KG_NANOPUB_KEY naming the file to write")
    if target.exists():
        raise UsageError(f"{target} exists: kg keys never replaces a key")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(private)
    public = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    click.echo(base64.b64encode(public).decode())
    click.echo(f"kg: wrote the private key to {target} (readable by its owner only)", err=True)
