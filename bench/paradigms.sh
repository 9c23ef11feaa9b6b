#!/usr/bin/env bash
# The paradigm table of docs/paradigms.md: every family's main formulation on every paradigm, one
# campaign per family (docs/paradigms/*.toml), one job at a time, stores and plots in OUT.
# Usage: bash bench/paradigms.sh OUT_DIR   (resumable: a rerun executes only the missing jobs)
set -euo pipefail
out=${1:?usage: bench/paradigms.sh OUT_DIR}
mkdir -p "$out"
cd "$(dirname "$0")/.."
uptime > "$out/load-start.txt"
for spec in peg sliding maze tiling-count tiling-feasible; do
    puzzlesat campaign run "docs/paradigms/$spec.toml" --store "$out/$spec.db" --jobs 1 > "$out/$spec.run.txt" 2>&1 || true
    puzzlesat campaign report --store "$out/$spec.db" --format markdown > "$out/$spec.md" 2>&1 || true
    puzzlesat campaign plot --store "$out/$spec.db" --kind cactus -o "$out/$spec-cactus.svg" > /dev/null 2>&1 || true
    uptime >> "$out/load-start.txt"
done
