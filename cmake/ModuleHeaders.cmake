# pe_module_headers(<target> [PUBLIC|PRIVATE]): the target compiles against its module's own
# headers, and (PUBLIC, the default) so does whatever links it (CONTRIBUTING.md, "Layering").
#
# A module is the folder of the CMakeLists.txt that calls this. Its headers (every *.h and *.hpp
# under the folder, less those of a folder below with a CMakeLists.txt of its own, a module of its
# own) are linked into a tree of their own in the build directory at their repository paths:
#   build/include/engine_runner/engine/runner/spawn.h -> <source>/engine/runner/spawn.h
# and that tree, not the repository root, is the target's include directory. Includes stay rooted
# at the repository ("engine/runner/spawn.h"), but one resolves only when its module is this one
# or one the target links (PUBLIC links of those included): a header of any other module is "No
# such file or directory" at compile time. tests/unit/layering/compile_fence.py proves it.
#
# Symlinks, not copies: an editor that opens the path in a compiler's message edits the source.
# -ffile-prefix-map gives __FILE__ and the debug information the source's own path, so gdb,
# backtraces and assert() name <source>/engine/runner/spawn.h as before.
#
# The glob is CONFIGURE_DEPENDS: a header added to the folder is linked at the next build, and a
# link whose header is gone is removed. Several targets of one folder share its tree.
function(pe_module_headers target)
  set(scope PUBLIC)
  if(ARGC GREATER 1)
    set(scope ${ARGV1})
  endif()
  if(NOT scope MATCHES "^(PUBLIC|PRIVATE)$")
    message(FATAL_ERROR "pe_module_headers(${target} ${scope}): the scope is PUBLIC or PRIVATE")
  endif()
  set(folder "${CMAKE_CURRENT_SOURCE_DIR}")
  file(RELATIVE_PATH module "${PROJECT_SOURCE_DIR}" "${folder}")
  string(REPLACE "/" "_" tree_name "${module}")
  set(tree "${CMAKE_BINARY_DIR}/include/${tree_name}")

  get_property(linked GLOBAL PROPERTY "PE_MODULE_TREE_${tree_name}")
  if(NOT linked)
    set_property(GLOBAL PROPERTY "PE_MODULE_TREE_${tree_name}" TRUE)
    file(MAKE_DIRECTORY "${tree}")
    # Folders below with their own CMakeLists.txt are modules of their own.
    file(GLOB_RECURSE nested_lists CONFIGURE_DEPENDS RELATIVE "${folder}" "${folder}/*/CMakeLists.txt")
    set(nested "")
    foreach(list IN LISTS nested_lists)
      get_filename_component(dir "${list}" DIRECTORY)
      list(APPEND nested "${dir}/")
    endforeach()
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE "${folder}" "${folder}/*.h" "${folder}/*.hpp")
    set(wanted "")
    foreach(header IN LISTS headers)
      set(own TRUE)
      foreach(dir IN LISTS nested)
        string(FIND "${header}" "${dir}" at)
        if(at EQUAL 0)
          set(own FALSE)
        endif()
      endforeach()
      if(NOT own)
        continue()
      endif()
      set(link "${tree}/${module}/${header}")
      list(APPEND wanted "${link}")
      if(IS_SYMLINK "${link}")
        file(READ_SYMLINK "${link}" points_to)
        if(points_to STREQUAL "${folder}/${header}")
          continue()
        endif()
        file(REMOVE "${link}")
      endif()
      get_filename_component(link_dir "${link}" DIRECTORY)
      file(MAKE_DIRECTORY "${link_dir}")
      file(CREATE_LINK "${folder}/${header}" "${link}" SYMBOLIC)
    endforeach()
    # A header removed or moved since the last configure must not stay reachable.
    file(GLOB_RECURSE present LIST_DIRECTORIES false "${tree}/*")
    foreach(path IN LISTS present)
      if(NOT path IN_LIST wanted)
        file(REMOVE "${path}")
      endif()
    endforeach()
  endif()

  target_include_directories(${target} ${scope} "${tree}")
  target_compile_options(${target} ${scope} "-ffile-prefix-map=${tree}/=${PROJECT_SOURCE_DIR}/")
endfunction()
