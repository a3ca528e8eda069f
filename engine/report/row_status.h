// How the checks on one workload (or one check) ended, as every report's table paints it.
#pragma once

namespace pe::report {

enum class RowStatus {
  kPass,        // every threshold on this workload met
  kMissed,      // a threshold missed
  kUnresolved,  // a claim that must be shown is not shown either way yet
  kFailed,      // the workload failed (crash, timeout, parity, ...)
  kNotGated,    // gate = false: measured, never gated
  kNone,        // nothing was checked
};

}  // namespace pe::report
