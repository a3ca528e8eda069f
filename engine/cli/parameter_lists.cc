#include "engine/cli/parameter_lists.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include "engine/base/suggest.h"
#include "engine/cli/toml_string.h"
#include "engine/spec/placeholders.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

namespace {

std::string Marker(const std::string& name) { return "@@perfengine-parameter-" + name + "@@"; }

std::vector<std::string> Split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

void AddParameterListOption(CLI::App* command, ParameterPairs& pairs) {
  command
      ->add_option("-L,--parameter-list", pairs,
                   "Run the commands once per value of a parameter, as hyperfine's -L: -L NAME a,b,c fills {NAME} in "
                   "them (one workload per value; repeat -L for a matrix)")
      ->type_name("NAME VALUES");
}

std::vector<ParameterList> CheckParameterLists(const ParameterPairs& pairs, const std::vector<std::string>& commands) {
  std::vector<ParameterList> lists;
  if (pairs.empty()) return lists;  // without -L, braces in a command are the spec parser's to judge
  const std::vector<std::string>& builtin = spec::PlaceholderNames();
  for (const auto& [given_name, given_values] : pairs) {
    ParameterList list{given_name, Split(given_values)};
    const std::string& name = list.name;
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
        })) {
      throw spec::UsageError(fmt::format(
          "-L: parameter name '{}' may hold only letters, digits, '-' and '_' (e.g. -L level 1,3,9)", name));
    }
    if (std::find(builtin.begin(), builtin.end(), name) != builtin.end()) {
      throw spec::UsageError(
          fmt::format("-L {}: the name would hide the {{{}}} placeholder; choose another name", name, name));
    }
    if (std::any_of(lists.begin(), lists.end(), [&](const ParameterList& l) { return l.name == name; })) {
      throw spec::UsageError(fmt::format("-L {}: given twice; list every value once: -L {} a,b,c", name, name));
    }
    std::set<std::string> seen;
    for (const std::string& v : list.values) {
      if (v.empty()) {
        throw spec::UsageError(
            fmt::format("-L {} '{}': a value is empty; separate values with single commas, e.g. "
                        "-L {} 1,3,9",
                        name, given_values, name));
      }
      if (!seen.insert(v).second) {
        throw spec::UsageError(fmt::format("-L {}: the value '{}' is listed twice", name, v));
      }
    }
    lists.push_back(std::move(list));
  }
  std::vector<std::string> declared;
  for (const ParameterList& l : lists) declared.push_back("{" + l.name + "}");
  for (const std::string& command : commands) {
    std::string error;
    for (const std::string& used : spec::PlaceholdersIn(command, &error)) {
      if (std::find(builtin.begin(), builtin.end(), used) != builtin.end()) continue;
      if (std::find(declared.begin(), declared.end(), "{" + used + "}") != declared.end()) continue;
      throw spec::UsageError(
          fmt::format("'{}' uses {{{}}}, which no -L declares{}; add -L {} VALUES, or write {{{{{}}}}} for literal "
                      "braces",
                      command, used, base::DidYouMean("{" + used + "}", declared), used, used));
    }
    // The program (the first word) is what `startup` runs with --version: it may not vary.
    const std::string first = command.substr(0, command.find_first_of(" \t"));
    for (const ParameterList& l : lists) {
      if (first.find("{" + l.name + "}") != std::string::npos) {
        throw spec::UsageError(
            fmt::format("-L {}: '{}' varies its program; a parameter may be used only after it "
                        "(write a spec with one contender per program instead)",
                        l.name, command));
      }
    }
  }
  for (const ParameterList& l : lists) {
    if (std::none_of(commands.begin(), commands.end(),
                     [&](const std::string& c) { return c.find("{" + l.name + "}") != std::string::npos; })) {
      throw spec::UsageError(
          fmt::format("-L {}: no command uses {{{}}}; put it where the value goes, e.g. 'zstd "
                      "-{{{}}} FILE'",
                      l.name, l.name, l.name));
    }
  }
  return lists;
}

std::vector<std::string> MarkParameters(std::vector<std::string> commands, const std::vector<ParameterList>& lists) {
  for (std::string& command : commands) {
    for (const ParameterList& l : lists) {
      const std::string braced = "{" + l.name + "}";
      for (std::size_t at = command.find(braced); at != std::string::npos; at = command.find(braced, at)) {
        command.replace(at, braced.size(), Marker(l.name));
      }
    }
  }
  return commands;
}

std::string UnmarkParameters(std::string spec_text, const std::vector<ParameterList>& lists) {
  if (lists.empty()) return spec_text;
  for (const ParameterList& l : lists) {
    const std::string marker = Marker(l.name);
    for (std::size_t at = spec_text.find(marker); at != std::string::npos; at = spec_text.find(marker, at)) {
      spec_text.replace(at, marker.size(), "{" + l.name + "}");
    }
  }
  std::vector<std::string> entries;
  for (const ParameterList& l : lists) {
    std::vector<std::string> quoted;
    for (const std::string& v : l.values) quoted.push_back(TomlString(v));
    entries.push_back(fmt::format("{} = [{}]", l.name, fmt::join(quoted, ", ")));
  }
  const std::size_t table = spec_text.find("\n[workloads.");
  if (table == std::string::npos) throw std::logic_error("-L: the spec has no workload to add parameters to");
  const std::size_t line_end = spec_text.find('\n', table + 1);
  spec_text.insert(line_end + 1,
                   fmt::format("parameters = {{ {} }}   # -L: one workload per value, {{NAME}} filled in\n",
                               fmt::join(entries, ", ")));
  return spec_text;
}

}  // namespace pe::cli
