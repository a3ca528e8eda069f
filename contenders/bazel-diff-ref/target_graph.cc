#include "target_graph.h"

#include <algorithm>

#include "error.h"

namespace pe::refdiff {

TargetGraph::TargetGraph(std::vector<Target> targets) : targets_(std::move(targets)) {
  std::sort(targets_.begin(), targets_.end(),
            [](const Target& a, const Target& b) { return a.label < b.label; });
  for (std::size_t i = 1; i < targets_.size(); ++i) {
    if (targets_[i - 1].label == targets_[i].label) {
      throw RefDiffError("query output lists " + targets_[i].label + " twice");
    }
  }
  offsets_.reserve(targets_.size() + 1);
  offsets_.push_back(0);
  std::vector<std::string_view> labels;
  for (const Target& target : targets_) {
    labels.assign(target.inputs.begin(), target.inputs.end());
    std::sort(labels.begin(), labels.end());
    labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
    for (std::string_view label : labels) inputs_.push_back({label, Find(label)});
    offsets_.push_back(inputs_.size());
  }
}

std::int32_t TargetGraph::Find(std::string_view label) const {
  auto it = std::lower_bound(targets_.begin(), targets_.end(), label,
                             [](const Target& target, std::string_view l) { return target.label < l; });
  if (it == targets_.end() || it->label != label) return -1;
  return static_cast<std::int32_t>(it - targets_.begin());
}

}  // namespace pe::refdiff
