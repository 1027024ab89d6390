// Text that came from a file, a path or the command line can hold control characters, and an escape
// sequence printed as it is would drive the user's terminal. Every text output passes such text through
// here: each control character (tabs and, where asked, newlines excepted) becomes \xNN.
#pragma once

#include <string>

namespace gs {

std::string escape_control(const std::string& s, bool keep_newlines = false);

}  // namespace gs
