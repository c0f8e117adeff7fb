// The owner token: the secret that lets a request act as the workspace's
// owner (answer decisions, edit memory, start turns). The workspace keeps
// only its SHA-256 (<workspace>/.pulse/owner-token.sha256, mode 0600), so
// whatever can read the workspace — a runner running as the same user, a
// backup, a synced folder — finds nothing it can present. The token itself
// is shown once, when it is made (first `pulse serve`, or `pulse token
// rotate`), and lives on in the owner's browser tab.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <string>

#include "core/base/status.h"

namespace pulse::serve {

std::string OwnerTokenHashPath(const std::string& workspace);
// The plaintext file earlier versions kept; migrated away on first use.
std::string LegacyOwnerTokenPath(const std::string& workspace);

struct OwnerTokenSetup {
  std::string token;   // the new token when `created`; empty otherwise (nobody can recover it)
  bool created = false;
  bool migrated = false;  // a plaintext owner-token was hashed and deleted
};

// Makes sure the workspace has an owner token hash: creates a token when
// there is none (returned once, in `token`), or hashes a plaintext
// owner-token left by an earlier version and deletes it (that token keeps
// working). Two servers starting at once never end up with different tokens.
[[nodiscard]] Result<OwnerTokenSetup> EnsureOwnerToken(const std::string& workspace);

// Replaces the stored hash with the hash of a new token and returns the
// token; from then on the old token is refused (a running server notices the
// new file on its next owner check).
[[nodiscard]] Result<std::string> RotateOwnerToken(const std::string& workspace);

// Checks presented tokens against the stored hash, re-reading the file when
// it changes (rotation takes effect without a restart). A missing or
// unreadable hash file matches nothing. Thread-safe.
class OwnerTokenCheck {
 public:
  explicit OwnerTokenCheck(std::string workspace) : path_(OwnerTokenHashPath(workspace)) {}
  bool Matches(const std::string& token);

 private:
  std::string path_;
  std::mutex mu_;
  std::string hash_;  // lowercase hex; empty: nothing matches
  ino_t ino_ = 0;
  int64_t mtime_ns_ = -1;
  int64_t size_ = -1;
};

}  // namespace pulse::serve
