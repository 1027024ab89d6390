// gstack-lsp: the Language Server Protocol server for .gstack model files, over stdin and stdout.
//   gstack-lsp [--version | --help]
// Editors start it and talk JSON-RPC to it (docs/editors.md). Exit status: 0 after a shutdown request
// and an exit notification; 1 when the input ends without them; 2 for bad command-line arguments.
#include <csignal>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>

#include <unistd.h>

#include "lsp/jsonrpc.h"
#include "lsp/server.h"

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

int main(int argc, char** argv) {
  if (argc > 1) {
    const std::string a = argv[1];
    if (a == "--version") {
      std::cout << "gstack-lsp " << GSTACK_VERSION << "\n";
      return 0;
    }
    if (a == "--help" || a == "-h") {
      std::cout << "gstack-lsp: the language server for .gstack model files.\n"
                   "Speaks the Language Server Protocol on stdin/stdout; an editor starts it (docs/editors.md).\n"
                   "  --version  print the version\n  --stdio    accepted and ignored (stdio is the only transport)\n";
      return 0;
    }
    if (a != "--stdio") {
      std::cerr << "gstack-lsp: unknown argument '" << a << "'\n  hint: run `gstack-lsp --help`\n";
      return 2;
    }
  }
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
