#!/usr/bin/env bash
# Runs every libFuzzer target for FUZZ_SECONDS each, starting from the seeds the tests write and the
# checked-in regression corpus. Crashes land in BUILD/fuzz-crashes/TARGET/ (copy each into
# fuzz/corpus/TARGET/ once fixed). Prints per target: seconds, executions, corpus size, crashes.
# Usage: fuzz/run.sh BUILD_DIR SECONDS
set -uo pipefail
build=$1 seconds=${2:-60}
root=$(cd "$(dirname "$0")" && pwd)
printf '%-10s %8s %12s %8s %8s\n' target seconds execs corpus crashes
for t in zip filename metadata record wheel version elf macho pe fatbin policy index inflate capture cases installer sbom attestation trust_root shard release_set sdist; do
  work="$build/fuzz-work/$t" crashes="$build/fuzz-crashes/$t"
  seeds="$build/seeds/$t"
  mkdir -p "$work" "$crashes" "$root/corpus/$t"
  log="$build/fuzz-work/$t.log"
  "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$crashes/" -print_final_stats=1 "$work" "$seeds" "$root/corpus/$t" >"$log" 2>&1
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  printf '%-10s %8s %12s %8s %8s\n' "$t" "$seconds" "${execs:-?}" "$(ls "$work" | wc -l)" "$(ls "$crashes" | wc -l)"
done
