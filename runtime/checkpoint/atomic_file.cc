#include "runtime/checkpoint/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gfn::checkpoint {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw CheckpointError(what + " '" + path + "': " + std::strerror(errno));
}

void fsync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) fail("cannot open directory", dir);
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) fail("cannot fsync directory", dir);
}

}  // namespace

void write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", tmp);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      fail("cannot write", tmp);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("cannot fsync", tmp);
  }
  if (::close(fd) != 0) fail("cannot close", tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename to", path);
  auto dir = std::filesystem::path(path).parent_path().string();
  fsync_directory(dir.empty() ? "." : dir);
}

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open", path);
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) fail("cannot read", path);
  return std::move(out).str();
}

}  // namespace gfn::checkpoint
