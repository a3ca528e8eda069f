// Writing TOML text, as init and the parameter lists do it.
#pragma once

#include <string>

namespace pe::cli {

// A TOML basic string: quotes and backslashes escaped, \n and \t by name, other control
// characters, DEL (U+007F) included, which TOML allows only escaped, as \uXXXX.
std::string TomlString(const std::string& s);

}  // namespace pe::cli
