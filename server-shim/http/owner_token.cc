#include "server-shim/http/owner_token.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "core/base/env.h"
#include "core/base/sha256.h"

namespace pulse::serve {

std::string OwnerTokenHashPath(const std::string& workspace) { return workspace + "/.pulse/owner-token.sha256"; }
std::string LegacyOwnerTokenPath(const std::string& workspace) { return workspace + "/.pulse/owner-token"; }

namespace {

Result<std::string> NewToken() {
  unsigned char bytes[32];
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool ok = fd >= 0 && ::read(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes);
  if (fd >= 0) ::close(fd);
  if (!ok) return Status::IoError("/dev/urandom: cannot read random bytes for the owner token");
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

Status EnsureDir(const std::string& workspace) {
  std::string dir = workspace + "/.pulse";
  PULSE_RETURN_IF_ERROR(DefaultEnv()->CreateDirs(dir));
  ::chmod(dir.c_str(), 0700);
  return Status::OK();
}

// Writes `hash` to a fresh 0600 temp file; `install` then puts it in place
// (link: only if nothing is there; rename: replacing).
Status WriteHashFile(const std::string& path, const std::string& hash, bool replace) {
  std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(tmp + ": cannot create the owner token hash file");
  std::string line = hash + "\n";
  bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (ok) ok = replace ? ::rename(tmp.c_str(), path.c_str()) == 0 : ::link(tmp.c_str(), path.c_str()) == 0;
  ::unlink(tmp.c_str());
  if (!ok) return Status::Conflict(path + ": cannot write the owner token hash");
  return Status::OK();
}

}  // namespace

Result<OwnerTokenSetup> EnsureOwnerToken(const std::string& workspace) {
  Env* env = DefaultEnv();
  std::string path = OwnerTokenHashPath(workspace);
  std::string legacy = LegacyOwnerTokenPath(workspace);
  PULSE_RETURN_IF_ERROR(EnsureDir(workspace));
  OwnerTokenSetup setup;
  if (env->FileExists(legacy)) {
    PULSE_ASSIGN_OR_RETURN(std::string text, env->ReadFile(legacy));
    std::string old = Trimmed(text);
    if (old.size() < 16) return Status::InvalidArgument(legacy + ": owner token is shorter than 16 characters");
    Status s = WriteHashFile(path, Sha256Hex(old), /*replace=*/true);
    if (!s.ok()) return s;
    ::unlink(legacy.c_str());
    setup.migrated = true;
  }
  if (env->FileExists(path)) {
    ::chmod(path.c_str(), 0600);
    return setup;
  }
  PULSE_ASSIGN_OR_RETURN(std::string token, NewToken());
  Status s = WriteHashFile(path, Sha256Hex(token), /*replace=*/false);
  // Another server made one first: theirs stands, and they showed it.
  if (!s.ok() && env->FileExists(path)) return setup;
  PULSE_RETURN_IF_ERROR(s);
  setup.token = token;
  setup.created = true;
  return setup;
}

Result<std::string> RotateOwnerToken(const std::string& workspace) {
  PULSE_RETURN_IF_ERROR(EnsureDir(workspace));
  PULSE_ASSIGN_OR_RETURN(std::string token, NewToken());
  PULSE_RETURN_IF_ERROR(WriteHashFile(OwnerTokenHashPath(workspace), Sha256Hex(token), /*replace=*/true));
  // A plaintext token from an earlier version must not outlive a rotation.
  ::unlink(LegacyOwnerTokenPath(workspace).c_str());
  return token;
}

bool OwnerTokenCheck::Matches(const std::string& token) {
  if (token.empty()) return false;
  std::string hash;
  {
    std::lock_guard<std::mutex> l(mu_);
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) {
      hash_.clear();
      mtime_ns_ = -1;
    } else {
      int64_t mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
      if (st.st_ino != ino_ || mtime != mtime_ns_ || st.st_size != size_) {
        Result<std::string> text = DefaultEnv()->ReadFile(path_);
        hash_ = text.ok() ? Trimmed(*text) : "";
        if (hash_.size() != 64) hash_.clear();
        ino_ = st.st_ino;
        mtime_ns_ = mtime;
        size_ = st.st_size;
      }
    }
    hash = hash_;
  }
  if (hash.empty()) return false;
  return ConstantTimeEquals(Sha256Hex(token), hash);
}

}  // namespace pulse::serve
