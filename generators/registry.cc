#include "generators/generator.h"

namespace pe::gen {

void Registry::Add(std::string name, Factory factory) { factories_[std::move(name)] = std::move(factory); }

std::vector<std::string> Registry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories_) names.push_back(name);
  return names;
}

std::unique_ptr<Generator> Registry::Create(std::string_view name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) return nullptr;
  return it->second();
}

}  // namespace pe::gen
