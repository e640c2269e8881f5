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
  if(KHET_TEST_SOURCE_OPTIONS)
    get_target_property(sources ${target} SOURCES)
    list(FILTER sources INCLUDE REGEX "_test\\.cc$")
    foreach(source IN LISTS sources)
      get_source_file_property(optimised ${source} KHET_OPTIMISED_TEST)
      if(NOT optimised)
        set_source_files_properties(${source} PROPERTIES
                                    COMPILE_OPTIONS "${KHET_TEST_SOURCE_OPTIONS}")
      endif()
    endforeach()
  endif()
  if(KHET_TESTS_PER_EXECUTABLE)
    _khet_executable_test(${ARGV})
  else()
    _gtest_discover_tests(${ARGV})
  endif()
endfunction()

# The sanitizer presets run each GoogleTest executable as one ctest entry,
# all its cases in one process: starting an instrumented program costs about
# 0.4 s under ASan+UBSan, once per case otherwise (docs/PERFORMANCE.md,
# "CI"). Long programs run as KHET_TEST_SHARDS entries. The release
# build keeps one entry per case.
option(KHET_TESTS_PER_EXECUTABLE
       "Register each GoogleTest executable as one test, not one per case" OFF)
# Compiler options for the tests' own sources (files named *_test.cc of a
# GoogleTest executable), after the build type's: the sanitizer presets
# compile them at -O0, the code they test as the build type says. A test
# file is mostly assertion macros, which take the optimiser long and gain
# little from it. A test whose own code does the heavy work (playing
# random games) sets the source property KHET_OPTIMISED_TEST to keep the
# build type's options.
set(KHET_TEST_SOURCE_OPTIONS "" CACHE STRING
    "Compiler options for the tests' own *_test.cc sources")
# The whole run's timeout of such an entry, in seconds (a case's own
# TIMEOUT does not apply).
set(KHET_EXECUTABLE_TEST_TIMEOUT 1500)

# gtest_discover_tests' arguments as one ctest entry named after the
# target (and its TEST_FILTER, if given), or KHET_TEST_SHARDS of them.
function(_khet_executable_test target)
  cmake_parse_arguments(PARSE_ARGV 1 arg ""
    "TEST_FILTER;DISCOVERY_MODE;DISCOVERY_TIMEOUT;WORKING_DIRECTORY"
    "EXTRA_ARGS;PROPERTIES")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "gtest_discover_tests(${target}): "
            "KHET_TESTS_PER_EXECUTABLE does not handle ${arg_UNPARSED_ARGUMENTS}")
  endif()
  set(name ${target})
  set(command ${target} ${arg_EXTRA_ARGS})
  if(arg_TEST_FILTER)
    string(REGEX REPLACE "[^A-Za-z0-9_-]" "" suffix "${arg_TEST_FILTER}")
    string(APPEND name ".${suffix}")
    list(APPEND command --gtest_filter=${arg_TEST_FILTER})
  endif()
  # A long executable runs as KHET_TEST_SHARDS entries (a target property;
  # GoogleTest's own sharding), so that both cores share it.
  get_target_property(shards ${target} KHET_TEST_SHARDS)
  if(NOT shards)
    set(shards 1)
  endif()
  set(names "")
  if(shards EQUAL 1)
    list(APPEND names ${name})
  else()
    math(EXPR last "${shards} - 1")
    foreach(shard RANGE ${last})
      list(APPEND names ${name}/${shard})
    endforeach()
  endif()
  foreach(entry IN LISTS names)
    add_test(NAME ${entry} COMMAND ${command})
    _khet_executable_test_properties(${entry} arg_PROPERTIES)
    if(arg_WORKING_DIRECTORY)
      set_tests_properties(${entry} PROPERTIES
                           WORKING_DIRECTORY ${arg_WORKING_DIRECTORY})
    endif()
  endforeach()
  if(shards GREATER 1)
    foreach(shard RANGE ${last})
      set_property(TEST ${name}/${shard} APPEND PROPERTY ENVIRONMENT
                   GTEST_TOTAL_SHARDS=${shards} GTEST_SHARD_INDEX=${shard})
    endforeach()
  endif()
endfunction()

# The PROPERTIES list named `list_var` (gtest_discover_tests') on one such
# entry, but TIMEOUT, which becomes KHET_EXECUTABLE_TEST_TIMEOUT. Read by
# name, key by key: a value may be empty (an environment left unset).
function(_khet_executable_test_properties name list_var)
  list(LENGTH ${list_var} count)
  set(i 0)
  while(i LESS count)
    math(EXPR value_at "${i} + 1")
    list(GET ${list_var} ${i} key)
    list(GET ${list_var} ${value_at} value)
    if(NOT key STREQUAL "TIMEOUT")
      set_tests_properties(${name} PROPERTIES ${key} "${value}")
    endif()
    math(EXPR i "${i} + 2")
  endwhile()
  set_tests_properties(${name} PROPERTIES
                       TIMEOUT ${KHET_EXECUTABLE_TEST_TIMEOUT})
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
