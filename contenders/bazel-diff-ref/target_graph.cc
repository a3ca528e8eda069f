#include "target_graph.h"

#include <algorithm>

#include "error.h"
#include "parallel.h"

namespace pe::refdiff {
namespace {

constexpr std::size_t kBatch = 1024;

}  // namespace

TargetGraph::TargetGraph(std::vector<Target> targets, int threads) : targets_(std::move(targets)) {
  ParallelSort(targets_.begin(), targets_.end(), threads,
               [](const Target& a, const Target& b) { return a.label < b.label; });
  for (std::size_t i = 1; i < targets_.size(); ++i) {
    if (targets_[i - 1].label == targets_[i].label) {
      throw RefDiffError("query output lists " + targets_[i].label + " twice");
    }
  }
  index_.reserve(targets_.size());
  for (std::size_t i = 0; i < targets_.size(); ++i) index_.emplace(targets_[i].label, static_cast<std::int32_t>(i));

  // Each target's inputs sorted and deduplicated in place, then laid out back to back.
  ParallelFor(targets_.size(), kBatch, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::vector<std::string>& inputs = targets_[i].inputs;
      std::sort(inputs.begin(), inputs.end());
      inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
    }
  });
  offsets_.resize(targets_.size() + 1, 0);
  for (std::size_t i = 0; i < targets_.size(); ++i) offsets_[i + 1] = offsets_[i] + targets_[i].inputs.size();
  inputs_.resize(offsets_.back());
  ParallelFor(targets_.size(), kBatch, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      std::size_t at = offsets_[i];
      for (const std::string& label : targets_[i].inputs) inputs_[at++] = {label, Find(label)};
    }
  });
}

std::int32_t TargetGraph::Find(std::string_view label) const {
  auto it = index_.find(label);
  return it == index_.end() ? -1 : it->second;
}

}  // namespace pe::refdiff
