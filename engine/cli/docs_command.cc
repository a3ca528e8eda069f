// `perfengine completion bash|zsh` and `perfengine man`: generated from the whole command line
// (cli_docs.h), so they are added last. Listed in --help: a user installs them as well as packagers.
#include <iostream>

#include "engine/cli/cli_docs.h"
#include "engine/cli/subcommands.h"

namespace pe::cli {

Subcommand AddCompletion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  CLI::App* completion = app.add_subcommand(
      "completion",
      "Print shell completion: completion bash|zsh (e.g. > ~/.local/share/bash-completion/completions/perfengine)");
  completion->add_option("shell", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  return {completion, [&app, shell] {
            std::cout << (*shell == "bash" ? BashCompletion(app) : ZshCompletion(app));
            return 0;
          }};
}

Subcommand AddMan(CLI::App& app) {
  CLI::App* man =
      app.add_subcommand("man", "Print the man page (roff): perfengine man > perfengine.1; man ./perfengine.1");
  return {man, [&app] {
            std::cout << ManPage(app, PERFENGINE_VERSION);
            return 0;
          }};
}

}  // namespace pe::cli
