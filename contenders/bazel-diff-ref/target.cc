#include "target.h"

namespace pe::refdiff {

std::string_view KindName(TargetKind kind) {
  switch (kind) {
    case TargetKind::kRule:
      return "Rule";
    case TargetKind::kSourceFile:
      return "SourceFile";
    case TargetKind::kGeneratedFile:
      return "GeneratedFile";
  }
  return "Rule";
}

}  // namespace pe::refdiff
