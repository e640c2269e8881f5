# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# The project's version as a header: khet_version.h (cmake/khet_version.h.in)
# in the build folder, for every target that links khet_version. The
# version is written once, in project(khet VERSION ...); the proto's version
# comment and CHANGELOG.md's latest release are checked against it
# (tests/release/version_test.py), and the Debian package takes it too.
include_guard(GLOBAL)

# The in-world board scripts' version: the line
#   string BOARD_SCRIPTS = "...";
# of clients/lsl/khet_board.lsl, which the board compares with what khetd
# answers (Settings > Update).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/clients/lsl/khet_board.lsl)
file(STRINGS ${PROJECT_SOURCE_DIR}/clients/lsl/khet_board.lsl
     KHET_BOARD_SCRIPTS_LINE REGEX "^string BOARD_SCRIPTS = \"[^\"]+\"")
set(KHET_BOARD_SCRIPTS "")
if(KHET_BOARD_SCRIPTS_LINE MATCHES "\"([^\"]+)\"")
  set(KHET_BOARD_SCRIPTS "${CMAKE_MATCH_1}")
endif()
if(NOT KHET_BOARD_SCRIPTS)
  set(KHET_BOARD_SCRIPTS "unknown")
endif()

configure_file(${CMAKE_CURRENT_LIST_DIR}/khet_version.h.in
               ${PROJECT_BINARY_DIR}/generated/khet_version.h @ONLY)
add_library(khet_version INTERFACE)
target_include_directories(khet_version
                           INTERFACE ${PROJECT_BINARY_DIR}/generated)
