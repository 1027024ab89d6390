// The language server's loop over stdin and stdout, shared by `gstack-lsp` and `gstackc lsp`.
#include "lsp/stdio.h"

#include <cerrno>
#include <csignal>
#include <string>

#include <unistd.h>

#include "lsp/jsonrpc.h"
#include "lsp/server.h"

namespace gs::lsp {

namespace {

// Typing pauses this long before the model is checked again (one check per burst of keystrokes).
constexpr int kQuietMs = 150;

bool write_all(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return true;
}

}  // namespace

int serve_stdio() {
  std::signal(SIGPIPE, SIG_IGN);  // a client that goes away makes write() fail, which ends the loop
  bool output_ok = true;
  gs::lsp::Server server([&](const gs::lsp::json& m) { output_ok = output_ok && write_all(gs::lsp::frame(m)); });
  gs::lsp::FrameReader in(STDIN_FILENO);
  using gs::lsp::Frame;
  while (output_ok && !server.exited()) {
    if (server.has_stale() && !in.pending(kQuietMs)) server.check_stale();
    Frame f = in.next();
    if (f.k == Frame::K::End) break;
    if (f.k == Frame::K::Body) server.receive(f.body);
    else if (f.k == Frame::K::TooLarge)
      write_all(gs::lsp::frame(gs::lsp::error_response(nullptr, gs::lsp::rpc_error::kInvalidRequest, f.problem)));
    else
      write_all(gs::lsp::frame(gs::lsp::error_response(nullptr, gs::lsp::rpc_error::kParseError, f.problem)));
  }
  return server.exit_status();
}

}  // namespace gs::lsp
