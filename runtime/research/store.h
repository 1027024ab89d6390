// Content-addressed artifact files. An artifact carries `artifact_sha256`, the SHA-256 of its canonical
// JSON without that key; its file is written once and never replaced.
#pragma once

#include <string>

#include "runtime/research/canonical_json.h"

namespace gs::research {

// Returns `payload` with "artifact_sha256" added (any existing value is recomputed, never trusted).
Json seal_artifact(Json payload);
// Recomputes the seal; false when the content was altered after sealing.
bool seal_is_valid(const Json& sealed);

struct StoredArtifact {
  std::string path, sha256;
  bool already_present = false;  // the same bytes were already there: nothing was written
};

// Writes pretty JSON of a sealed artifact. `output` is a directory (existing, or text ending in '/'),
// where the file is named "<prefix><sha256>.json", or a file path. The file is created exclusively: when
// the path already holds the same bytes the call is a no-op; when it holds anything else it throws
// std::runtime_error and leaves the file untouched.
StoredArtifact store_artifact(const Json& sealed, const std::string& output, const std::string& prefix = "");

}  // namespace gs::research
