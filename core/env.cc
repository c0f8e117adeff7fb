#include "core/env.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace pulse {

namespace {

namespace fs = std::filesystem;

class PosixEnv : public Env {
 public:
  int64_t NowSeconds() override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  void Log(LogLevel level, const std::string& message) override {
    if (level == LogLevel::kDebug) return;
    const char* tag = level == LogLevel::kError ? "error" : level == LogLevel::kWarn ? "warning" : "info";
    std::cerr << "pulse: " << tag << ": " << message << std::endl;
  }

  Result<std::string> ReadFile(const std::string& path) override {
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::NotFound(path + ": no such file");
    if (fs::is_directory(path, ec)) return Status::InvalidArgument(path + ": is a directory, not a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IoError(path + ": cannot read: " + std::strerror(errno));
    std::ostringstream out;
    out << in.rdbuf();
    if (in.bad()) return Status::IoError(path + ": read failed");
    return out.str();
  }

  Status WriteFileAtomic(const std::string& path, const std::string& content) override {
    std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return Status::IoError(path + ": cannot write: " + std::strerror(errno));
    size_t done = 0;
    while (done < content.size()) {
      ssize_t n = ::write(fd, content.data() + done, content.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string err = std::strerror(errno);
        ::close(fd);
        ::unlink(tmp.c_str());
        return Status::IoError(path + ": write failed: " + err);
      }
      done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
      std::string err = std::strerror(errno);
      ::unlink(tmp.c_str());
      return Status::IoError(path + ": sync failed: " + err);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      std::string err = std::strerror(errno);
      ::unlink(tmp.c_str());
      return Status::IoError(path + ": rename failed: " + err);
    }
    return Status::OK();
  }

  bool FileExists(const std::string& path) override {
    std::error_code ec;
    return fs::exists(path, ec);
  }

  bool IsDirectory(const std::string& path) override {
    std::error_code ec;
    return fs::is_directory(path, ec);
  }

  Status CreateDirs(const std::string& path) override {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec) return Status::IoError(path + ": cannot create directory: " + ec.message());
    return Status::OK();
  }

  Result<std::vector<std::string>> ListDir(const std::string& dir) override {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Status::NotFound(dir + ": no such directory");
    std::vector<std::string> names;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      names.push_back(it->path().filename().string());
    }
    if (ec) return Status::IoError(dir + ": cannot list: " + ec.message());
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<int64_t> ModifiedAt(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": no such file");
    return static_cast<int64_t>(st.st_mtime);
  }

  Result<int64_t> FileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return Status::NotFound(path + ": no such file");
    return static_cast<int64_t>(st.st_size);
  }
};

}  // namespace

Result<int64_t> Env::FileSize(const std::string& path) {
  PULSE_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return static_cast<int64_t>(text.size());
}

Env* DefaultEnv() {
  static PosixEnv env;
  return &env;
}

}  // namespace pulse
