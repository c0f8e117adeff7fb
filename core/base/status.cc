#include "core/base/status.h"

namespace pulse {

const char* CodeName(Code code) {
  switch (code) {
    case Code::kOk: return "ok";
    case Code::kInvalidArgument: return "invalid_argument";
    case Code::kNotFound: return "not_found";
    case Code::kRefused: return "refused";
    case Code::kConflict: return "conflict";
    case Code::kIoError: return "io_error";
    case Code::kCorruption: return "corruption";
    case Code::kBusy: return "busy";
    case Code::kInternal: return "internal";
    case Code::kUnauthenticated: return "unauthenticated";
  }
  return "unknown";
}

}  // namespace pulse
