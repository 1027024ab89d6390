#include "runtime/serve/static_files.h"

#include <algorithm>
#include <map>

namespace gs::serve {

namespace fs = std::filesystem;

std::string content_type_of(const fs::path& file) {
  static const std::map<std::string, std::string> types = {
      {".html", "text/html; charset=utf-8"}, {".js", "text/javascript; charset=utf-8"}, {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},   {".json", "application/json"},             {".svg", "image/svg+xml"},
      {".png", "image/png"},                 {".txt", "text/plain; charset=utf-8"},      {".csv", "text/csv; charset=utf-8"},
      {".ico", "image/x-icon"},              {".woff2", "font/woff2"}};
  auto it = types.find(file.extension().string());
  return it == types.end() ? "application/octet-stream" : it->second;
}

std::optional<SiteFile> site_file(const fs::path& root, const std::string& url_path) {
  if (url_path.empty() || url_path.front() != '/' || url_path.size() > 1024) return std::nullopt;
  if (url_path.find('\0') != std::string::npos || url_path.find('\\') != std::string::npos) return std::nullopt;
  fs::path rel;
  size_t start = 1;
  while (start <= url_path.size()) {
    size_t end = url_path.find('/', start);
    if (end == std::string::npos) end = url_path.size();
    const std::string seg = url_path.substr(start, end - start);
    start = end + 1;
    if (seg.empty()) continue;                            // "//" and a trailing "/"
    if (seg == "." || seg == ".." || seg.front() == '.') return std::nullopt;  // traversal, hidden files
    rel /= seg;
  }
  std::error_code ec;
  fs::path file = root / rel;
  if (fs::is_directory(file, ec)) file /= "index.html";
  // The real path must stay inside the folder: a symbolic link that points out of it is refused.
  const fs::path real = fs::canonical(file, ec);
  if (ec) return std::nullopt;
  auto [r, f] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
  if (r != root.end() || !fs::is_regular_file(real, ec)) return std::nullopt;
  return SiteFile{real, content_type_of(real)};
}

}  // namespace gs::serve
