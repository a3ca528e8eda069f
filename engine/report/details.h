// The figures beyond the main table, decided once for the text reporters: CPU time and
// deterministic counts (no-regression gates), server latencies (serve workloads), and where
// the extra time went when a regression was profiled.
#pragma once

#include <string>
#include <vector>

#include "engine/model/result.h"

namespace pe::report {

// One line per workload that has them, e.g.
// "records: CPU 2.10 ms -> 3.00 ms (medians); instructions 4644092 -> 9444130 (2.03x,
//  valgrind callgrind); allocations 4 -> 4 (1.00x); objects 1200 -> 1300 objects". The CPU time
//  is the contenders' medians only: the figure max_slowdown reads is in the table.
std::vector<std::string> MeasureLines(const model::RunResult& result);

// One line per serve workload and contender: latency percentiles, throughput, time-to-ready;
// then the workload's notes (a server killed with SIGKILL after ignoring SIGTERM).
std::vector<std::string> ServeLines(const model::RunResult& result);

// For each profiled workload: a heading line, then one line per function whose cost grew.
std::vector<std::string> ProfileLines(const model::RunResult& result);

// One line per workload whose outputs were not compared (parity = "none"), e.g.
// "compress: parity = "none": outputs were not compared; these figures compare time only".
std::vector<std::string> UncomparedLines(const model::RunResult& result);

}  // namespace pe::report
