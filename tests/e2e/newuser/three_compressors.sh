#!/bin/sh
# usage: three_compressors.sh PERFENGINE
# gzip, zstd and lz4 (scripts/install-deps.sh installs them) on one generated text file, as a
# new user would compare them. Nothing here assumes which is faster: only that every report
# names all three, carries each one's comparison with the baseline, and agrees with the others.
set -eu
pe=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/perfengine-newuser-XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# Exit 0, 1 or 3 are verdicts (docs/exit-codes.md); 2 is a failed run, anything else a crash.
verdict() { case $1 in 0|1|3) ;; *) fail "$2 exited $1"; esac; }
for tool in gzip zstd lz4 python3; do command -v $tool > /dev/null || fail "$tool is not installed (scripts/install-deps.sh)"; done

mkdir "$dir/data"
seq 1 150000 > "$dir/data/numbers.txt"
cat > "$dir/spec.toml" <<'TOML'
description = "gzip, zstd and lz4 on the same text"

[run]
rounds = 3
max_rounds = 9   # each of the two candidates' max_slowdown checks at 97.5% (family-wise) needs 8
warmup_rounds = 0
baseline = "gzip"
candidate = "zstd"

[contenders.gzip]
argv = ["gzip", "-c"]

[contenders.zstd]
argv = ["zstd", "-c", "-q"]

[contenders.lz4]
argv = ["lz4", "-c", "-q"]

[workloads.compress]
fixture = "data"
args = ["{fixture}/numbers.txt"]
parity = "none"

[thresholds]
max_slowdown = 1000
TOML
cd "$dir"
rc=0
"$pe" run spec.toml --json r.json --markdown r.md --html r.html --csv r.csv > run.txt 2> run.err || rc=$?
[ $rc -ne 2 ] || { cat run.txt run.err; fail "run failed"; }
verdict $rc "run"

# The terminal table: a row per candidate, each naming it, and the summary naming all three.
for c in zstd lz4; do
  grep -Eq "^compress +$c " run.txt || { cat run.txt; fail "the terminal table has no row for $c"; }
done
# The level is each check's (family-wise, docs/statistics.md): 97.5% for this spec's two checks.
grep -q '^summary (median per-round speed-up \[97.5% confidence sequence\], the figure min_speedup reads):' run.txt ||
  { cat run.txt; fail "no labelled summary"; }
line=$(grep '^  compress: ' run.txt) || { cat run.txt; fail "no summary line for compress"; }
for c in gzip zstd lz4; do
  echo "$line" | grep -q "$c" || fail "the summary line does not name $c: $line"
done
echo "$line" | grep -Eq 'ran [0-9.]+x \[[0-9.]+x, [0-9.]+x\] faster than' || fail "the summary has no interval: $line"
# CPU time (what max_slowdown reads) for each candidate against the baseline, each line naming it.
for c in zstd lz4; do
  grep -q "^  compress ($c): CPU " run.txt || { cat run.txt; fail "no CPU-time line for $c"; }
done

# Markdown and HTML: the same rows.
for c in zstd lz4; do
  grep -q "^| compress | $c |" r.md || { cat r.md; fail "the Markdown table has no row for $c"; }
  grep -q "<tr><td>compress</td><td>$c</td>" r.html || fail "the HTML table has no row for $c"
done
grep -q '^\*\*Summary\*\* (median per-round speed-up' r.md || fail "no summary in the Markdown"
grep -q '<ul class="speedup-summary">' r.html || fail "no summary in the HTML"

# The CSV: one row per contender; the candidates' rows carry their own comparison with gzip,
# CPU time and the verdict; the baseline's carries none.
python3 - r.csv r.json <<'PY' || fail "CSV or JSON"
import csv, json, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["workload"] == "compress"]
assert [r["contender"] for r in rows] == ["gzip", "zstd", "lz4"], rows
base, *cands = rows
assert base["role"] == "baseline" and base["ratio_of_medians"] == "" and base["verdict"] == "", base
assert float(base["median_cpu_s"]) >= 0
result = json.load(open(sys.argv[2]))
w = next(w for w in result["workloads"] if w["name"] == "compress")
pairs = {(c["baseline"], c["candidate"]): c for c in [w["comparison"]] + w["other_comparisons"]}
assert set(pairs) == {("gzip", "zstd"), ("gzip", "lz4")}, pairs.keys()
med = {s["contender"]: s["median_wall_s"] for s in w["summaries"]}
for r in cands:
    c = pairs[("gzip", r["contender"])]
    assert r["role"] == "candidate" and r["against"] == "gzip", r
    # Its own ratio, not the other pair's: baseline median over its own median.
    assert abs(float(r["ratio_of_medians"]) - med["gzip"] / med[r["contender"]]) < 1e-9 * float(r["ratio_of_medians"]) + 1e-12, r
    assert abs(float(r["ratio_of_medians"]) - c["speedup"]) <= 1e-9 * c["speedup"], (r, c)
    # The figure min_speedup reads: the pair's median per-round speed-up.
    assert abs(float(r["per_round_speedup"]) - c["speedup_cs"]["estimate"]) <= 1e-9 * c["speedup_cs"]["estimate"], (r, c)
    assert r["per_round_speedup_low"] != "" and r["cpu_ratio"] != "", r
    assert r["verdict"] in ("pass", "missed", "unresolved"), r
    assert float(r["median_cpu_s"]) >= 0
# The gate judged both candidates: max_slowdown once for zstd (the run's candidate) and once for lz4.
checks = [(c["workload"], c["threshold"], c.get("contender", "")) for c in result["verdict"]["checks"]]
assert ("compress", "max_slowdown", "") in checks and ("compress", "max_slowdown", "lz4") in checks, checks
PY

# A saved file renders again: Markdown and CSV byte for byte, HTML with every contender.
"$pe" report r.json --markdown again.md --csv again.csv --html again.html > /dev/null || fail "report"
cmp r.md again.md || fail "report --markdown differs from run's"
cmp r.csv again.csv || fail "report --csv differs from run's"
grep -q "<td>lz4</td>" again.html || fail "report --html lacks lz4"
"$pe" report r.json > again.txt || fail "report (terminal)"
grep -Eq "^compress +lz4 " again.txt || fail "report's terminal table lacks lz4"

# explain: the summary, and the gate's check on each candidate.
"$pe" explain r.json > explain.txt || fail "explain"
grep -q '^summary (median per-round speed-up' explain.txt || { cat explain.txt; fail "explain has no summary"; }
grep -q 'compress (lz4): paired CPU-time ratio' explain.txt || { cat explain.txt; fail "explain lacks lz4's check"; }

# compare = "all-pairs": zstd against lz4 too, and the summary leads with the fastest.
sed 's/^candidate = "zstd"$/candidate = "zstd"\ncompare = "all-pairs"/' spec.toml > all.toml
rc=0
"$pe" run all.toml --json all.json > all.txt 2> all.err || rc=$?
[ $rc -ne 2 ] || { cat all.txt all.err; fail "all-pairs run failed"; }
verdict $rc "all-pairs run"
python3 - all.json <<'PY' || fail "all-pairs JSON"
import json, sys
w = next(w for w in json.load(open(sys.argv[1]))["workloads"] if w["name"] == "compress")
pairs = {(c["baseline"], c["candidate"]) for c in [w["comparison"]] + w["other_comparisons"]}
assert pairs == {("gzip", "zstd"), ("gzip", "lz4"), ("zstd", "lz4")}, pairs
PY
line=$(grep '^  compress: ' all.txt) || { cat all.txt; fail "no all-pairs summary"; }
echo "$line" | grep -Eq '^  compress: (gzip|zstd|lz4) ran [0-9.]+x \[[^]]*\] faster than (gzip|zstd|lz4), [0-9.]+x \[[^]]*\] than (gzip|zstd|lz4)$' ||
  fail "the all-pairs summary is not in hyperfine's form: $line"

# --quick with three commands: the spec init would write, every contender in the table. Its four
# checks (two per candidate) are at 98.75% each (family-wise), which a unanimous series reaches at 9.
rc=0
"$pe" run --quick "gzip -c data/numbers.txt" "zstd -c -q data/numbers.txt" "lz4 -c -q data/numbers.txt" \
  --parity none --rounds 7 --max-rounds 9 --warmup-rounds 0 > quick.txt 2> quick.err || rc=$?
[ $rc -ne 2 ] || { cat quick.txt quick.err; fail "--quick with three commands failed"; }
verdict $rc "--quick"
for c in zstd lz4; do
  grep -Eq "^command +$c " quick.txt || { cat quick.txt; fail "--quick's table has no row for $c"; }
done
grep -q "^gzip (baseline) against" quick.txt || { cat quick.txt; fail "--quick: gzip is not the baseline"; }
"$pe" init "gzip -c data/numbers.txt" "zstd -c -q data/numbers.txt" "lz4 -c -q data/numbers.txt" --out three.toml \
  > init.txt || fail "init with three commands"
grep -q "candidate 'lz4'" init.txt || { cat init.txt; fail "init does not name lz4"; }
"$pe" validate three.toml > /dev/null || fail "the spec init wrote for three commands does not validate"
echo "three compressors ok"
