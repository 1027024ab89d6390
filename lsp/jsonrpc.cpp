#include "lsp/jsonrpc.h"

#include <cerrno>
#include <cstdlib>

#include <poll.h>
#include <unistd.h>

namespace gs::lsp {

namespace {

constexpr size_t kMaxHeaderLines = 32;

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// A Content-Length value: decimal digits only, no sign, no overflow.
std::optional<size_t> parse_length(const std::string& v) {
  if (v.empty() || v.size() > 18) return std::nullopt;
  size_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + size_t(c - '0');
  }
  return n;
}

}  // namespace

bool FrameReader::fill() {
  if (eof_) return false;
  if (pos_ > 0 && pos_ * 2 >= buf_.size()) buf_.erase(0, pos_), pos_ = 0;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    buf_.append(chunk, size_t(n));
    return true;
  }
}

bool FrameReader::pending(int timeout_ms) {
  if (pos_ < buf_.size() || eof_) return true;
  pollfd p{fd_, POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r != 0;  // readable, hung up, or an error: all mean next() will not wait for nothing
  }
}

std::optional<std::string> FrameReader::line() {
  size_t scanned = 0;  // bytes after pos_ already searched for a newline (fill() may move pos_)
  bool overlong = false;
  for (;;) {
    const size_t nl = buf_.find('\n', pos_ + scanned);
    if (nl != std::string::npos) {
      std::string l = overlong ? std::string(kMaxHeaderLineBytes + 1, '?') : buf_.substr(pos_, nl - pos_);
      pos_ = nl + 1;
      if (!l.empty() && l.back() == '\r') l.pop_back();
      return l;
    }
    // An over-long line is consumed (up to its newline) but not kept.
    if (buf_.size() - pos_ > kMaxHeaderLineBytes) overlong = true, pos_ = buf_.size();
    scanned = buf_.size() - pos_;
    if (!fill()) return std::nullopt;
  }
}

Frame FrameReader::next() {
  Frame f;
  std::optional<size_t> length;
  std::string problem;
  size_t lines = 0;
  for (;;) {
    auto l = line();
    if (!l) return Frame{};  // end of input, possibly inside a header block
    if (l->empty()) {
      if (lines == 0) continue;  // stray blank lines between messages
      break;
    }
    ++lines;
    if (l->size() > kMaxHeaderLineBytes) {
      problem = "a header line is longer than " + std::to_string(kMaxHeaderLineBytes) + " bytes";
    } else if (const size_t colon = l->find(':'); colon == std::string::npos) {
      if (problem.empty()) problem = "a header line is not of the form 'Name: value'";
    } else if (lower(trim(l->substr(0, colon))) == "content-length") {
      length = parse_length(trim(l->substr(colon + 1)));
      if (!length && problem.empty()) problem = "the Content-Length header is not a byte count";
    }
    if (lines > kMaxHeaderLines) {
      problem = "more than " + std::to_string(kMaxHeaderLines) + " header lines";
      break;
    }
  }
  if (!length || !problem.empty()) {
    f.k = Frame::K::BadHeader;
    f.problem = problem.empty() ? "the header has no Content-Length" : problem;
    return f;
  }
  const bool keep = *length <= max_body_;
  size_t need = *length;
  while (need > 0) {
    if (pos_ == buf_.size() && !fill()) return Frame{};  // end of input inside a body
    const size_t take = std::min(need, buf_.size() - pos_);
    if (keep) f.body.append(buf_, pos_, take);
    pos_ += take, need -= take;
    if (!keep && pos_ == buf_.size()) buf_.clear(), pos_ = 0;  // never hold a skipped body in memory
  }
  if (!keep) {
    f.k = Frame::K::TooLarge;
    f.problem = "the message is " + std::to_string(*length) + " bytes; the limit is " + std::to_string(max_body_);
    return f;
  }
  f.k = Frame::K::Body;
  return f;
}

std::string frame(const json& message) {
  const std::string body = message.dump(-1, ' ', false, json::error_handler_t::replace);
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

json response(const json& id, json result) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}; }

json error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json notification(const std::string& method, json params) {
  return {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
}

}  // namespace gs::lsp
