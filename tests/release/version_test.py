#!/usr/bin/env python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""One version everywhere: the release CMake was configured with
(project(khet VERSION ...)) must be what every place that names a version
says.

  khetd --version, khetctl --version, khet-engine --version
  a real khetd (started here on 127.0.0.1) asked three ways: khetctl's
    `version` command (GetVersion), GET /v1/version, and GetVersion called
    through gRPC server reflection alone, as a client with no proto files
    (grpcurl) would: the service's descriptors read from the server, the
    request and answer built from them
  the proto's "Release:" line and CHANGELOG.md's latest release

Exit 0 when all agree; otherwise each disagreement is printed and exit 1.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import urllib.request

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from local_khetd import LocalKhetd

SERVICE = "khet.v1.KhetService"
REFLECTION = ("/grpc.reflection.v1alpha.ServerReflection/"
              "ServerReflectionInfo")


def program_version(path, name):
    """The version a program prints for --version ("<name> X.Y.Z")."""
    out = subprocess.run([path, "--version"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    match = re.fullmatch(re.escape(name) + r" (\S+)\n", out)
    if match is None:
        raise AssertionError(f"{name} --version printed {out!r}")
    return match.group(1)


# ---- gRPC server reflection, by hand -------------------------------------
# Debian has no Python package of the reflection service's stubs, so its
# two messages are written and read here (grpc/reflection/v1alpha/
# reflection.proto): ServerReflectionRequest{file_containing_symbol = 4},
# ServerReflectionResponse{file_descriptor_response = 4
# {repeated bytes file_descriptor_proto = 1}, error_response = 7}.


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def read_varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def fields(data):
    """(number, value) of each field of a message; values of varints are
    ints, of length-delimited fields bytes."""
    at = 0
    while at < len(data):
        key, at = read_varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = read_varint(data, at)
        elif wire == 2:
            size, at = read_varint(data, at)
            value, at = data[at:at + size], at + size
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            raise ValueError(f"wire type {wire}")
        yield number, value


def reflected_files(channel, symbol):
    """The FileDescriptorProtos the server's reflection gives for the file
    defining `symbol` and the files it imports."""
    text = symbol.encode()
    request = b"\x22" + varint(len(text)) + text  # field 4, string
    call = channel.stream_stream(REFLECTION,
                                 request_serializer=lambda b: b,
                                 response_deserializer=lambda b: b)
    files = []
    for response in call(iter([request]), timeout=10):
        for number, value in fields(response):
            if number == 7:
                raise AssertionError(f"reflection error: {value!r}")
            if number == 4:
                for inner, blob in fields(value):
                    if inner == 1:
                        proto = descriptor_pb2.FileDescriptorProto()
                        proto.ParseFromString(blob)
                        files.append(proto)
    return files


def version_by_reflection(target):
    """GetVersion called with nothing known but the service's name: the
    method and its messages come from the server's reflection."""
    with grpc.insecure_channel(target) as channel:
        files = {f.name: f for f in reflected_files(channel, SERVICE)}
        pool = descriptor_pool.DescriptorPool()
        added = set()

        def add(name):  # imports first
            if name in added:
                return
            for dependency in files[name].dependency:
                add(dependency)
            pool.Add(files[name])
            added.add(name)

        for name in files:
            add(name)
        method = pool.FindServiceByName(SERVICE).FindMethodByName(
            "GetVersion")
        factory = message_factory.MessageFactory(pool)
        request_class = factory.GetPrototype(method.input_type)
        response_class = factory.GetPrototype(method.output_type)
        call = channel.unary_unary(
            f"/{SERVICE}/GetVersion",
            request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=response_class.FromString)
        answer = call(request_class(), timeout=10)
        return answer.version, answer.api


# ---- The files -----------------------------------------------------------


def proto_release(source):
    path = os.path.join(source, "proto", "khet", "v1", "khet_service.proto")
    with open(path, encoding="utf-8") as f:
        match = re.search(r"^// Release: (\S+) ", f.read(), re.MULTILINE)
    if match is None:
        raise AssertionError(f'{path} has no "// Release: X.Y.Z " line')
    return match.group(1)


def board_scripts(source):
    """The in-world scripts' own version: khet_board.lsl's BOARD_SCRIPTS,
    which /v1/version must name so a board's Settings > Update can compare."""
    with open(os.path.join(source, "clients/lsl/khet_board.lsl")) as f:
        match = re.search(r'^string BOARD_SCRIPTS = "([^"\n]+)";$', f.read(),
                          re.M)
    if match is None:
        raise AssertionError("khet_board.lsl has no BOARD_SCRIPTS line")
    return match.group(1)


def changelog_release(source):
    """The newest released version in CHANGELOG.md (after Unreleased)."""
    path = os.path.join(source, "CHANGELOG.md")
    with open(path, encoding="utf-8") as f:
        headings = re.findall(r"^## \[([^\]]+)\]( - \d{4}-\d{2}-\d{2})?$",
                              f.read(), re.MULTILINE)
    released = [(v, date) for v, date in headings if v != "Unreleased"]
    if not released or not released[0][1]:
        raise AssertionError(f"{path}: no '## [X.Y.Z] - YYYY-MM-DD' heading")
    return released[0][0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--version", required=True,
                        help="the version CMake was configured with")
    parser.add_argument("--source", required=True)
    parser.add_argument("--khetd", required=True)
    parser.add_argument("--khetctl", required=True)
    parser.add_argument("--khet-engine", required=True)
    args = parser.parse_args()
    if not re.fullmatch(r"\d+\.\d+\.\d+", args.version):
        print(f"CMake's version {args.version!r} is not MAJOR.MINOR.PATCH")
        return 1

    said = {
        "khetd --version": program_version(args.khetd, "khetd"),
        "khetctl --version": program_version(args.khetctl, "khetctl"),
        "khet-engine --version": program_version(args.khet_engine,
                                                 "khet-engine"),
        "khet_service.proto Release:": proto_release(args.source),
        "CHANGELOG.md latest release": changelog_release(args.source),
    }
    apis = {}
    local_khetd = LocalKhetd(args.source)
    with local_khetd(args.khetd, http=True) as khetd:
        text = subprocess.run(
            [args.khetctl, "--server", khetd.target, "version"],
            capture_output=True, text=True, timeout=30, check=True).stdout
        match = re.fullmatch(r"khetd (\S+) \((\S+)\)\n", text)
        if match is None:
            raise AssertionError(f"khetctl version printed {text!r}")
        said["khetctl version (GetVersion)"] = match.group(1)
        apis["khetctl version"] = match.group(2)

        with urllib.request.urlopen(
                f"http://{khetd.http_target}/v1/version",
                timeout=10) as reply:
            body = json.load(reply)
        if set(body) != {"version", "api", "boardScripts", "boardScriptsUrl"}:
            raise AssertionError(f"GET /v1/version answered {body}")
        scripts = board_scripts(args.source)
        if (body["boardScripts"] != scripts
                or body["boardScriptsUrl"] != "/v1/inworld/"):
            raise AssertionError(
                f"GET /v1/version answered {body}; khet_board.lsl's "
                f"BOARD_SCRIPTS is {scripts}")
        said["GET /v1/version"] = body["version"]
        apis["GET /v1/version"] = body["api"]

        version, api = version_by_reflection(khetd.target)
        said["GetVersion through reflection"] = version
        apis["GetVersion through reflection"] = api

    problems = [f"{where} says {value}, CMake {args.version}"
                for where, value in said.items() if value != args.version]
    problems += [f"{where} names the API {api}, not khet.v1"
                 for where, api in apis.items() if api != "khet.v1"]
    for where, value in said.items():
        print(f"{where:32} {value}")
    if problems:
        print("DISAGREE:\n  " + "\n  ".join(problems))
        return 1
    print(f"version: all {len(said)} agree on {args.version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
