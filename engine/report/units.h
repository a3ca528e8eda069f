// The reporters' names for the units library (engine/units/units.h), which every module that
// prints a figure shares.
#pragma once

#include "engine/units/units.h"

namespace pe::report {

using units::FormatKiB;
using units::FormatPercent;
using units::FormatPValue;
using units::FormatRatio;
using units::FormatSeconds;
using units::KiB;
using units::Percent;
using units::PValue;
using units::Ratio;
using units::Seconds;

}  // namespace pe::report
