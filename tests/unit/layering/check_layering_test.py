#!/usr/bin/env python3
"""scripts/check-layering.py on small fake trees: it passes a clean one and names, with
file:line, each kind of violation it exists to catch (exit 1)."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

SCRIPT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "..", "..", "scripts", "check-layering.py")

LAYERS = """\
# fake

<!-- layers -->
| layer | modules |
|---|---|
| 2 | `engine/top` |
| 1 | `engine/mid` |
| 0 | `engine/low` |
"""


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(textwrap.dedent(text))


def clean_tree(root):
    write(root, "CONTRIBUTING.md", LAYERS)
    write(root, "engine/low/CMakeLists.txt", "add_library(pe_low STATIC low.cc)\n")
    write(root, "engine/low/low.h", "#pragma once\nint Low();\n")
    write(root, "engine/low/low.cc", '#include "engine/low/low.h"\nint Low() { return 1; }\n')
    write(root, "engine/mid/CMakeLists.txt", "add_library(pe_mid STATIC mid.cc)\n"
          "target_link_libraries(pe_mid PUBLIC pe_low)\n")
    write(root, "engine/mid/mid.h", '#pragma once\n#include "engine/low/low.h"\ninline int Mid() { return Low(); }\n')
    write(root, "engine/mid/mid.cc", '#include "engine/mid/mid.h"\n')
    write(root, "engine/top/CMakeLists.txt", "# top\nadd_library(pe_top STATIC top.cc)\n"
          "target_link_libraries(pe_top PRIVATE pe_mid)  # a comment\n")
    write(root, "engine/top/top.cc", '#include "engine/mid/mid.h"\nint Top() { return Mid(); }\n')
    # Tests and builds are not modules: what they include is not checked.
    write(root, "tests/unit/top/t.cc", '#include "engine/low/low.h"\n')


def run(root):
    result = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
    return result.returncode, result.stdout


class CheckLayering(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        clean_tree(self.root)

    def tearDown(self):
        self.dir.cleanup()

    def test_a_clean_tree_passes(self):
        self.assertEqual(run(self.root), (0, ""))

    def test_an_include_of_an_undeclared_module_fails_naming_file_line_and_the_link(self):
        write(self.root, "engine/top/top.cc", '#include "engine/mid/mid.h"\n\n#include "engine/low/low.h"\n')
        code, out = run(self.root)
        self.assertEqual(code, 1)
        self.assertEqual(out, "engine/top/top.cc:3: includes engine/low/low.h of module engine/low, but "
                              "engine/top/CMakeLists.txt does not link pe_low: add it to target_link_libraries\n")

    def test_a_public_header_including_a_private_dependency_fails(self):
        write(self.root, "engine/mid/CMakeLists.txt", "add_library(pe_mid STATIC mid.cc)\n"
              "target_link_libraries(pe_mid PRIVATE pe_low)\n")
        code, out = run(self.root)
        self.assertEqual(code, 1)
        self.assertEqual(out, "engine/mid/mid.h:2: public header includes engine/low/low.h of module engine/low, "
                              "but engine/mid/CMakeLists.txt links pe_low PRIVATE: make it PUBLIC\n")

    def test_a_private_dependency_in_a_header_nobody_else_includes_passes(self):
        write(self.root, "engine/mid/CMakeLists.txt", "add_library(pe_mid STATIC mid.cc)\n"
              "target_link_libraries(pe_mid PRIVATE pe_low)\n")
        write(self.root, "engine/top/top.cc", "int Top() { return 2; }\n")
        self.assertEqual(run(self.root), (0, ""))

    def test_a_link_up_the_layer_table_fails(self):
        write(self.root, "engine/low/CMakeLists.txt", "add_library(pe_low STATIC low.cc)\n"
              "target_link_libraries(pe_low PRIVATE pe_top)\n")
        code, out = run(self.root)
        self.assertEqual(code, 1)
        self.assertIn("engine/low/CMakeLists.txt:1: engine/low links pe_top (engine/top), which is not in a lower "
                      "layer of CONTRIBUTING.md's table", out)

    def test_the_repository_root_as_a_modules_include_directory_fails(self):
        write(self.root, "engine/mid/CMakeLists.txt", "add_library(pe_mid STATIC mid.cc)\n"
              "pe_module_headers(pe_mid)\n"
              "target_include_directories(pe_mid PUBLIC ${PROJECT_SOURCE_DIR})\n"
              "target_link_libraries(pe_mid PUBLIC pe_low)\n")
        code, out = run(self.root)
        self.assertEqual(code, 1)
        self.assertEqual(out, "engine/mid/CMakeLists.txt:3: pe_mid's include directories name the repository root, "
                              "so any include compiles: use pe_module_headers(pe_mid) (cmake/ModuleHeaders.cmake)\n")

    def test_a_folder_of_its_own_below_the_root_passes(self):
        write(self.root, "engine/mid/CMakeLists.txt", "add_library(pe_mid STATIC mid.cc)\n"
              "target_include_directories(pe_mid PRIVATE ${PROJECT_SOURCE_DIR}/include)\n"
              "target_link_libraries(pe_mid PUBLIC pe_low)\n")
        self.assertEqual(run(self.root), (0, ""))

    def test_a_module_the_table_does_not_place_fails(self):
        write(self.root, "engine/new/CMakeLists.txt", "add_library(pe_new STATIC new.cc)\n")
        code, out = run(self.root)
        self.assertEqual(code, 1)
        self.assertIn("module engine/new is not in CONTRIBUTING.md's layer table", out)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]], verbosity=2)
