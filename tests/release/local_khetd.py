# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""The Python client's LocalKhetd (clients/python/khet_client/
local_server.py: a khetd of one's own on free loopback ports), loaded from
its file alone, so that the release tests need neither the client's
generated stubs nor a copy of it."""

import importlib.util
import os


def LocalKhetd(source):
    """The LocalKhetd class of the source tree at `source`."""
    path = os.path.join(source, "clients", "python", "khet_client",
                        "local_server.py")
    spec = importlib.util.spec_from_file_location("khet_local_server", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LocalKhetd
