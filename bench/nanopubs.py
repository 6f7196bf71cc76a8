"""Nanopublications per second: ``kg export --all --format nanopub``'s work, in this process.

    python bench/nanopubs.py STORE [--data DATA] [--sample N] [--signed]

STORE as ``kg`` takes it (only read; its archive of releases beside it, as ``kg`` finds
it). Over the first ``--sample`` records by id (all where not given), three passes in this
process, each timed with ``time.perf_counter``:

- **closure** (the baseline): each record's closure read from the store, as the export
  reads it;
- **--all**: every nanopublication made, trusty (signed with a fresh 2048-bit RSA key
  where ``--signed``): each record's versions across the releases, each change that ends
  it, each run;
- **--all + dump**: and written as the gzipped dump the browser serves
  (``nanopubs.trig.gz``, listed in a manifest).

Each row gives records and nanopublications per second, and its time as a ratio to the
baseline's; the peak memory of the process is printed last.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from kg.config import load_settings
from kg.export.nanopubs import every_nanopub, record_ids, write_nanopub_dump
from kg.registry import Registry
from kg.store.records import graphs_about, record_closure


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

    def some(ids: list[str]) -> list[str]:
        return ids[: args.sample] if args.sample else ids

    with Registry(settings, read_only=True) as registry:
        records = len(some(record_ids(registry)))

        def closures() -> int:
            store, about = registry.store, graphs_about(registry.store)
            for ident in some(record_ids(registry)):
                record_closure(store, registry.base, ident, about)
            return 0

        def made() -> int:
            return sum(1 for _ in every_nanopub(registry, some))

        def dumped() -> int:
            with tempfile.TemporaryDirectory() as folder:
                return write_nanopub_dump(registry, Path(folder), gzip=True, walk=some)[1]

        passes = {"closure (baseline)": closures, "--all": made, "--all + dump": dumped}
        took, counts = {}, {}
        for name, work in passes.items():
            started = time.perf_counter()
            counts[name] = work()
            took[name] = time.perf_counter() - started
    base = took["closure (baseline)"]
    signed = "signed" if args.signed else "unsigned"
    print(f"{records:,} records of {args.store} ({signed}):")
    print("")
    print("| pass | seconds | records/s | nanopubs | nanopubs/s | x baseline |")
    print("|---|---|---|---|---|---|")
    for name, seconds in took.items():
        count = counts[name]
        rate = f"{count / seconds:,.0f}" if count else ""
        print(
            f"| {name} | {seconds:.2f} | {records / seconds:,.0f} | {count or ''} | {rate} "
            f"| {seconds / base:.2f} |"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"\npeak memory: {peak} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
