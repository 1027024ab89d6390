// Which file of the site folder a request path names, for `gpu-stack serve`. A path is served only when
// it names a regular file inside the folder: '..' and '.' segments, backslashes, NUL bytes, hidden
// files (a leading '.') and anything whose real path (after symbolic links) leaves the folder are
// refused. The HTTP layer has already decoded %XX escapes once, so "%2e%2e" arrives here as "..".
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace gs::serve {

struct SiteFile {
  std::filesystem::path path;  // real path, inside the site folder
  std::string content_type;
};

// `root` must be the site folder's canonical path. "/" and folders mean their index.html.
std::optional<SiteFile> site_file(const std::filesystem::path& root, const std::string& url_path);

// The Content-Type for a file name by its extension (application/octet-stream when unknown).
std::string content_type_of(const std::filesystem::path& file);

}  // namespace gs::serve
