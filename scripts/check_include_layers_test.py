#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""check_include_layers.py finds what it must: a tree of a few files, each
include either allowed or not, and the exact problems expected of it."""

import os
import subprocess
import sys
import tempfile

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                     "check_include_layers.py")

FILES = {
    # allowed: down the layers, within a folder, a test driving the core
    "service/play/move_path.cc": '#include "service/sessions/session.h"\n'
                                 '#include "service/play/seats.h"\n'
                                 '#include "absl/status/status.h"\n',
    "service/play/takebacks_test.cc": '#include "service/core/session_service.h"\n',
    "service/http/routes.cc": '#include "service/core/session_service.h"\n',
    "engine/search.cc": '#include "engine/position.h"\n#include <vector>\n',
    # not allowed
    "service/base/clock.h": '#include "service/play/move_path.h"\n',
    "service/text/quoted_input.h": '#include "service/metrics/metrics.h"\n',
    "service/play/seats_test.cc": '#include "service/grpc/grpc_service.h"\n',
    "service/sessions/session.cc": '#include "service/session_service.h"\n',
    "service/newfolder/thing.h": "",
    "engine/play.cc": '#include "service/base/clock.h"\n',
}
EXPECTED = [
    "service/base/clock.h: includes service/play/move_path.h, but "
    "service/play/ (layer 7) is not below service/base/ (layer 0)",
    "service/newfolder/thing.h: folder service/newfolder/ has no layer",
    "service/play/seats_test.cc: includes service/grpc/grpc_service.h, but "
    "service/grpc/ (layer 10) is not below service/play/ (layer 7)",
    "service/sessions/session.cc: includes service/session_service.h, "
    "outside every folder of the layers",
    "service/text/quoted_input.h: includes service/metrics/metrics.h, but "
    "service/metrics/ (layer 1) is not below service/text/ (layer 1)",
    "engine/play.cc: the engine includes service/base/clock.h",
    "6 include(s) break the layers (scripts/check_include_layers.py)",
]


def main():
    with tempfile.TemporaryDirectory() as root:
        for path, text in FILES.items():
            os.makedirs(os.path.join(root, os.path.dirname(path)),
                        exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        run = subprocess.run([sys.executable, CHECK, root],
                             capture_output=True, text=True)
    got = run.stdout.splitlines()
    if run.returncode != 1 or got != EXPECTED:
        print(f"exit {run.returncode}, printed:\n" + run.stdout +
              "expected exit 1 and:\n" + "\n".join(EXPECTED))
        return 1
    print(f"the check found all {len(EXPECTED) - 1} broken includes and "
          "passed the allowed ones")
    return 0


if __name__ == "__main__":
    sys.exit(main())
