# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Build targets that hold exactly what a set of tests runs, so that a CI
# stage builds no more than its tests need:
#   khet_tests_asan  what `ctest -LE 'slow|browser'` runs (ASan+UBSan stage)
#   khet_tests_tsan  what `ctest -L service` runs (TSan stage)
# scripts/test.sh pairs each target with the same label filter.
#
# Registration is by label. gtest_discover_tests registers its executable
# under the LABELS of its PROPERTIES by itself (it is wrapped below), so a
# new GoogleTest suite needs nothing more. A test added with add_test that
# runs a program (khetd, khetctl, a client) names it once:
#   khet_test_targets(LABELS clients TARGETS khetd khet_python_stubs)
# A GoogleTest executable that no test registers stops the configure step.

include_guard(GLOBAL)

# Tests without labels are registered under this name.
set(KHET_UNLABELLED "(none)")

# Records that the tests carrying LABELS run TARGETS.
function(khet_test_targets)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "" "LABELS;TARGETS")
  if(NOT arg_TARGETS OR arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "khet_test_targets(LABELS <label>... TARGETS <target>...)")
  endif()
  if(NOT arg_LABELS)
    set(arg_LABELS "${KHET_UNLABELLED}")
  endif()
  # One entry per registration: "label,label:target,target".
  string(REPLACE ";" "," labels "${arg_LABELS}")
  string(REPLACE ";" "," targets "${arg_TARGETS}")
  set_property(GLOBAL APPEND PROPERTY KHET_TEST_REGISTRATIONS
               "${labels}:${targets}")
endfunction()

# gtest_discover_tests as GoogleTest.cmake defines it, registering the
# executable under the LABELS given in PROPERTIES. FindGTest defines the
# original; including GoogleTest again would drop this wrapper, which the
# check in khet_define_stage_targets reports.
function(gtest_discover_tests target)
  set(labels "")
  list(FIND ARGN PROPERTIES properties_at)
  if(properties_at GREATER -1)
    list(SUBLIST ARGN ${properties_at} -1 properties)
    list(FIND properties LABELS labels_at)
    if(labels_at GREATER -1)
      math(EXPR labels_at "${labels_at} + 1")
      list(GET properties ${labels_at} labels)
    endif()
  endif()
  khet_test_targets(LABELS ${labels} TARGETS ${target})
  _gtest_discover_tests(${ARGV})
endfunction()

# Every executable target of `dir` and the folders below it.
function(_khet_executables dir out)
  set(found "")
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      list(APPEND found ${target})
    endif()
  endforeach()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdir IN LISTS subdirs)
    _khet_executables(${subdir} below)
    list(APPEND found ${below})
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# Adds target `name` depending on the targets of every registration whose
# labels include WITH (when given) and none of WITHOUT (a list),
# as `ctest -L WITH -LE 'WITHOUT|...'` selects tests.
function(_khet_stage_target name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "WITH" "WITHOUT")
  get_property(registrations GLOBAL PROPERTY KHET_TEST_REGISTRATIONS)
  set(selected "")
  foreach(registration IN LISTS registrations)
    string(REPLACE ":" ";" parts "${registration}")
    list(GET parts 0 labels)
    list(GET parts 1 targets)
    string(REPLACE "," ";" labels "${labels}")
    string(REPLACE "," ";" targets "${targets}")
    if(arg_WITH AND NOT arg_WITH IN_LIST labels)
      continue()
    endif()
    set(excluded FALSE)
    foreach(without IN LISTS arg_WITHOUT)
      if(without IN_LIST labels)
        set(excluded TRUE)
      endif()
    endforeach()
    if(excluded)
      continue()
    endif()
    list(APPEND selected ${targets})
  endforeach()
  list(REMOVE_DUPLICATES selected)
  add_custom_target(${name})
  if(selected)
    add_dependencies(${name} ${selected})
  endif()
endfunction()

# Runs once the top directory is processed, when every target exists.
function(khet_define_stage_targets)
  get_property(registrations GLOBAL PROPERTY KHET_TEST_REGISTRATIONS)
  set(registered "")
  foreach(registration IN LISTS registrations)
    string(REGEX REPLACE "^[^:]*:" "" targets "${registration}")
    string(REPLACE "," ";" targets "${targets}")
    foreach(target IN LISTS targets)
      if(NOT TARGET ${target})
        message(FATAL_ERROR "khet_test_targets: no target named ${target}")
      endif()
    endforeach()
    list(APPEND registered ${targets})
  endforeach()
  _khet_executables(${PROJECT_SOURCE_DIR} executables)
  foreach(target IN LISTS executables)
    get_target_property(libraries ${target} LINK_LIBRARIES)
    if(libraries MATCHES "GTest::" AND NOT target IN_LIST registered)
      message(FATAL_ERROR
        "${target} links GoogleTest but no test registers it, so no CI stage "
        "would build it: add its tests with gtest_discover_tests (without "
        "including GoogleTest again, which drops the registering wrapper), "
        "or name it in khet_test_targets(LABELS ... TARGETS ${target}).")
    endif()
  endforeach()
  _khet_stage_target(khet_tests_asan WITHOUT slow browser)
  _khet_stage_target(khet_tests_tsan WITH service)
endfunction()

cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR}
               CALL khet_define_stage_targets)
