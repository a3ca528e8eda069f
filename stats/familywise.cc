#include "stats/familywise.h"

#include <fmt/format.h>

#include "stats/error.h"

namespace pe::stats {

double PerCheckConfidence(double family_confidence, int checks) {
  if (!(family_confidence > 0.0 && family_confidence < 1.0)) {
    throw StatsError(fmt::format("PerCheckConfidence: confidence {} is outside (0, 1)", family_confidence));
  }
  if (checks < 0) throw StatsError(fmt::format("PerCheckConfidence: {} checks is negative", checks));
  if (checks <= 1) return family_confidence;
  return 1.0 - (1.0 - family_confidence) / checks;
}

}  // namespace pe::stats
