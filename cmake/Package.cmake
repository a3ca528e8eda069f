# `cpack --config build/CPackConfig.cmake`: a Debian package of what `cmake --install` installs
# (cmake/Install.cmake: the binary and its helpers, the allocation counter, the man page, the
# bash and zsh completions, the docs) under /usr. Its Depends are derived from the shared
# libraries the installed binaries link (dpkg-shlibdeps), so they name runtime libraries only
# (libfmt, libtomlplusplus, libboost-filesystem, libsqlite3, libssl, libstdc++...), never the
# toolchain, Bazel, Chromium or SciPy the tests need. tests/package/ builds it and checks that.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfengine)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "declarative experiment engine for performance gates")
set(CPACK_PACKAGE_DESCRIPTION
    "perfengine runs the contenders a TOML spec names on fixtures it generates, checks their outputs agree, \
times interleaved rounds and gates the result on thresholds at 95% confidence (exit 0 pass, 1 threshold \
missed, 2 run failed, 3 unresolved).")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the package carries no debug information: the build tree keeps it
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # perfengine_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "perfengine developers <perfengine@example.invalid>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends from the linked libraries (dpkg-dev, file)
# git: contenders built from revisions (`git = ...`) and the git_repo fixtures; valgrind:
# instruction counts where perf counters are not available. Neither is needed to run a spec.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS git)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS valgrind)
include(CPack)
