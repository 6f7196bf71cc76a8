"""Nanopublications per second: records made into trusty (and signed) nanopublications, as
``kg export --all --format nanopub`` makes them, in this process.

    python bench/nanopubs.py STORE [--data DATA] [--sample N] [--signed]

STORE as ``kg`` takes it (only read). Over the first ``--sample`` records by id (all where
not given), three passes in this process, each timed with ``time.perf_counter``:

- **closure** (the baseline): each record's closure read from the store, as the export
  reads it;
- **nanopub**: the same, then made a trusty nanopublication (signed with a fresh 2048-bit
  RSA key where ``--signed``);
- **nanopub + TriG**: and written as TriG.

Each row gives records per second and its time as a ratio to the baseline's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from kg.config import load_settings
from kg.export.nanopubs import nanopub_trig, record_ids, record_nanopub
from kg.registry import Registry
from kg.store.records import citable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--data", type=Path, default=Path("data"))
    parser.add_argument("--sample", type=int, default=0)
    parser.add_argument("--signed", action="store_true")
    args = parser.parse_args(argv)
    config: dict[str, object] = {"store": args.store, "data": args.data}
    if args.signed:
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        path = Path(tempfile.mkdtemp()) / "np.pem"
        path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        config |= {"nanopub_key": path, "nanopub_signer": "https://orcid.org/0000-0000-0000-0000"}
    settings = load_settings(config)
    with Registry(settings, read_only=True) as registry:
        ids = record_ids(registry)
        if args.sample:
            ids = ids[: args.sample]
        passes = {
            "closure (baseline)": lambda i: citable(registry.store, registry.base, i),
            "nanopub": lambda i: record_nanopub(registry, i),
            "nanopub + TriG": lambda i: nanopub_trig(record_nanopub(registry, i)[1]),
        }
        took = {}
        for name, work in passes.items():
            started = time.perf_counter()
            for ident in ids:
                work(ident)
            took[name] = time.perf_counter() - started
    base = took["closure (baseline)"]
    signed = "signed" if args.signed else "unsigned"
    print(f"{len(ids):,} records of {args.store} ({signed}):")
    print("")
    print("| pass | seconds | records/s | x baseline |")
    print("|---|---|---|---|")
    for name, seconds in took.items():
        print(f"| {name} | {seconds:.2f} | {len(ids) / seconds:,.0f} | {seconds / base:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
