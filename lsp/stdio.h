// The language server on stdin/stdout until the client's exit notification or end of input.
#pragma once

namespace gs::lsp {

// Exit status: 0 after a shutdown request and an exit notification; 1 when the input ends without them.
int serve_stdio();

}  // namespace gs::lsp
