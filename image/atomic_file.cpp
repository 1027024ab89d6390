#include "image/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gs {
namespace {

std::string parent_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Unpredictable, so another user cannot plant a link under the name before we create it (O_EXCL would
// refuse it anyway; the randomness keeps that refusal from becoming a denial of service).
std::string random_suffix() {
  uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != ssize_t(sizeof bits)) bits = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  static const char hex[] = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; ++i) s += hex[(bits >> (4 * i)) & 15];
  return s;
}

std::string temp_name_beside(const std::string& target) {
  const std::string dir = parent_of(target);
  return (dir == "/" ? "" : dir) + "/." + name_of(target) + ".tmp-" + random_suffix();
}

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw std::runtime_error(what + " '" + path + "': " + std::strerror(error));
}

void write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write", path, n < 0 ? errno : EIO);
    bytes.remove_prefix(size_t(n));
  }
}

// The file's bytes are on disk before the rename makes them visible under the target's name.
std::string write_temp_beside(const std::string& target, std::string_view bytes) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string tmp = temp_name_beside(target);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) fail("cannot write", target, errno);
    try {
      write_all(fd, bytes, target);
      if (::fsync(fd) != 0) fail("cannot write", target, errno);
    } catch (...) {
      ::close(fd);
      ::unlink(tmp.c_str());
      throw;
    }
    if (::close(fd) != 0) {
      const int error = errno;
      ::unlink(tmp.c_str());
      fail("cannot write", target, error);
    }
    return tmp;
  }
  throw std::runtime_error("cannot write '" + target + "': no free temporary name beside it");
}

void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

bool is_symlink(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

bool write_file_atomic(const std::string& path, std::string_view bytes, WriteMode mode) {
  if (path.empty()) throw std::runtime_error("cannot write a file with an empty name");
  if (mode == WriteMode::replace && is_symlink(path))
    throw std::runtime_error("refusing to write '" + path + "': it is a symbolic link (remove it or choose another name)");
  const std::string tmp = write_temp_beside(path, bytes);
  if (mode == WriteMode::create_new) {
    // link() fails when the name exists (even as a dangling link), so nothing is ever replaced.
    const int rc = ::link(tmp.c_str(), path.c_str());
    const int error = errno;
    ::unlink(tmp.c_str());
    if (rc != 0 && error == EEXIST) return false;
    if (rc != 0) fail("cannot write", path, error);
  } else if (::rename(tmp.c_str(), path.c_str()) != 0) {
    // rename() replaces a name and never follows it; a link planted since the check above is replaced.
    const int error = errno;
    ::unlink(tmp.c_str());
    fail("cannot replace", path, error);
  }
  sync_directory(parent_of(path));
  return true;
}

bool write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes, WriteMode mode) {
  return write_file_atomic(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), mode);
}

std::string make_sibling_temp_dir(const std::string& target) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    const std::string dir = temp_name_beside(target);
    if (::mkdir(dir.c_str(), 0777) == 0) return dir;
    if (errno != EEXIST) fail("cannot create a folder beside", target, errno);
  }
  throw std::runtime_error("cannot create a folder beside '" + target + "': no free temporary name");
}

void replace_dir_atomic(const std::string& built, const std::string& target) {
  if (is_symlink(target)) throw std::runtime_error("refusing to replace '" + target + "': it is a symbolic link");
  if (::rename(built.c_str(), target.c_str()) == 0) {  // no target yet (or an empty folder)
    sync_directory(parent_of(target));
    return;
  }
  if (errno != EEXIST && errno != ENOTEMPTY) fail("cannot put the new folder in place of", target, errno);
  // Exchange the two names atomically; the old tree then sits under the temporary name.
  if (::renameat2(AT_FDCWD, built.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) fail("cannot put the new folder in place of", target, errno);
    // A file system without exchange: move the old tree aside, then the new one in (a brief gap).
    const std::string aside = temp_name_beside(target);
    if (::rename(target.c_str(), aside.c_str()) != 0) fail("cannot move aside", target, errno);
    if (::rename(built.c_str(), target.c_str()) != 0) {
      const int error = errno;
      ::rename(aside.c_str(), target.c_str());
      fail("cannot put the new folder in place of", target, error);
    }
    std::error_code ec;
    std::filesystem::remove_all(aside, ec);
    sync_directory(parent_of(target));
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(built, ec);  // now the old tree
  sync_directory(parent_of(target));
}

}  // namespace gs
