# `cmake --install build [--prefix DIR]`: the binary and the helpers it finds beside itself
# (the spawner, the bazel shim), the allocation counter where AllocCountLibraryPath() looks
# (lib/perfengine), the docs and the results schema, and the man page and shell completions
# generated from the command line's own definitions (engine/cli/cli_docs.h).
include(GNUInstallDirs)

set(PE_SHARE ${CMAKE_BINARY_DIR}/share)
add_custom_command(
  OUTPUT ${PE_SHARE}/perfengine.1 ${PE_SHARE}/perfengine.bash ${PE_SHARE}/_perfengine
  COMMAND ${CMAKE_COMMAND} -E make_directory ${PE_SHARE}
  COMMAND sh -c "\"$1\" man > \"$2/perfengine.1\" && \"$1\" completion bash > \"$2/perfengine.bash\" && \"$1\" completion zsh > \"$2/_perfengine\"" sh $<TARGET_FILE:perfengine> ${PE_SHARE}
  DEPENDS perfengine
  COMMENT "Generating the man page and shell completions"
  VERBATIM)
add_custom_target(perfengine-share ALL DEPENDS ${PE_SHARE}/perfengine.1 ${PE_SHARE}/perfengine.bash ${PE_SHARE}/_perfengine)

install(TARGETS perfengine perfengine-spawner perfengine-bazel-shim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Not CMAKE_INSTALL_LIBDIR: with prefix /usr that is multiarch, and the engine looks in ../lib/perfengine.
install(TARGETS perfengine-alloccount LIBRARY DESTINATION lib/perfengine)
install(FILES ${PE_SHARE}/perfengine.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PE_SHARE}/perfengine.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME perfengine)
install(FILES ${PE_SHARE}/_perfengine DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
