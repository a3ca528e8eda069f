#include "engine/measure/call_graph.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/units/units.h"

namespace pe::measure {
namespace {

std::vector<std::string_view> Tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    const std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

std::optional<std::uint64_t> Number(std::string_view text) {
  std::uint64_t value = 0;
  // Costs may be written in hex ("0x1f") when --dump-instr=yes; positions are skipped, not read.
  int base = 10;
  if (text.starts_with("0x")) {
    text.remove_prefix(2);
    base = 16;
  }
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string BaseName(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// One name-compression space ("ob", "fl", "fn"): "(12) name" defines 12, "(12)" uses it.
class Names {
 public:
  std::optional<std::string> Resolve(std::string_view value, std::string& name) {
    if (!value.starts_with('(')) {
      name = std::string(value);
      return std::nullopt;
    }
    const std::size_t close = value.find(')');
    if (close == std::string_view::npos) return std::string("unterminated '(id)'");
    const std::string id(value.substr(1, close - 1));
    std::string_view rest = value.substr(close + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (!rest.empty()) {
      names_[id] = std::string(rest);
      name = std::string(rest);
      return std::nullopt;
    }
    const auto it = names_.find(id);
    if (it == names_.end()) return fmt::format("name id ({}) used before it was defined", id);
    name = it->second;
    return std::nullopt;
  }

 private:
  std::map<std::string, std::string> names_;
};

}  // namespace

std::uint64_t CallGraph::Inclusive(const FunctionKey& f) const {
  std::uint64_t sum = 0;
  if (const auto it = nodes.find(f); it != nodes.end()) sum = it->second.self;
  for (auto it = edges.lower_bound({f, FunctionKey{}}); it != edges.end() && it->first.first == f; ++it) {
    if (it->first.second != f) sum += it->second.cost;
  }
  return sum;
}

std::optional<std::string> ParseCallgrindOut(std::string_view text, CallGraph& out) {
  CallGraph graph;
  Names objects, files, functions;
  std::size_t positions = 1;
  std::size_t line_index = 0;  // which position is the source line (positions: line, or instr line)
  bool have_lines = true;
  std::int64_t last_line = 0;  // positions may be relative to the previous one ("+2", "-1", "*")
  std::string file;            // the current source file (fl=, or fi=/fe= for inlined code)
  std::size_t ir_index = 0;
  std::optional<std::uint64_t> totals, summary;
  std::string ob, cob, cfn, fl;
  bool have_cob = false;
  std::optional<FunctionKey> fn;
  std::optional<std::uint64_t> pending_calls;  // a calls= line waits for its cost line
  std::uint64_t self_sum = 0;
  int number = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    auto bad = [&](const std::string& why) {
      return fmt::format("line {} '{}': {}", number, line.substr(0, 120), why);
    };
    auto value_after = [&](std::size_t prefix) { return line.substr(prefix); };
    const char first = line.front();
    if ((first >= '0' && first <= '9') || first == '+' || first == '-' || first == '*') {
      const std::vector<std::string_view> tokens = Tokens(line);
      if (have_lines && line_index < tokens.size()) {
        const std::string_view position = tokens[line_index];
        if (position.starts_with('+') || position.starts_with('-')) {
          const std::optional<std::uint64_t> step = Number(position.substr(1));
          if (step)
            last_line += position.front() == '+' ? static_cast<std::int64_t>(*step) : -static_cast<std::int64_t>(*step);
        } else if (position != "*") {
          if (const std::optional<std::uint64_t> at = Number(position)) last_line = static_cast<std::int64_t>(*at);
        }
      }
      std::uint64_t ir = 0;
      if (positions + ir_index < tokens.size()) {
        const std::optional<std::uint64_t> value = Number(tokens[positions + ir_index]);
        if (!value) return bad(fmt::format("'{}' is not a cost", tokens[positions + ir_index]));
        ir = *value;
      }
      if (!fn) return bad("a cost line before any fn= line");
      if (pending_calls) {
        const FunctionKey callee{cfn, BaseName(have_cob ? cob : ob)};
        CallEdge& edge = graph.edges[{*fn, callee}];
        edge.calls += *pending_calls;
        edge.cost += ir;
        if (have_lines && last_line > 0 && !file.empty() && file != "???") {
          edge.sites[fmt::format("{}:{}", BaseName(file), last_line)] += ir;
        }
        CallGraphNode& node = graph.nodes[callee];  // a callee is a node even if it has no cost line here
        if (node.object_path.empty()) node.object_path = have_cob ? cob : ob;
        pending_calls.reset();
        have_cob = false;
      } else {
        graph.nodes[*fn].self += ir;
        self_sum += ir;
      }
      continue;
    }
    std::string name;
    if (line.starts_with("ob=")) {
      if (auto e = objects.Resolve(value_after(3), ob)) return bad(*e);
    } else if (line.starts_with("cob=")) {
      if (auto e = objects.Resolve(value_after(4), cob)) return bad(*e);
      have_cob = true;
    } else if (line.starts_with("fl=") || line.starts_with("fi=") || line.starts_with("fe=")) {
      if (auto e = files.Resolve(value_after(3), name)) return bad(*e);
      file = name;
      if (line.starts_with("fl=")) fl = name;
    } else if (line.starts_with("cfi=") || line.starts_with("cfl=")) {
      if (auto e = files.Resolve(value_after(4), name)) return bad(*e);
    } else if (line.starts_with("fn=")) {
      if (auto e = functions.Resolve(value_after(3), name)) return bad(*e);
      fn = FunctionKey{name, BaseName(ob)};
      file = fl;  // a new function starts in its own file
      CallGraphNode& node = graph.nodes[*fn];
      if (node.object_path.empty()) node.object_path = ob;
    } else if (line.starts_with("cfn=")) {
      if (auto e = functions.Resolve(value_after(4), cfn)) return bad(*e);
    } else if (line.starts_with("calls=")) {
      const std::vector<std::string_view> tokens = Tokens(value_after(6));
      const std::optional<std::uint64_t> calls = tokens.empty() ? std::nullopt : Number(tokens[0]);
      if (!calls) return bad("calls= without a count");
      pending_calls = *calls;
    } else if (line.starts_with("positions:")) {
      const std::vector<std::string_view> names = Tokens(value_after(10));
      positions = names.size();
      if (positions == 0) return bad("no positions");
      const auto at = std::find(names.begin(), names.end(), "line");
      have_lines = at != names.end();
      line_index = have_lines ? static_cast<std::size_t>(at - names.begin()) : 0;
    } else if (line.starts_with("events:")) {
      const std::vector<std::string_view> events = Tokens(value_after(7));
      const auto it = std::find(events.begin(), events.end(), "Ir");
      if (it == events.end()) return bad("no Ir event");
      ir_index = static_cast<std::size_t>(it - events.begin());
    } else if (line.starts_with("totals:") || line.starts_with("summary:")) {
      const std::vector<std::string_view> tokens = Tokens(value_after(line.find(':') + 1));
      std::optional<std::uint64_t> value = ir_index < tokens.size() ? Number(tokens[ir_index]) : std::nullopt;
      if (!value) return bad("no Ir total");
      (line.starts_with("totals:") ? totals : summary) = value;
    }
    // Anything else (version:, creator:, cmd:, part:, desc:, jump=, jcnd=, ...) says nothing
    // about costs by function.
  }
  // A file with no function at all (a process dumped before it ran anything) totals 0.
  graph.total = totals.value_or(summary.value_or(self_sum));
  out = std::move(graph);
  return std::nullopt;
}

void MergeCallGraph(CallGraph& into, const CallGraph& more) {
  for (const auto& [key, node] : more.nodes) {
    CallGraphNode& n = into.nodes[key];
    n.self += node.self;
    n.own = n.own || node.own;
    if (n.object_path.empty()) n.object_path = node.object_path;
  }
  for (const auto& [key, edge] : more.edges) {
    CallEdge& e = into.edges[key];
    e.calls += edge.calls;
    e.cost += edge.cost;
    for (const auto& [site, cost] : edge.sites) e.sites[site] += cost;
  }
  into.total += more.total;
}

void MarkOwnObjects(CallGraph& graph, const std::vector<std::filesystem::path>& own_dirs) {
  std::vector<std::string> prefixes;
  for (const std::filesystem::path& dir : own_dirs) {
    std::error_code ec;
    for (const std::filesystem::path& form :
         {dir.lexically_normal(), std::filesystem::weakly_canonical(dir, ec).lexically_normal()}) {
      std::string text = form.string();
      if (text.empty()) continue;
      if (text.back() != '/') text += '/';
      prefixes.push_back(text);
    }
  }
  static const char* const kSystem[] = {"/usr/", "/lib/", "/lib64/", "/lib32/", "/bin/", "/sbin/", "/opt/", "/snap/"};
  for (auto& [key, node] : graph.nodes) {
    const std::string& path = node.object_path;
    if (path.empty() || path.front() != '/') {
      node.own = false;
    } else if (!own_dirs.empty()) {
      node.own =
          std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) { return path.starts_with(p); });
    } else {
      node.own =
          std::none_of(std::begin(kSystem), std::end(kSystem), [&](const char* p) { return path.starts_with(p); });
    }
  }
}

std::uint64_t OwnInstructions(const CallGraph& graph) {
  std::uint64_t own = 0;
  for (const auto& [key, node] : graph.nodes) {
    if (node.own) own += node.self;
  }
  return own;
}

std::optional<std::uint64_t> OwnInstructionsOf(const std::vector<std::filesystem::path>& files,
                                               const std::vector<std::filesystem::path>& own_dirs, std::string& error) {
  std::uint64_t own = 0;
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      error = fmt::format("cannot read {}", file.string());
      return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    CallGraph graph;
    if (std::optional<std::string> bad = ParseCallgrindOut(text.str(), graph)) {
      error = fmt::format("{}: {}", file.string(), *bad);
      return std::nullopt;
    }
    MarkOwnObjects(graph, own_dirs);
    own += OwnInstructions(graph);
  }
  return own;
}

std::vector<InclusiveFinding> WhereTheGrowthWent(const CallGraph& base, const CallGraph& cand, int top,
                                                 double min_share) {
  auto self_of = [](const CallGraph& g, const FunctionKey& k) -> std::int64_t {
    const auto it = g.nodes.find(k);
    return it == g.nodes.end() ? 0 : static_cast<std::int64_t>(it->second.self);
  };
  auto own = [&](const FunctionKey& k) {
    const auto b = base.nodes.find(k);
    const auto c = cand.nodes.find(k);
    return (b != base.nodes.end() && b->second.own) || (c != cand.nodes.end() && c->second.own);
  };
  // callee -> callers with (growth of the edge, its cost in cand)
  struct Caller {
    double growth = 0;
    double cand_cost = 0;
  };
  std::map<FunctionKey, std::map<FunctionKey, Caller>> callers;
  for (const auto& [key, edge] : base.edges) {
    if (key.first != key.second) callers[key.second][key.first].growth -= static_cast<double>(edge.cost);
  }
  for (const auto& [key, edge] : cand.edges) {
    if (key.first == key.second) continue;
    Caller& c = callers[key.second][key.first];
    c.growth += static_cast<double>(edge.cost);
    c.cand_cost += static_cast<double>(edge.cost);
  }
  std::set<FunctionKey> keys;
  for (const auto& [k, n] : base.nodes) keys.insert(k);
  for (const auto& [k, n] : cand.nodes) keys.insert(k);

  std::map<FunctionKey, double> attributed;
  std::map<FunctionKey, std::map<FunctionKey, double>> through;  // own function -> direct callee (or itself)
  std::map<FunctionKey, double> pending;                         // library growth not yet handed to an own caller
  double positive_growth = 0;
  for (const FunctionKey& k : keys) {
    const std::int64_t delta = self_of(cand, k) - self_of(base, k);
    if (delta > 0) positive_growth += static_cast<double>(delta);
    if (own(k)) {
      attributed[k] += static_cast<double>(delta);
      through[k][FunctionKey{}] += static_cast<double>(delta);
    } else if (delta > 0) {
      pending[k] += static_cast<double>(delta);
    }
  }
  // Hop by hop towards own callers; growth going round a cycle of library functions thins out
  // geometrically, and what reaches no own function (the VM's own work) stays unattributed.
  for (int hop = 0; hop < 200 && !pending.empty(); ++hop) {
    std::map<FunctionKey, double> next;
    for (const auto& [g, mass] : pending) {
      if (mass < 0.5) continue;
      const auto found = callers.find(g);
      if (found == callers.end()) continue;
      double sum = 0;
      for (const auto& [f, c] : found->second) sum += std::max(c.growth, 0.0);
      const bool by_growth = sum > 0;
      if (!by_growth) {
        for (const auto& [f, c] : found->second) sum += c.cand_cost;
      }
      if (sum <= 0) continue;
      for (const auto& [f, c] : found->second) {
        const double weight = by_growth ? std::max(c.growth, 0.0) : c.cand_cost;
        if (weight <= 0) continue;
        const double share = mass * weight / sum;
        if (own(f)) {
          attributed[f] += share;
          through[f][g] += share;
        } else {
          next[f] += share;
        }
      }
    }
    pending = std::move(next);
  }
  const double growth = cand.total > base.total ? static_cast<double>(cand.total - base.total) : positive_growth;
  std::vector<InclusiveFinding> findings;
  if (growth <= 0) return findings;
  for (const auto& [k, a] : attributed) {
    if (a <= 0 || a < min_share * growth) continue;
    InclusiveFinding f;
    f.function = k;
    f.base_inclusive = base.Inclusive(k);
    f.cand_inclusive = cand.Inclusive(k);
    f.attributed = std::llround(a);
    for (const auto& [callee, amount] : through[k]) {
      const std::int64_t rounded = std::llround(amount);
      if (rounded > 0) f.through.push_back({callee, rounded});
    }
    std::sort(f.through.begin(), f.through.end(), [](const auto& x, const auto& y) {
      return x.second != y.second ? x.second > y.second : x.first < y.first;
    });
    if (f.through.size() > 3) f.through.resize(3);
    for (const auto& [callee, amount] : f.through) {
      // The call site of k -> callee whose cost grew most.
      std::map<std::string, double> site_growth;
      if (const auto e = cand.edges.find({k, callee}); e != cand.edges.end()) {
        for (const auto& [site, cost] : e->second.sites) site_growth[site] += static_cast<double>(cost);
      }
      if (const auto e = base.edges.find({k, callee}); e != base.edges.end()) {
        for (const auto& [site, cost] : e->second.sites) site_growth[site] -= static_cast<double>(cost);
      }
      std::string best;
      double most = 0;
      for (const auto& [site, grew] : site_growth) {
        if (grew > most) {
          most = grew;
          best = site;
        }
      }
      f.sites.push_back(best);
    }
    findings.push_back(std::move(f));
  }
  std::sort(findings.begin(), findings.end(), [](const InclusiveFinding& x, const InclusiveFinding& y) {
    return x.attributed != y.attributed ? x.attributed > y.attributed : x.function < y.function;
  });
  if (top >= 0 && findings.size() > static_cast<std::size_t>(top)) findings.resize(top);
  return findings;
}

std::string FormatThrough(const InclusiveFinding& finding) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < finding.through.size(); ++i) {
    const auto& [callee, amount] = finding.through[i];
    if (callee.function.empty()) {
      parts.push_back(fmt::format("its own code +{}", units::Grouped(static_cast<std::uint64_t>(amount))));
    } else {
      const std::string site =
          i < finding.sites.size() && !finding.sites[i].empty() ? " (called at " + finding.sites[i] + ")" : "";
      parts.push_back(fmt::format("{} ({}) +{}{}", callee.function, callee.object.empty() ? "?" : callee.object,
                                  units::Grouped(static_cast<std::uint64_t>(amount)), site));
    }
  }
  if (parts.empty()) return "";
  return fmt::format("of which {}", fmt::join(parts, ", "));
}

}  // namespace pe::measure
