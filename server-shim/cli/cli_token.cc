// `pulse token rotate`: a new owner token for the workspace. The token is
// printed once, on stdout (the only place it ever appears), or written as a
// ready `Authorization: Bearer` header line to a 0600 file that curl reads
// with `-H @FILE` (--header-file), so it never sits on a command line; the
// workspace keeps its hash, and a running server refuses the old token from
// its next request on.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server-shim/cli/cli.h"
#include "server-shim/http/owner_token.h"

namespace pulse::cli {
namespace {

// A fresh 0600 file beside `path` (renamed over it once written).
struct HeaderFile {
  std::string path, tmp;
  int fd = -1;

  Status Open() {
    tmp = path + ".tmp-" + std::to_string(::getpid());
    ::unlink(tmp.c_str());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return Status::InvalidArgument("--header-file " + path + ": " + std::strerror(errno));
    return Status::OK();
  }
  Status Install(const std::string& token) {
    std::string line = "Authorization: Bearer " + token + "\n";
    bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) && ::fsync(fd) == 0;
    int err = errno;
    ::close(fd);
    fd = -1;
    if (ok && ::rename(tmp.c_str(), path.c_str()) == 0) return Status::OK();
    if (ok) err = errno;
    ::unlink(tmp.c_str());
    return Status::IoError("--header-file " + path + ": " + std::strerror(err));
  }
  ~HeaderFile() {
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmp.c_str());
    }
  }
};

void Setup(CLI::App& app, State& state) {
  static std::string header_file;
  CLI::App* token = app.add_subcommand("token", "the owner token: the secret that lets the Pulse tab act as the owner");
  token->require_subcommand(1);
  CLI::App* rotate = token->add_subcommand(
      "rotate", "make a new owner token, print it once and make the old one stop working");
  AddCommonOptions(rotate, state, /*needs_workflow=*/false);
  rotate->add_option("--header-file", header_file,
                     "write the new token as an \"Authorization: Bearer\" line to this file (mode 0600) instead of "
                     "printing it: `curl -H @FILE` sends it without putting it on a command line");
  rotate->callback([&state] {
    Env* env = DefaultEnv();
    if (!env->IsDirectory(state.globals.workspace)) {
      state.exit_code = Fail(Status::InvalidArgument(state.globals.workspace + ": workspace directory does not exist"));
      return;
    }
    // The file is made before the token, so a path that cannot be written
    // leaves the old token working.
    HeaderFile out{header_file};
    if (!header_file.empty()) {
      if (Status s = out.Open(); !s.ok()) {
        state.exit_code = Fail(s);
        return;
      }
    }
    Result<std::string> t = serve::RotateOwnerToken(state.globals.workspace);
    if (!t.ok()) {
      state.exit_code = Fail(t.status());
      return;
    }
    const std::string hash_file = serve::OwnerTokenHashPath(state.globals.workspace);
    if (!header_file.empty()) {
      if (Status s = out.Install(*t); !s.ok()) {
        state.exit_code = Fail(s);
        return;
      }
      if (state.globals.json) {
        PrintJson(nlohmann::json{{"header_file", header_file}, {"hash_file", hash_file}});
      } else {
        std::cerr << "pulse: new owner token written to " << header_file
                  << " as an Authorization header (mode 0600; use curl -H @" << header_file
                  << "); the old token no longer works" << std::endl;
      }
      return;
    }
    if (state.globals.json) {
      PrintJson(nlohmann::json{{"token", *t}, {"hash_file", hash_file}});
    } else {
      std::cout << *t << std::endl;
      std::cerr << "pulse: new owner token above (shown once; only its hash is kept in " << hash_file
                << "); the old token no longer works" << std::endl;
    }
  });
}

}  // namespace
PULSE_REGISTER_COMMAND("token", Setup);
}  // namespace pulse::cli
