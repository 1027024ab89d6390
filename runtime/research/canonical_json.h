// Canonical JSON: the one byte form every hash in the research layer and the simulator is taken over.
//
// Keys sorted by code point, no insignificant whitespace, ASCII only (others as \uXXXX), integers without
// a decimal point and doubles in the shortest form that reads back to the same bits, written the way
// Python's json module writes them (exponent form below 1e-4 and from 1e16 up, "1.0" for integral values).
// The rules are our own, not nlohmann's, so a library upgrade can never change a published hash.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gs::research {

using Json = nlohmann::json;

// Throws std::invalid_argument on NaN or infinity (they have no canonical form).
std::string canonical_dump(const Json& value);
// The same content, indented by two spaces per level with ": " after keys, plus a trailing newline.
std::string pretty_dump(const Json& value);
// Shortest round-trip text of a finite double in the canonical style ("0.1", "1e-05", "1.68e+18").
std::string format_double(double value);
// Lowercase hex SHA-256 of canonical_dump(value).
std::string canonical_sha256(const Json& value);

}  // namespace gs::research
