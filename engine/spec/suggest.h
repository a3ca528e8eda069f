// The parser's "did you mean": engine/base/suggest.h, the one copy every module uses, named in
// this namespace so the parser's many call sites read `DidYouMean(...)`.
#pragma once

#include "engine/base/suggest.h"

namespace pe::spec {

using base::DidYouMean;
using base::EditDistance;
using base::NearestName;

}  // namespace pe::spec
