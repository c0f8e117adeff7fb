#include "core/json_limits.h"

namespace pulse {

using nlohmann::json;

Status CheckJsonDepth(std::string_view text, const std::string& what, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"': in_string = true; break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return Status::InvalidArgument(what + ": JSON nested deeper than " + std::to_string(max_depth) +
                                         " levels (at byte " + std::to_string(i) + ")");
        }
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default: break;
    }
  }
  return Status::OK();
}

namespace {

// nlohmann's message without its "[json.exception...] " prefix and without
// the "; last read: '...'" tail, which quotes the input.
std::string ParserReason(const json::parse_error& e) {
  std::string msg = e.what();
  size_t start = msg.find("] ");
  if (start != std::string::npos) msg = msg.substr(start + 2);
  size_t colon = msg.find(": ");
  if (msg.rfind("parse error", 0) == 0 && colon != std::string::npos) msg = msg.substr(colon + 2);
  size_t tail = msg.find("; last read");
  if (tail != std::string::npos) msg = msg.substr(0, tail);
  return msg;
}

}  // namespace

Result<json> ParseJsonBounded(std::string_view text, const std::string& what, int max_depth) {
  PULSE_RETURN_IF_ERROR(CheckJsonDepth(text, what, max_depth));
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    size_t at = e.byte > 0 ? e.byte - 1 : 0;
    return Status::InvalidArgument(what + ": malformed JSON at byte " + std::to_string(at) + ": " + ParserReason(e));
  } catch (const json::exception& e) {
    return Status::InvalidArgument(what + ": malformed JSON");
  }
}

}  // namespace pulse
