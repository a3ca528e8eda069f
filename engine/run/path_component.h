// A name from the spec (a workload, a sweep point such as "w[dir=../../etc]", a contender) as
// one file-name component: it can never climb out of, or reach past, the directory it is
// joined to.
#pragma once

#include <string>
#include <string_view>

namespace pe::run {

// Letters, digits, '-', '_' and '.' are kept; every other byte becomes %XX (so '/' and '%'
// cannot survive). "." and ".." become "%2E" and "%2E%2E". Names too long for a file name
// are cut and end in a hash of the whole name, so distinct names stay distinct.
std::string PathComponent(std::string_view name);

}  // namespace pe::run
