#!/usr/bin/env python3
"""The layering the build cannot check by itself (CONTRIBUTING.md, "Layering").

A module is a folder whose CMakeLists.txt defines a library (stats/, generators/, proto/,
engine/<name>/, ...). Its dependencies are what that CMakeLists.txt declares with
target_link_libraries: the build's own list, read from the file itself, so it cannot drift.
The allowed direction is the layer table in CONTRIBUTING.md (the rows after the line
`<!-- layers -->`, top layer first): a module may link only modules in lower rows.

The build fences includes: each library compiles against its own module's headers and those of
the modules it links (cmake/ModuleHeaders.cmake), so a header of a module it does not reach is
"No such file or directory" (ctest layering.compile_fence). What it cannot see, this does.
Exits 1 and names file:line for each of these; 0 when there is none:
  - a CMakeLists.txt links a module in the same or a higher layer, or a module the table
    does not place (the build links any direction);
  - a public header (one another module includes, or one such a header includes) includes a
    header of a module linked PRIVATE: whoever includes it would need a link it is not given
    (the build fails only once some module includes it, and then names the wrong file);
  - a source includes a header of another module that its CMakeLists.txt does not link itself
    (the build lets it through when a linked module links that one PUBLIC);
  - a module's CMakeLists.txt gives a target the repository root as an include directory, which
    would open the fence again: every include would compile.

Usage: check-layering.py [--root DIR]   (DIR defaults to the repository holding this script)
Needs no build: plain Python over the source tree, cheap enough for every ctest run.
"""

import argparse
import os
import re
import sys

SKIP_DIRS = {"tests", "bench", "contenders", "docs", "scripts", "specs", "cmake", ".git"}
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
KEYWORDS = {"PUBLIC", "PRIVATE", "INTERFACE"}


def strip_cmake_comments(text):
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())


def cmake_calls(text, command, with_lines=False):
    """Argument lists of every `command(...)` call (no nested parentheses in the ones we read),
    with the line each starts on when asked."""
    stripped = strip_cmake_comments(text)
    for match in re.finditer(r"\b" + command + r"\s*\(([^)]*)\)", stripped, re.IGNORECASE):
        args = match.group(1).split()
        yield (stripped.count("\n", 0, match.start()) + 1, args) if with_lines else args


# An include directory that is the repository root: every module's headers at once.
ROOT_DIR_RE = re.compile(r'^"?\$\{(PROJECT_SOURCE_DIR|CMAKE_SOURCE_DIR)\}/?"?$')


class Module:
    def __init__(self, path, cmake_file):
        self.path = path  # relative to the root, "/"-separated: "engine/spec"
        self.cmake_file = cmake_file
        self.targets = []  # the targets its CMakeLists.txt defines
        self.links = {}  # target -> "PUBLIC" | "PRIVATE" | "INTERFACE", over all its targets
        self.root_includes = []  # (line, target): target_include_directories naming the repository root


def find_modules(root):
    modules = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
            continue
        dirnames.sort()
        if "CMakeLists.txt" not in filenames:
            continue
        cmake_file = os.path.join(dirpath, "CMakeLists.txt")
        with open(cmake_file, encoding="utf-8") as f:
            text = f.read()
        libraries = [args[0] for args in cmake_calls(text, "add_library") if args]
        if not libraries:
            continue
        module = Module(rel, cmake_file)
        module.targets = libraries + [args[0] for args in cmake_calls(text, "add_executable") if args]
        for args in cmake_calls(text, "target_link_libraries"):
            if not args or args[0] not in module.targets:
                continue
            visibility = "PUBLIC"  # the plain signature: transitive, like PUBLIC
            for item in args[1:]:
                if item in KEYWORDS:
                    visibility = item
                elif module.links.get(item) != "PUBLIC":
                    module.links[item] = visibility
        for line, args in cmake_calls(text, "target_include_directories", with_lines=True):
            if args and args[0] in module.targets and any(ROOT_DIR_RE.match(arg) for arg in args[1:]):
                module.root_includes.append((line, args[0]))
        modules[rel] = module
    return modules


def module_of(path, modules):
    """The module a repository-relative path belongs to: the longest module folder above it."""
    best = None
    for name in modules:
        if path.startswith(name + "/") and (best is None or len(name) > len(best)):
            best = name
    return best


def read_layers(root, modules):
    """{module: layer number} from CONTRIBUTING.md's table after `<!-- layers -->`, bottom = 0."""
    contributing = os.path.join(root, "CONTRIBUTING.md")
    rows = []
    try:
        with open(contributing, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        return None, [f"{contributing}: missing; its layer table says which module may depend on which"]
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "<!-- layers -->")
    except StopIteration:
        return None, [f"{contributing}: no line `<!-- layers -->` before the layer table"]
    for line in lines[start + 1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: ") or cells[0] == "layer":
            continue
        rows.append(re.findall(r"`([^`]+)/?`", cells[1]))
    layers = {}
    for number, names in enumerate(reversed(rows)):
        for name in names:
            layers[name.rstrip("/")] = number
    return layers, []


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = INCLUDE_RE.match(line)
            if match:
                yield number, match.group(1)


def check(root):
    modules = find_modules(root)
    by_target = {t: m for m in modules.values() for t in m.targets}
    problems = []

    layers, layer_problems = read_layers(root, modules)
    problems += layer_problems
    if layers is not None:
        for module in sorted(modules.values(), key=lambda m: m.path):
            if module.path not in layers:
                problems.append(f"{module.cmake_file}:1: module {module.path} is not in CONTRIBUTING.md's layer "
                                f"table: give it a row")
                continue
            for target in sorted(module.links):
                dep = by_target.get(target)
                if dep is None or dep is module or dep.path not in layers:
                    continue
                if layers[dep.path] >= layers[module.path]:
                    problems.append(f"{module.cmake_file}:1: {module.path} links {target} ({dep.path}), which is "
                                    f"not in a lower layer of CONTRIBUTING.md's table")

    for module in sorted(modules.values(), key=lambda m: m.path):
        for line, target in module.root_includes:
            problems.append(f"{module.path}/CMakeLists.txt:{line}: {target}'s include directories name the repository "
                            f"root, so any include compiles: use pe_module_headers({target}) "
                            f"(cmake/ModuleHeaders.cmake)")

    # Every source of every module, and the headers of each module that others include.
    sources = {}  # repository-relative path -> module
    for module in modules.values():
        base = os.path.join(root, module.path)
        for dirpath, dirnames, filenames in os.walk(base):
            rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
            dirnames[:] = [d for d in sorted(dirnames) if f"{rel_dir}/{d}" not in modules]
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    sources[f"{rel_dir}/{name}"] = module
    edges = {path: list(includes(os.path.join(root, path))) for path in sources}

    public = set()
    frontier = [inc for path, incs in edges.items() for _, inc in incs
                if inc in sources and sources[inc] is not sources[path]]
    while frontier:
        header = frontier.pop()
        if header in public:
            continue
        public.add(header)
        frontier += [inc for _, inc in edges.get(header, []) if inc in sources and sources[inc] is sources[header]]

    for path in sorted(sources):
        module = sources[path]
        for line, included in edges[path]:
            owner = module_of(included, modules)
            if owner is None or owner == module.path:
                continue
            dep = modules[owner]
            declared = [t for t in dep.targets if t in module.links]
            if not declared:
                problems.append(f"{path}:{line}: includes {included} of module {owner}, but {module.path}/CMakeLists.txt "
                                f"does not link {dep.targets[0]}: add it to target_link_libraries")
            elif path in public and all(module.links[t] == "PRIVATE" for t in declared):
                problems.append(f"{path}:{line}: public header includes {included} of module {owner}, but "
                                f"{module.path}/CMakeLists.txt links {declared[0]} PRIVATE: make it PUBLIC")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    problems = check(os.path.abspath(args.root))
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-layering: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
