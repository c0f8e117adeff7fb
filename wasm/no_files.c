// The module opens no files: every database is in memory or in the OPFS
// pool (its own VFS), and nothing in a browser has a workspace. It is
// linked with -sFILESYSTEM=0 (wasm/CMakeLists.txt): no Emscripten file
// system in the glue, which was a third of it and most of the time before
// the module starts (bench/anchors.mjs, module load). Emscripten 3.1's
// stand-ins for these calls without a file system answer 0, which reads as
// success (an open that returns descriptor 0, a stat that fills nothing);
// these answer an error, so a path that reaches one (the core's POSIX file
// calls behind Env) fails as "Function not implemented" instead. None
// should: the core reaches a file only through a workflow folder, which the
// module's callers never have. tests/node/wasm_size.test.mjs checks that
// these, not the glue's, are the module's.
#include <errno.h>

long __syscall_open(long path, long flags, ...) { return -ENOSYS; }
long __syscall_unlink(long path) { return -ENOSYS; }
long __syscall_rename(long old_path, long new_path) { return -ENOSYS; }
long __syscall_mkdir(long path, long mode) { return -ENOSYS; }
long __syscall_stat64(long path, long buf) { return -ENOSYS; }
long __syscall_lstat64(long path, long buf) { return -ENOSYS; }
long __syscall_fstatat64(long dirfd, long path, long buf, long flags) { return -ENOSYS; }
long __syscall_fstat64(long fd, long buf) { return -EBADF; }
long __syscall_getdents64(long fd, long dirp, long count) { return -EBADF; }
