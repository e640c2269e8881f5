#!/usr/bin/python3
# Copyright 2026 The khet Authors
# SPDX-License-Identifier: Apache-2.0

"""Writes the message schemas of docs/openapi.yaml from proto/khet/v1.

The HTTP gateway's bodies are protobuf's JSON mapping of the khet.v1
messages, so their schemas are derived from the proto files rather than
written by hand: every message and enum of khet.v1 becomes a schema under
`components.schemas`, below the marker line of docs/openapi.yaml, when the
part above (written by hand) refers to it or to a message that uses it. The mapping is the gateway's own
(service/http/json_printer.h): lowerCamelCase names, enums by name, 64-bit
integers as strings, Timestamps in RFC 3339, and every singular scalar and
repeated field printed even at its default. Hence, for messages only answers
hold, those fields are `required`; messages a request may hold (an RPC's
input, or a message a request body of the hand-written part refers to, such
as the HTTP-only CallbackRegistration, and what they use) require nothing (a
request leaves out what it does not set) and take 64-bit integers as numbers
too. Every message schema closes with additionalProperties: false, so an
answer with a field the proto does not have fails validation.

  scripts/openapi_schemas.py           rewrites docs/openapi.yaml's part
  scripts/openapi_schemas.py --check   exits 1 if that part's schemas differ
                                       from the proto's (descriptions aside)

Needs protoc and Python's protobuf and yaml modules (scripts/setup.sh
--tests installs them).
"""
import argparse
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml
from google.protobuf import descriptor_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCUMENT = ROOT / "docs" / "openapi.yaml"
MARKER = ("    # ---- Generated from proto/khet/v1 by scripts/openapi_schemas.py;"
          " do not edit below. ----\n")
PACKAGE = "khet.v1"
FD = descriptor_pb2.FieldDescriptorProto

INT64_TYPES = {FD.TYPE_INT64, FD.TYPE_UINT64, FD.TYPE_SINT64,
               FD.TYPE_FIXED64, FD.TYPE_SFIXED64}
INT32_TYPES = {FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32}
UINT32_TYPES = {FD.TYPE_UINT32, FD.TYPE_FIXED32}


def descriptor_set():
    with tempfile.TemporaryDirectory() as work:
        out = pathlib.Path(work) / "khet.pb"
        proto = ROOT / "proto"
        files = sorted(str(p.relative_to(proto))
                       for p in (proto / "khet" / "v1").glob("*.proto"))
        subprocess.run(["protoc", f"-I{proto}", "--include_imports",
                        "--include_source_info", f"-o{out}", *files],
                       check=True)
        return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())


def comment(locations, path):
    location = locations.get(tuple(path))
    if location is None:
        return ""
    text = location.leading_comments or location.trailing_comments
    return " ".join(text.split())


class Schemas:
    """The khet.v1 messages and enums of a descriptor set, as schemas."""

    def __init__(self, files, request_bodies=()):
        # request_bodies: schema names of messages sent as request bodies
        # besides the RPCs' inputs.
        self.messages = {}  # full name -> (descriptor, locations, path)
        self.enums = {}
        self.methods = []
        for file in files:
            if file.package != PACKAGE:
                continue
            locations = {tuple(l.path): l
                         for l in file.source_code_info.location}
            for i, message in enumerate(file.message_type):
                self._add_message(message, f".{PACKAGE}", locations, [4, i])
            for i, enum in enumerate(file.enum_type):
                self.enums[f".{PACKAGE}.{enum.name}"] = (enum, locations,
                                                         [5, i])
            for service in file.service:
                self.methods.extend(service.method)
        self.from_requests = self._reachable(
            [m.input_type for m in self.methods] +
            [f".{PACKAGE}.{name}" for name in request_bodies])

    def _add_message(self, message, scope, locations, path):
        name = f"{scope}.{message.name}"
        self.messages[name] = (message, locations, path)
        for i, nested in enumerate(message.nested_type):
            self._add_message(nested, name, locations, path + [3, i])
        for i, enum in enumerate(message.enum_type):
            self.enums[f"{name}.{enum.name}"] = (enum, locations,
                                                 path + [4, i])

    def _reachable(self, roots):
        seen = set()
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in seen or name not in self.messages:
                continue
            seen.add(name)
            for field in self.messages[name][0].field:
                if field.type == FD.TYPE_MESSAGE:
                    todo.append(field.type_name)
        return seen

    @staticmethod
    def schema_name(full_name):
        return full_name[len(f".{PACKAGE}."):]

    def ref(self, full_name):
        return {"$ref": f"#/components/schemas/{self.schema_name(full_name)}"}

    def field_schema(self, field, in_request):
        if field.type == FD.TYPE_MESSAGE:
            if field.type_name == ".google.protobuf.Timestamp":
                return {"type": "string", "format": "date-time"}
            return self.ref(field.type_name)
        if field.type == FD.TYPE_ENUM:
            return self.ref(field.type_name)
        if field.type == FD.TYPE_STRING:
            return {"type": "string"}
        if field.type == FD.TYPE_BYTES:
            return {"type": "string", "contentEncoding": "base64"}
        if field.type == FD.TYPE_BOOL:
            return {"type": "boolean"}
        if field.type in (FD.TYPE_DOUBLE, FD.TYPE_FLOAT):
            return {"type": "number"}
        if field.type in INT32_TYPES:
            return {"type": "integer", "format": "int32"}
        if field.type in UINT32_TYPES:
            return {"type": "integer", "format": "int32", "minimum": 0}
        if field.type in INT64_TYPES:
            # Answers quote them; requests may send a number or a string.
            if in_request:
                return {"type": ["string", "integer"], "format": "int64",
                        "pattern": "^-?[0-9]+$"}
            return {"type": "string", "format": "int64",
                    "pattern": "^-?[0-9]+$"}
        raise ValueError(f"field {field.name}: type {field.type} not mapped")

    def message_schema(self, full_name):
        message, locations, path = self.messages[full_name]
        in_request = full_name in self.from_requests
        schema = {"type": "object"}
        text = comment(locations, path)
        if text:
            schema["description"] = text
        properties = {}
        required = []
        for i, field in enumerate(message.field):
            value = self.field_schema(field, in_request)
            if field.label == FD.LABEL_REPEATED:
                value = {"type": "array", "items": value}
            text = comment(locations, path + [2, i])
            if text:
                value = dict(value, description=text)
            properties[field.json_name] = value
            printed_always = (field.label == FD.LABEL_REPEATED or
                              (field.type != FD.TYPE_MESSAGE and
                               not field.HasField("oneof_index")))
            if printed_always and not in_request:
                required.append(field.json_name)
        oneofs = [o.name for o in message.oneof_decl
                  if not o.name.startswith("_")]  # not proto3 optional's
        if oneofs:
            names = [f.json_name for f in message.field
                     if f.HasField("oneof_index") and not f.proto3_optional]
            schema.setdefault("description", "")
            schema["description"] = " ".join(filter(None, [
                schema["description"],
                f"At most one of {', '.join(names)} ({', '.join(oneofs)})."]))
        if properties:
            schema["properties"] = properties
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        return schema

    def enum_schema(self, full_name):
        enum, locations, path = self.enums[full_name]
        schema = {"type": "string"}
        lines = []
        text = comment(locations, path)
        if text:
            lines.append(text)
        for i, value in enumerate(enum.value):
            text = comment(locations, path + [2, i])
            if text:
                lines.append(f"{value.name}: {text}")
        if lines:
            schema["description"] = "; ".join(lines)
        schema["enum"] = [value.name for value in enum.value]
        return schema

    def used(self, names):
        """The full names of `names` (schema names) and what they use."""
        todo = [f".{PACKAGE}.{name}" for name in names]
        seen = set()
        while todo:
            name = todo.pop()
            if name in seen or (name not in self.messages and
                                name not in self.enums):
                continue
            seen.add(name)
            if name in self.messages:
                todo.extend(f.type_name for f in self.messages[name][0].field
                            if f.type_name)
        return seen

    def schemas(self, names):
        """The schemas of `names` and of every message and enum they use."""
        out = {}
        for name in sorted(self.used(names), key=self.schema_name):
            out[self.schema_name(name)] = (
                self.message_schema(name) if name in self.messages
                else self.enum_schema(name))
        return out


def referred(text):
    return set(re.findall(r"#/components/schemas/([A-Za-z0-9_.]+)", text))


def request_bodies(head):
    """The schemas the hand-written part's request bodies refer to."""
    document = yaml.safe_load(head)
    bodies = list(document.get("components", {})
                  .get("requestBodies", {}).values())
    for item in document.get("paths", {}).values():
        bodies.extend(operation["requestBody"] for operation in item.values()
                      if isinstance(operation, dict) and
                      "requestBody" in operation)
    return referred(yaml.safe_dump(bodies))


def generated_part(head):
    # The schemas the hand-written part refers to, and what those use.
    schemas = Schemas(descriptor_set().file,
                      request_bodies(head)).schemas(referred(head))
    text = yaml.safe_dump(schemas, sort_keys=False, allow_unicode=True,
                          width=88, default_flow_style=False)
    return "".join(f"    {line}" if line.strip() else line
                   for line in text.splitlines(keepends=True))


def without_descriptions(document):
    """The document's data without its description texts."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "description"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value
    return strip(yaml.safe_load(document))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if docs/openapi.yaml's part is out of date")
    args = parser.parse_args()
    document = DOCUMENT.read_text()
    if MARKER not in document:
        sys.exit(f"{DOCUMENT}: the marker line is missing:\n{MARKER}")
    head = document[:document.index(MARKER) + len(MARKER)]
    written = head + generated_part(head)
    if args.check:
        # The shapes are the contract and must match; descriptions (the
        # proto's comments) only document it, so a comment changed in the
        # proto without a refresh is reported, not failed.
        if without_descriptions(written) != without_descriptions(document):
            sys.exit("docs/openapi.yaml's message schemas differ from "
                     "proto/khet/v1: run scripts/openapi_schemas.py")
        if written != document:
            print("docs/openapi.yaml's descriptions differ from the proto's "
                  "comments: run scripts/openapi_schemas.py to refresh them")
        print("docs/openapi.yaml's message schemas match proto/khet/v1")
        return
    DOCUMENT.write_text(written)
    print(f"wrote the message schemas of {DOCUMENT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
