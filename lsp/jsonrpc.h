// JSON-RPC 2.0 over a byte stream with the Language Server Protocol's framing: each message is a header
// block ("Content-Length: N\r\n", optionally other headers, then "\r\n") followed by N bytes of JSON.
// The reader never trusts its input: header lines and message bodies have hard size limits, a body that
// is too large is read and thrown away (so the stream stays in step), and a header block without a
// usable Content-Length is reported rather than guessed at.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace gs::lsp {

using json = nlohmann::json;

// Error codes of JSON-RPC 2.0 and of the Language Server Protocol.
namespace rpc_error {
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kInternalError = -32603;
constexpr int kServerNotInitialized = -32002;
constexpr int kRequestFailed = -32803;
}  // namespace rpc_error

// A .gstack file may be 8 MiB (compiler/limits.h); as a JSON string (escapes, UTF-8 kept) a didOpen or
// didChange of such a file stays well under twice that.
constexpr size_t kMaxMessageBytes = size_t(32) << 20;
constexpr size_t kMaxHeaderLineBytes = 4096;

struct Frame {
  enum class K {
    Body,       // `body` holds one message's bytes
    TooLarge,   // the header announced more than kMaxMessageBytes; the body was skipped
    BadHeader,  // a header block without a valid Content-Length (or with an over-long line)
    End,        // end of input
  } k = K::End;
  std::string body;
  std::string problem;  // TooLarge / BadHeader: what was wrong, for the error reply
};

// Reads frames from a file descriptor through its own buffer, so that `pending()` can tell whether more
// input is waiting without blocking (the server uses it to check the model only once typing pauses).
class FrameReader {
 public:
  explicit FrameReader(int fd, size_t max_body = kMaxMessageBytes) : fd_(fd), max_body_(max_body) {}
  Frame next();
  // Whether input is available within `timeout_ms` (0: right now) without blocking longer.
  bool pending(int timeout_ms);

 private:
  bool fill();  // reads more bytes; false at end of input
  std::optional<std::string> line();  // one header line without its "\r\n"; nothing at end of input
  int fd_;
  size_t max_body_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

// The framed form of a message (header and body). Invalid UTF-8 in strings is replaced, never thrown on.
std::string frame(const json& message);

json response(const json& id, json result);
json error_response(const json& id, int code, const std::string& message);
json notification(const std::string& method, json params);

}  // namespace gs::lsp
