// Factories for the built-in generators; BuiltinRegistry() registers them by name.
#pragma once

#include <memory>

#include "generators/generator.h"

namespace pe::gen {

std::unique_ptr<Generator> MakeStreamedProtoGenerator();
std::unique_ptr<Generator> MakeWorkspaceGenerator();
std::unique_ptr<Generator> MakeBazelShimGenerator();
std::unique_ptr<Generator> MakeBazelWorkspaceGenerator();
std::unique_ptr<Generator> MakeHashPairGenerator();
std::unique_ptr<Generator> MakeGitWorkspaceGenerator();
std::unique_ptr<Generator> MakeRandomBytesGenerator();
std::unique_ptr<Generator> MakeTextLinesGenerator();
std::unique_ptr<Generator> MakeJsonDocsGenerator();

}  // namespace pe::gen
