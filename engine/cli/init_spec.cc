#include "engine/cli/init_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>

#include "engine/cli/toml_string.h"
#include "engine/spec/spec_error.h"

namespace pe::cli {

namespace fs = std::filesystem;

std::optional<std::vector<std::string>> SplitCommand(const std::string& text) {
  // Characters that mean something to a shell outside quotes: pipes, redirection, lists,
  // expansion, globs, comments, subshells.
  static constexpr std::string_view kShell = "|&;<>()$`*?[]{}~#\n";
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return std::nullopt;
      word += text.substr(i + 1, end - i - 1);
      i = end;
      in_word = true;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '$' || text[j] == '`') return std::nullopt;  // expansion inside "..."
        if (text[j] == '\\' && j + 1 < text.size() &&
            std::string_view("\"\\").find(text[j + 1]) != std::string_view::npos)
          ++j;
        word += text[j];
      }
      if (j >= text.size()) return std::nullopt;
      i = j;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (kShell.find(c) != std::string_view::npos || (c == '=' && !in_word && words.empty())) {
      return std::nullopt;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) return std::nullopt;
  // VAR=value before the program is a shell's job too.
  if (words.front().find('=') != std::string::npos) return std::nullopt;
  return words;
}

namespace {

std::vector<std::string> ArgvOf(const std::string& command) {
  if (auto words = SplitCommand(command)) return *words;
  return {"sh", "-c", command};
}

bool ValidName(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

// Where `text` stops being UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF), or npos when it is UTF-8 throughout.
std::size_t FirstNonUtf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char c = byte(i);
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
    if (c < 0x80) {
      length = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      if (c == 0xE0) low = 0xA0;
      if (c == 0xED) high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      if (c == 0xF0) low = 0x90;
      if (c == 0xF4) high = 0x8F;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned char lo = k == 1 ? low : 0x80, hi = k == 1 ? high : 0xBF;
      if (byte(i + k) < lo || byte(i + k) > hi) return i;
    }
    i += length;
  }
  return std::string::npos;
}

// A spec is TOML, which holds UTF-8 text only: a byte that is not would fail the parse of a
// spec that was never written, so the argument it came from is named instead.
void CheckUtf8(const std::string& text, const std::string& what) {
  const std::size_t bad = FirstNonUtf8(text);
  if (bad == std::string::npos) return;
  throw spec::UsageError(fmt::format("init: {} is not UTF-8 text (byte 0x{:02x} at offset {}): a spec holds UTF-8 only",
                                     what, static_cast<unsigned char>(text[bad]), bad));
}

std::string Array(const std::vector<std::string>& items) {
  std::vector<std::string> quoted;
  for (const auto& i : items) quoted.push_back(TomlString(i));
  return fmt::format("[{}]", fmt::join(quoted, ", "));
}

}  // namespace

std::vector<std::string> InitNames(const InitInput& input) {
  std::vector<std::string> names;
  for (const std::string& command : input.commands) {
    const std::vector<std::string> argv = ArgvOf(command);
    names.push_back(argv.front() == "sh" && argv.size() == 3 ? "" : fs::path(argv.front()).filename().string());
  }
  // Each program's base name, when every one is a valid name, none is "startup" and no two are
  // the same; else the roles, with a third contender and beyond numbered.
  bool distinct = names.size() >= 2;
  for (std::size_t i = 0; i < names.size() && distinct; ++i) {
    distinct = ValidName(names[i]) && names[i] != "startup" &&
               std::find(names.begin() + static_cast<std::ptrdiff_t>(i) + 1, names.end(), names[i]) == names.end();
  }
  if (distinct) return names;
  std::vector<std::string> roles = {"baseline", "candidate"};
  for (std::size_t i = 2; i < input.commands.size(); ++i) roles.push_back(fmt::format("candidate{}", i));
  return roles;
}

std::string InitSpecText(const InitInput& input) {
  if (input.commands.size() < 2)
    throw spec::UsageError("init: give two or more commands, the baseline's first, then each candidate's");
  const std::size_t count = input.commands.size();
  auto whose = [&](std::size_t i) {
    return i == 0       ? std::string("the baseline's")
           : count == 2 ? std::string("the candidate's")
                        : fmt::format("candidate {}'s", i);
  };
  for (std::size_t i = 0; i < count; ++i) {
    const std::string& command = input.commands[i];
    if (command.find_first_not_of(" \t") == std::string::npos) throw spec::UsageError("init: a command is empty");
    const std::string letter = i < 26 ? std::string(1, static_cast<char>('A' + i)) : std::to_string(i + 1);
    CheckUtf8(command, fmt::format("CMD {}, {} command,", letter, whose(i)));
  }
  const std::vector<std::string> names = InitNames(input);
  std::string out;
  out +=
      fmt::format("# Written by `perfengine init`: {} commands compared on wall time. Every key is in docs/spec.md.\n",
                  count == 2 ? "two" : std::to_string(count));
  out += "#   perfengine validate SPEC    checks it;  perfengine run SPEC --json results.json    runs it;\n";
  out += "#   perfengine explain results.json    shows the working behind the verdict.\n";
  out += fmt::format("description = {}\n\n", TomlString(fmt::format("{}", fmt::join(input.commands, " vs "))));
  out += "[run]\n";
  out += "rounds = 10         # the minimum; rounds are added while a check is unresolved...\n";
  out += "max_rounds = 30     # ...up to this many\n";
  out += "warmup_rounds = 1   # run first and discarded\n";
  out += fmt::format("baseline = {}\ncandidate = {}\n", TomlString(names[0]), TomlString(names[1]));
  if (count > 2) out += "# The other contenders are each judged against the baseline too (docs/spec.md).\n";
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<std::string> argv = ArgvOf(input.commands[i]);
    const fs::path program(argv.front());
    // A relative path is relative to the spec's folder when the spec is read.
    if (argv.front().find('/') != std::string::npos && program.is_relative()) {
      argv.front() = fs::relative(fs::absolute(program), fs::absolute(input.spec_dir)).string();
      if (argv.front().find('/') == std::string::npos) argv.front() = "./" + argv.front();
      CheckUtf8(argv.front(), fmt::format("the path from --out's folder to {} program", whose(i)));
    }
    out += fmt::format("\n[contenders.{}]\n", names[i]);
    out += fmt::format("description = {}\n", TomlString(input.commands[i]));
    if (argv.front() == "sh" && argv.size() == 3)
      out += "# The command needs a shell (a pipe, redirection, $ or a glob), so it runs under sh -c.\n";
    out += fmt::format("argv = {}\n", Array(argv));
    const bool plain = i < input.plain_startup.size() ? input.plain_startup[i] : true;
    if (argv.front() == "sh") {
      out += "startup = [\"sh\", \"-c\", \"true\"]   # the shell's own start-up cost\n";
    } else if (!plain) {
      out += fmt::format("startup = [\"true\"]   # `{} --version` failed here, so start-up is not measured\n",
                         argv.front());
    }
  }
  out += input.parity == "none"
             ? "\n# The commands run from the directory perfengine runs in.\n"
             : "\n# The commands run from the directory perfengine runs in; each one's stdout is compared with the\n"
               "# baseline's before anything is timed.\n";
  out += "[workloads.command]\n";
  out +=
      fmt::format("description = {}\n", TomlString(count == 2 ? "the two commands as given" : "the commands as given"));
  if (input.parity == "none") {
    out += "parity = \"none\"   # outputs differ by nature: compare time only (the report says so)\n";
  } else {
    out += fmt::format(
        "parity = {}   # \"none\" compares time only; normalise = [\"cmd\", \"{{output}}\"] "
        "transforms each output first\n",
        TomlString(input.parity));
  }
  out += "\n# A faster candidate passes: its median is faster and it wins more rounds than it loses,\n";
  out += "# each shown at 95% confidence. A speed-up still not shown after max_rounds fails the gate.\n";
  out += "[thresholds]\n";
  out += "min_speedup = 1.0\n";
  out += "min_win_rate = 0.5\n";
  return out;
}

}  // namespace pe::cli
