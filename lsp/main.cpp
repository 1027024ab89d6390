// gstack-lsp: the Language Server Protocol server for .gstack model files, over stdin and stdout.
//   gstack-lsp [--version | --help]
// Editors start it and talk JSON-RPC to it (docs/editors.md). Exit status: 0 after a shutdown request
// and an exit notification; 1 when the input ends without them; 2 for bad command-line arguments.
#include <iostream>
#include <string>

#include "lsp/stdio.h"

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
  return gs::lsp::serve_stdio();
}
