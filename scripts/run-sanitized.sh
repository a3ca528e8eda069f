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
for t in spec_test model_test stats_test; do
  echo "== $t"
  "$bin/$t" --gtest_brief=1 || status=1
done
echo "== fuzz_spec_parser ($seconds s)"
"$bin/fuzz_spec_parser" "$seconds" 2 "$src/tests/data/fuzz/spec" "$src/tests/data/bad_specs" "$src/specs" || status=1
echo "== fuzz_results_reader ($seconds s)"
"$bin/fuzz_results_reader" "$seconds" 2 "$src/tests/data/fuzz/results" "$src/tests/data/results" || status=1
exit $status
