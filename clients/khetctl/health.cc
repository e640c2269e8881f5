// Copyright 2026 The khet Authors
// SPDX-License-Identifier: Apache-2.0

// health: the standard gRPC health check.
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/khetctl/khetctl.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "grpcpp/client_context.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/support/byte_buffer.h"

namespace khet::ctl {

namespace {

// grpc.health.v1 has no generated code in Debian's packages, so the check
// is a raw call: HealthCheckRequest{service = 1} in, HealthCheckResponse
// {status = 1} out.
std::string HealthStatusName(uint32_t status) {
  switch (status) {
    case 0:
      return "UNKNOWN";
    case 1:
      return "SERVING";
    case 2:
      return "NOT_SERVING";
    case 3:
      return "SERVICE_UNKNOWN";
    default:
      return absl::StrCat("status ", status);
  }
}

// The status field of a serialized HealthCheckResponse; nullopt if the
// bytes do not parse.
std::optional<uint32_t> ParseHealthStatus(const std::string& bytes) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint32_t status = 0;  // absent: UNKNOWN
  while (const uint32_t tag = in.ReadTag()) {
    if (tag == WireFormatLite::MakeTag(1, WireFormatLite::WIRETYPE_VARINT)) {
      if (!in.ReadVarint32(&status)) return std::nullopt;
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      return std::nullopt;
    }
  }
  if (!in.ConsumedEntireMessage()) return std::nullopt;
  return status;
}

int RunHealth(const CommandLine& flags, grpc::Channel& channel,
              int deadline_seconds) {
  const std::string service = flags.Get("service");
  std::string request_bytes;
  {
    google::protobuf::io::StringOutputStream stream(&request_bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    if (!service.empty()) {
      google::protobuf::internal::WireFormatLite::WriteString(1, service, &out);
    }
  }
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(deadline_seconds));
  const grpc::Status status =
      grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          &channel,
          grpc::internal::RpcMethod("/grpc.health.v1.Health/Check",
                                    grpc::internal::RpcMethod::NORMAL_RPC),
          &context, request, &response);
  if (!status.ok()) return RpcError(status);
  std::vector<grpc::Slice> slices;
  std::string response_bytes;
  if (response.Dump(&slices).ok()) {
    for (const grpc::Slice& s : slices) {
      response_bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
  }
  const std::optional<uint32_t> health = ParseHealthStatus(response_bytes);
  if (!health.has_value()) {
    std::cerr << "khetctl: the health check's answer does not parse"
              << std::endl;
    return kExitError;
  }
  const std::string name = HealthStatusName(*health);
  if (flags.Switch("json")) {
    std::cout << "{\"status\": \"" << name << "\"}" << std::endl;
  } else {
    std::cout << name << std::endl;
  }
  return *health == 1 ? kExitOk : kExitError;
}

}  // namespace

int HealthCommand(const Invocation& call) {
  return RunHealth(call.flags, call.client.channel(),
                   call.client.deadline_seconds());
}

}  // namespace khet::ctl
