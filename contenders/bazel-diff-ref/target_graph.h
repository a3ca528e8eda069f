// Targets sorted by label, with each input resolved to the target it names.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "target.h"

namespace pe::refdiff {

class TargetGraph {
 public:
  struct Input {
    std::string_view label;    // points into the Target that lists it
    std::int32_t target = -1;  // index into targets(), or -1 when no target has that label
  };

  // Sorting makes every later step independent of the stream's order. Inputs are resolved on
  // `threads` threads. Throws RefDiffError when two targets share a label.
  explicit TargetGraph(std::vector<Target> targets, int threads = 1);
  // Inputs and the index point into targets_; moving keeps their buffers, copying would not.
  TargetGraph(const TargetGraph&) = delete;
  TargetGraph& operator=(const TargetGraph&) = delete;
  TargetGraph(TargetGraph&&) = default;

  const std::vector<Target>& targets() const { return targets_; }
  std::size_t size() const { return targets_.size(); }
  // Target i's inputs, sorted by label, without duplicates.
  std::span<const Input> inputs(std::size_t i) const {
    return {inputs_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
  }
  // Index of the target with this label, or -1.
  std::int32_t Find(std::string_view label) const;

 private:
  std::vector<Target> targets_;
  // Label -> index: resolving ~3 inputs per target by binary search over 200,000 labels with long
  // shared prefixes ("//pkg12/sub34:...") was the largest serial cost in profiles.
  std::unordered_map<std::string_view, std::int32_t> index_;
  std::vector<Input> inputs_;         // all targets' inputs, back to back
  std::vector<std::size_t> offsets_;  // target i's inputs are [offsets_[i], offsets_[i+1])
};

}  // namespace pe::refdiff
