// Removing a folder that an untrusted program could write (a runner's temp
// dir) without ever following a link. Every step is relative to a directory
// descriptor opened with O_DIRECTORY | O_NOFOLLOW, and every name is removed
// with unlinkat, so swapping a folder for a symbolic link (to soul.md's
// folder, .pulse/, another workflow's db/) at any moment removes the link,
// never what it points to. A name that turns into a folder between listing
// and removal is opened the same way; a folder moved elsewhere meanwhile is
// still the folder that was opened.
#pragma once

#include <string>

#include "core/base/status.h"

namespace pulse {

// Removes `path` and everything beneath it. `path` itself must be a real
// directory (not a link); its parent is trusted (resolved as given). Depth
// is not bounded by the stack: a subtree deeper than a few hundred levels is
// moved up to `path` and removed from there. IoError naming what could not
// be removed (what could be is removed anyway); a missing `path` is OK.
Status RemoveTreeNoFollow(const std::string& path);

// The same for an already opened directory: removes everything inside
// `dir_fd` (not the directory itself). `dir_fd` stays open and owned by the
// caller.
Status RemoveContentsAt(int dir_fd, const std::string& what);

}  // namespace pulse
