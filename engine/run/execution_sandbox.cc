#include "engine/run/execution_sandbox.h"

namespace pe::run {

namespace fs = std::filesystem;

runner::Sandbox ExecutionSandbox(const fs::path& scratch, const fs::path& execution_dir, const fs::path& fixed_output,
                                 const std::vector<fs::path>& also_writable) {
  runner::Sandbox sandbox;
  sandbox.enabled = true;
  sandbox.writable.push_back(fs::absolute(execution_dir).lexically_normal());
  sandbox.hidden.push_back(fs::absolute(scratch).lexically_normal());
  if (!fixed_output.empty()) {
    const fs::path folder = fs::absolute(fixed_output).lexically_normal().parent_path();
    const fs::path inside = folder.lexically_relative(sandbox.writable.front());
    std::error_code ec;
    if ((inside.empty() || inside.native().starts_with("..")) && fs::is_directory(folder, ec)) {
      sandbox.writable.push_back(folder);
    }
  }
  for (const fs::path& folder : also_writable) sandbox.writable.push_back(fs::absolute(folder).lexically_normal());
  return sandbox;
}

void GiveTemporaryDirectory(runner::Command& command, const fs::path& dir) {
  if (command.sandbox.enabled && !command.env.contains("TMPDIR")) command.env["TMPDIR"] = dir.string();
}

}  // namespace pe::run
