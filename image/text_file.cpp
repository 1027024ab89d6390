#include "image/text_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gs {

std::string read_text_file(const std::string& path, const std::string& what, size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; the type check below refuses it anyway.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw TextFileError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw TextFileError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw TextFileError("cannot read " + what + " '" + path + "': it is not a regular file (a directory, device, FIFO or socket)");
  if (size_t(st.st_size) > max_bytes)
    throw TextFileError(what + " '" + path + "' is too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
                        std::to_string(max_bytes >> 20) + " MiB)");
  std::string text(size_t(st.st_size), '\0');
  size_t got = 0;
  // The file may change while it is read: stop at the size it had when it was opened.
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) throw TextFileError("cannot read " + what + " '" + path + "': " + std::strerror(errno));
    if (n == 0) break;
    got += size_t(n);
  }
  text.resize(got);
  return text;
}

}  // namespace gs
