#!/usr/bin/env bash
# Runs the sanitized unit tests and fuzz targets that scripts/build.sh builds in
# build-sanitize/ (ctest runs this as `sanitize.unit_and_fuzz`). Any ASan or UBSan report
# fails it. Exit 77 (ctest: skipped) when build-sanitize/ was not built.
#   run-sanitized.sh SOURCE_DIR [FUZZ_SECONDS]
set -uo pipefail
src="$1"
seconds="${2:-10}"
bin="$src/build-sanitize/bin"
if [ ! -x "$bin/spec_test" ]; then
  echo "skipped: $bin/spec_test is missing; ./scripts/build.sh builds it (unless PERFENGINE_SANITIZE_BUILD=0)"
  exit 77
fi
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
# The Monte Carlo checks of stats_test (family-wise false alarms, a confidence sequence's
# coverage, PELT against an exhaustive search) run the same code paths thousands of times: 57 s
# of this test's 111 s at -O0 under the sanitizers, which find nothing on the thousandth pass
# that the first did not show, and the other stats tests reach those functions. build/ runs
# them in full (stats_test in ctest).
monte_carlo="-Shapes/FamilyWiseSimulation.*:SequentialCoverage.MedianHoldsForSkewedAndHeavyTailedRounds"
monte_carlo+=":ChangePointsTest.PeltFindsTheExactOptimumOfThePenalisedCost"
for t in spec_test model_test stats_test; do
  echo "== $t"
  filter="*"
  if [ "$t" = stats_test ]; then filter="$monte_carlo"; fi
  "$bin/$t" --gtest_brief=1 --gtest_filter="$filter" || status=1
done
echo "== fuzz_spec_parser ($seconds s)"
"$bin/fuzz_spec_parser" "$seconds" 2 "$src/tests/data/fuzz/spec" "$src/tests/data/bad_specs" "$src/specs" || status=1
echo "== fuzz_results_reader ($seconds s)"
"$bin/fuzz_results_reader" "$seconds" 2 "$src/tests/data/fuzz/results" "$src/tests/data/results" || status=1
echo "== fuzz_counters_parser ($seconds s)"
if [ -x "$bin/fuzz_counters_parser" ]; then
  "$bin/fuzz_counters_parser" "$seconds" 2 "$src/tests/data/fuzz/counters" || status=1
else
  echo "missing: $bin/fuzz_counters_parser (./scripts/build.sh builds it)"
  status=1
fi
exit $status
