#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The project's licence is stated everywhere it must be: LICENSE holds the
Apache License 2.0, every source file starts with the two-line header
(README.md, "Licence"), the Debian copyright file and the OpenAPI document
name Apache-2.0. Usage: licence_test.py SOURCE_DIR. Prints what it checked;
exits 1 naming every file that lacks its header."""

import os
import re
import sys

HEADER = ("Copyright 2026 The khet Authors",
          "SPDX-License-Identifier: Apache-2.0")
# Where a file's comments start and end, by its name.
COMMENTS = [
    (r"\.(cc|h|proto|js|mjs|cs|lsl|h\.in)$", "// ", ""),
    (r"\.css$", "/* ", " */"),
    (r"\.html$", "<!-- ", " -->"),
    (r"(\.(py|sh|cmake|yaml|conf)|/CMakeLists\.txt|/Dockerfile|/\.ci/run|"
     r"/debian/(postinst|prerm|postrm)|/khetd\.(service|default))$", "# ", ""),
]
# Folders that hold no source of the project's own: builds, installed
# packages, fuzz inputs, version control.
SKIPPED = {"build", "node_modules", "corpus", ".git", "__pycache__"}


def comment_style(path):
    for pattern, start, end in COMMENTS:
        if re.search(pattern, "/" + path):
            return start, end
    return None


def has_header(path, style):
    start, end = style
    with open(path, encoding="utf-8") as source:
        lines = source.read().split("\n")[:4]
    # A shebang or a doctype comes first.
    if lines and (lines[0].startswith("#!") or
                  lines[0].lower().startswith("<!doctype")):
        lines = lines[1:]
    return lines[:2] == [start + text + end for text in HEADER]


def main():
    source = sys.argv[1]
    failures = []
    checked = 0
    for folder, folders, files in os.walk(source):
        folders[:] = sorted(f for f in folders if f not in SKIPPED and
                            not f.startswith("build-"))
        for name in sorted(files):
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, source)
            style = comment_style(relative)
            if style is None:
                continue
            checked += 1
            if not has_header(path, style):
                failures.append(f"{relative}: no licence header (README.md, "
                                f"\"Licence\")")

    with open(os.path.join(source, "LICENSE"), encoding="utf-8") as licence:
        text = licence.read()
    if ("Apache License\n                           Version 2.0, January 2004"
            not in text or "END OF TERMS AND CONDITIONS" not in text):
        failures.append("LICENSE: not the Apache License 2.0's text")
    with open(os.path.join(source, "packaging/debian/copyright"),
              encoding="utf-8") as copyright:
        if "Files: *\nCopyright: 2026 The khet Authors\nLicense: Apache-2.0\n" \
                not in copyright.read():
            failures.append("packaging/debian/copyright: files not Apache-2.0")
    with open(os.path.join(source, "docs/openapi.yaml"), encoding="utf-8") as api:
        if not re.search(r"^  license:\n    name: .*\n    identifier: Apache-2\.0$",
                         api.read(), re.M):
            failures.append("docs/openapi.yaml: info.license is not Apache-2.0")

    print(f"licence: {checked} source files, LICENSE, the Debian copyright "
          f"file and the OpenAPI document checked")
    for failure in failures:
        print(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
