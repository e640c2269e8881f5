# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

# Read by cpack before it builds the package (CPACK_PROJECT_CONFIG_FILE).
# A package names the person or list that answers for it: one whose
# Maintainer is still the placeholder address (RFC 2606's .invalid) is
# refused, unless KHET_PACKAGE_UNRELEASED=1 says it is a test build that
# never leaves this machine (tests/release/package_test.py).
if(CPACK_PACKAGE_CONTACT MATCHES "\\.invalid>?$"
   AND NOT "$ENV{KHET_PACKAGE_UNRELEASED}" STREQUAL "1")
  message(FATAL_ERROR
    "The package's Maintainer is the placeholder '${CPACK_PACKAGE_CONTACT}'. "
    "Configure the release with -DKHET_PACKAGE_MAINTAINER=\"Name <address>\" "
    "(the person or list that answers for it), or set "
    "KHET_PACKAGE_UNRELEASED=1 for a package that stays on this machine.")
endif()
