#include "core/base/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pulse {

namespace {

constexpr int kOpenDir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
// Deeper subtrees are moved up to the top folder: the descriptors a walk
// holds stay bounded whatever the nesting.
constexpr int kMaxDepth = 48;
// Passes over a folder while each removes something: entries added or moved
// in while it is read are found by the next one (and a deep subtree moved up
// comes back to the top folder a level range at a time).
constexpr int kMaxPasses = 4096;

struct Walk {
  explicit Walk(int top) : top_fd(top) {}
  int top_fd;
  std::string first_error;
  unsigned long moved = 0;

  void Fail(const std::string& what, const char* name, int err) {
    if (first_error.empty()) first_error = what + "/" + name + ": " + std::strerror(err);
  }
};

bool RemoveIn(Walk& w, int dir_fd, const std::string& what, int depth);

// Removes the entry `name` of the folder open as `dir_fd`: unlinkat never
// follows a link, and a folder is entered only through an O_NOFOLLOW open.
// True when the entry is gone (or moved up to the top folder).
bool RemoveEntry(Walk& w, int dir_fd, const std::string& what, const char* name, int depth) {
  if (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT) return true;
  if (errno != EISDIR && errno != EPERM) return w.Fail(what, name, errno), false;
  if (depth >= kMaxDepth) {
    char moved[64];
    std::snprintf(moved, sizeof moved, ".pulse-remove-%lu", ++w.moved);
    if (::renameat(dir_fd, name, w.top_fd, moved) == 0 || errno == ENOENT) return true;
    return w.Fail(what, name, errno), false;
  }
  int sub = ::openat(dir_fd, name, kOpenDir);
  if (sub < 0) {
    // Swapped for a link or a file since the unlink above: remove that.
    if (errno == ENOENT) return true;
    if (errno != ELOOP && errno != ENOTDIR) return w.Fail(what, name, errno), false;
    if (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT) return true;
    return w.Fail(what, name, errno), false;
  }
  RemoveIn(w, sub, what + "/" + name, depth + 1);
  ::close(sub);
  if (::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return true;
  // The folder was moved away and a link (or file) put in its place.
  if (errno == ENOTDIR && (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT)) return true;
  return w.Fail(what, name, errno), false;
}

// Empties the folder open as `dir_fd`; true when it was found empty.
bool RemoveIn(Walk& w, int dir_fd, const std::string& what, int depth) {
  for (int pass = 0; pass < kMaxPasses; ++pass) {
    int list_fd = ::openat(dir_fd, ".", kOpenDir);
    if (list_fd < 0) {
      w.Fail(what, ".", errno);
      return false;
    }
    DIR* d = ::fdopendir(list_fd);
    if (!d) {
      w.Fail(what, ".", errno);
      ::close(list_fd);
      return false;
    }
    bool any = false, progress = false;
    while (struct dirent* e = ::readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      any = true;
      if (RemoveEntry(w, dir_fd, what, e->d_name, depth)) progress = true;
    }
    ::closedir(d);
    if (!any) return true;
    if (!progress) return false;
  }
  return false;
}

}  // namespace

Status RemoveContentsAt(int dir_fd, const std::string& what) {
  Walk w(dir_fd);
  bool empty = RemoveIn(w, dir_fd, what, 0);
  if (!w.first_error.empty()) return Status::IoError("cannot remove " + w.first_error);
  if (!empty) return Status::IoError("cannot remove everything in " + what + ": entries keep appearing");
  return Status::OK();
}

Status RemoveTreeNoFollow(const std::string& path) {
  std::string parent = ".", leaf = path;
  size_t slash = path.find_last_of('/');
  if (slash != std::string::npos) {
    parent = slash == 0 ? "/" : path.substr(0, slash);
    leaf = path.substr(slash + 1);
  }
  if (leaf.empty() || leaf == "." || leaf == "..") return Status::InvalidArgument(path + ": not a folder to remove");
  int parent_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0) {
    if (errno == ENOENT) return Status::OK();
    return Status::IoError(parent + ": " + std::strerror(errno));
  }
  int top = ::openat(parent_fd, leaf.c_str(), kOpenDir);
  if (top < 0) {
    int err = errno;
    Status s = Status::OK();
    if (err == ELOOP || err == ENOTDIR) {
      // Not a folder any more: the link (or file) itself goes, never its target.
      if (::unlinkat(parent_fd, leaf.c_str(), 0) != 0 && errno != ENOENT) {
        s = Status::IoError(path + ": " + std::strerror(errno));
      }
    } else if (err != ENOENT) {
      s = Status::IoError(path + ": " + std::strerror(err));
    }
    ::close(parent_fd);
    return s;
  }
  Status s = RemoveContentsAt(top, path);
  ::close(top);
  if (s.ok() && ::unlinkat(parent_fd, leaf.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    s = Status::IoError(path + ": " + std::strerror(errno));
  }
  ::close(parent_fd);
  return s;
}

}  // namespace pulse
