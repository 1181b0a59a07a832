#!/usr/bin/env python3
"""The reference verdicts for the provenance cross-check: pypi-attestations (pinned, run from a venv
that tools/wc_cache.py makes) verifies each case offline against the trust root sigstore-python
embeds, with no identity policy (wheelcheck's publisher rules are compared elsewhere).

Usage: attestation_verdicts.py CASES.json. CASES is a list of {"dist", "attestation", "staging"};
prints a JSON list of {"ok": bool, "error": str}, one per case, in order."""
import json
import sys
from pathlib import Path

from pypi_attestations import Attestation, Distribution
from sigstore.verify.policy import UnsafeNoOp


def verdict(case):
    try:
        with open(case["attestation"], "rb") as f:
            att = Attestation.model_validate_json(f.read())
        att.verify(UnsafeNoOp(), Distribution.from_file(Path(case["dist"])), staging=case["staging"], offline=True)
        return {"ok": True, "error": ""}
    except Exception as e:  # noqa: BLE001 - every refusal is a verdict, its words kept
        return {"ok": False, "error": f"{type(e).__name__}: {e}"[:300]}


def main():
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    print(json.dumps([verdict(c) for c in cases]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
