# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""KhetError: every failed call, with the server's gRPC code and message."""

import grpc


class KhetError(Exception):
    """A call khetd refused or could not answer.

    `code` is the grpc.StatusCode (INVALID_ARGUMENT for an illegal move,
    FAILED_PRECONDITION for a wrong turn or a finished game, NOT_FOUND,
    ABORTED for a stale expected_version, PERMISSION_DENIED for a wrong token,
    UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNAVAILABLE when the server is
    unreachable); `message` is the server's reason, e.g.
    "e3: no piece of yours there".
    """

    def __init__(self, code, message):
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message

    @property
    def code_name(self):
        """The code's name, e.g. "INVALID_ARGUMENT"."""
        return self.code.name

    @classmethod
    def from_rpc_error(cls, error):
        """The KhetError for a grpc.RpcError raised by a call."""
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else None
        return cls(code or grpc.StatusCode.UNKNOWN, details or str(error))
