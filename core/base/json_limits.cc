#include "core/base/json_limits.h"

#include <cmath>

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

// nlohmann's message without its "[json.exception...] " prefix and without
// the "; last read: '...'" tail, which quotes the input.
std::string JsonParserReason(const std::string& what) {
  std::string msg = what;
  size_t start = msg.find("] ");
  if (start != std::string::npos) msg = msg.substr(start + 2);
  size_t colon = msg.find(": ");
  if (msg.rfind("parse error", 0) == 0 && colon != std::string::npos) msg = msg.substr(colon + 2);
  size_t tail = msg.find("; last read");
  if (tail != std::string::npos) msg = msg.substr(0, tail);
  return msg;
}

namespace {

// Builds the document as json::parse does, but keeps the parser's complaint
// instead of throwing it: exceptions are off in the WASM build, where a throw
// is an abort that reaches JavaScript as a bare number. Numbers beyond
// double's range are refused here too (the parser already refuses 1e400;
// nothing downstream could write an infinity back as JSON).
class CapturingSax {
 public:
  CapturingSax() : dom_(doc_, /*allow_exceptions=*/false) {}
  bool null() { return dom_.null(); }
  bool boolean(bool v) { return dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    if (std::isfinite(v)) return dom_.number_float(v, s);
    reason_ = "number out of range";
    return false;
  }
  bool string(json::string_t& v) { return dom_.string(v); }
  bool binary(json::binary_t& v) { return dom_.binary(v); }
  bool start_object(std::size_t n) { return dom_.start_object(n); }
  bool key(json::string_t& k) { return dom_.key(k); }
  bool end_object() { return dom_.end_object(); }
  bool start_array(std::size_t n) { return dom_.start_array(n); }
  bool end_array() { return dom_.end_array(); }
  template <typename Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& ex) {
    reason_ = JsonParserReason(ex.what());
    byte_ = position > 0 ? position - 1 : 0;
    return false;
  }
  json& doc() { return doc_; }
  const std::string& reason() const { return reason_; }
  size_t byte() const { return byte_; }

 private:
  json doc_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::string reason_;
  size_t byte_ = 0;
};

}  // namespace

Result<json> ParseJsonBounded(std::string_view text, const std::string& what, int max_depth) {
  PULSE_RETURN_IF_ERROR(CheckJsonDepth(text, what, max_depth));
  CapturingSax sax;
  bool ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true);
  if (ok && sax.reason().empty()) return std::move(sax.doc());
  return Status::InvalidArgument(what + ": malformed JSON at byte " + std::to_string(sax.byte()) + ": " +
                                 (sax.reason().empty() ? "not JSON" : sax.reason()));
}

json ParseJsonOrDiscarded(std::string_view text) {
  CapturingSax sax;
  bool ok = json::sax_parse(text.begin(), text.end(), &sax, json::input_format_t::json, /*strict=*/true);
  if (ok && sax.reason().empty()) return std::move(sax.doc());
  return json(json::value_t::discarded);
}

}  // namespace pulse
