#!/usr/bin/env bash
# `make install PREFIX=...` into a temporary prefix, then the
# installed binaries used from there: --version, the policies installed where the binary finds them
# (a team policy dropped beside them is found by name), and a check of a sample wheelhouse whose
# verdict equals the build tree's. Usage: install_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix" "$prefix.log"' EXIT
make -C "$src" --no-print-directory install BUILD="$build" PREFIX="$prefix" >"$prefix.log" 2>&1 || { cat "$prefix.log"; exit 1; }
rm -f "$prefix.log"
wc="$prefix/bin/wheelcheck"
[ -x "$wc" ] && [ -x "$prefix/bin/wheelsmoke" ] || { echo "binaries not installed under $prefix/bin"; exit 1; }
[ -f "$prefix/share/wheelcheck/policies/pytorch.json" ] || { echo "policies not installed"; exit 1; }
[ -f "$prefix/share/wheelcheck/report.schema.json" ] || { echo "report schema not installed"; exit 1; }
"$wc" --version | grep -q '^wheelcheck [0-9]' || { echo "--version: $("$wc" --version)"; exit 1; }
# A site policy beside the shipped ones, used by name.
printf '{"name": "site", "extends": "pypi", "rules": {"WC107": "error"}}\n' > "$prefix/share/wheelcheck/policies/site.json"
"$wc" policy list | grep -q '^site  (' || { echo "policy list misses the installed site policy"; "$wc" policy list; exit 1; }
# Into a file first: `| grep -q` stops reading at the match, and under pipefail the writer's SIGPIPE
# on the rest of the document (150 kB with the generated tables) would fail the check at random.
"$wc" policy show site > "$prefix/site.json" && grep -q '"WC107": "error"' "$prefix/site.json" ||
  { echo "the site policy is not loaded by name"; exit 1; }
# The same sample wheelhouse, checked by the installed and by the built binary.
sample="$prefix/sample"
"$build/tools/make-sample-wheelhouse" "$sample" >/dev/null
set +e
"$wc" check -q --format json "$sample" > "$prefix/installed.json"; a=$?
"$build/wheelcheck" check -q --format json "$sample" > "$prefix/built.json"; b=$?
set -e
[ "$a" -eq "$b" ] || { echo "exit $a from the installed binary, $b from the built one"; exit 1; }
python3 - "$prefix/installed.json" "$prefix/built.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
va = [(w["path"], w["verdict"], [f["rule"] for f in w["findings"]]) for w in a["wheels"]]
vb = [(w["path"], w["verdict"], [f["rule"] for f in w["findings"]]) for w in b["wheels"]]
assert va == vb, (va, vb)
assert len(va) >= 3, va
PY
echo "installed under $prefix: binaries, policies, schema; verdicts equal the build tree's"
