# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The khet.v1 messages and gRPC stub, generated from proto/ at build time.

They live in the build tree (build/release/clients/python/stubs), which must
be on sys.path together with this package's folder.
"""

try:
    from khet.v1 import game_pb2 as game
    from khet.v1 import khet_service_pb2 as service
    from khet.v1 import khet_service_pb2_grpc as service_grpc
except ImportError as error:  # pragma: no cover - a set-up problem
    raise ImportError(
        "khet_client needs the generated khet.v1 stubs: build them with "
        "`cmake --build --preset release --target khet_python_stubs` and put "
        "build/release/clients/python/stubs on PYTHONPATH") from error

__all__ = ["game", "service", "service_grpc"]
