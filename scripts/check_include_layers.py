#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The include-direction check: every #include "service/<folder>/..." in
the service's code goes down the layers below, never up or sideways, and
engine/ includes nothing of the service. Tests and benchmarks (and the test
helpers they share) may also drive the core from above: they may include
any folder up to core/.

  check_include_layers.py [ROOT]        exit 1 naming each include that climbs

The layers, lowest first; a folder may include folders of lower layers
only. docs/ARCHITECTURE.md draws the same table.
"""

import os
import re
import sys

LAYERS = [
    ("base", "i18n"),                           # locks, clocks, hashes; words
    ("text", "metrics", "ratings", "search"),   # input text; counters; Glicko-2; searches
    ("wire", "store"),                          # proto <-> engine; stores
    ("events",),                                # events published once, watched
    ("sessions",),                              # a session, its registry and access
    ("fair_use",),                              # budgets, addresses, unclaimed sessions
    ("archive",),                               # finished games, analyses, ratings
    ("play",),                                  # moves, seats, endings, takebacks, timeouts
    ("computer",),                              # computer seats, suggestions
    ("core",),                                  # SessionService, the one door
    ("grpc", "http"),                           # the adapters
    ("khetd",),                                 # the composition root
]
RANK = {folder: rank for rank, names in enumerate(LAYERS) for folder in names}
TEST_CEILING = RANK["core"]
# The project's own folders (and the generated API, khet/v1/) that the
# engine, the bottom of everything, must not include.
PROJECT_FOLDERS = ("service/", "clients/", "tools/", "tests/", "khet/")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TEST_FILE = re.compile(
    r"(_test\.cc|_benchmark\.cc|_testing\.h|_fixture\.h|test_fakes\.h|"
    r"status_or_matchers\.h)$")


def is_test(path):
    return bool(TEST_FILE.search(path)) or "/testing/" in path


def folder_of(path):
    """service/<folder>/... -> <folder>; None for anything else."""
    parts = path.split("/")
    if len(parts) >= 3 and parts[0] == "service":
        return parts[1]
    return None


def sources(root, top):
    for dirpath, _, names in os.walk(os.path.join(root, top)):
        for name in names:
            if name.endswith((".h", ".cc")):
                full = os.path.join(dirpath, name)
                yield os.path.relpath(full, root)


def check(root):
    problems = []
    for path in sorted(sources(root, "service")):
        here = folder_of(path)
        if here not in RANK:
            problems.append(f"{path}: folder service/{here}/ has no layer")
            continue
        ceiling = RANK[here]
        if is_test(path):
            ceiling = max(ceiling, TEST_CEILING)
        with open(os.path.join(root, path), encoding="utf-8") as f:
            text = f.read()
        for target in INCLUDE.findall(text):
            there = folder_of(target)
            if target.startswith("service/") and there not in RANK:
                problems.append(f"{path}: includes {target}, outside every "
                                "folder of the layers")
            elif there is None or there == here:
                continue
            elif RANK[there] >= ceiling and not (
                    is_test(path) and RANK[there] <= TEST_CEILING
                    and RANK[there] != RANK[here]):
                problems.append(
                    f"{path}: includes {target}, but service/{there}/ "
                    f"(layer {RANK[there]}) is not below service/{here}/ "
                    f"(layer {RANK[here]})")
    for path in sorted(sources(root, "engine")):
        with open(os.path.join(root, path), encoding="utf-8") as f:
            for target in INCLUDE.findall(f.read()):
                if target.startswith(PROJECT_FOLDERS):
                    problems.append(f"{path}: the engine includes {target}")
    return problems


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} include(s) break the layers "
              "(scripts/check_include_layers.py)")
        return 1
    print("includes follow the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
