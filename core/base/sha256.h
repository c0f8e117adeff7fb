// SHA-256 (FIPS 180-4), written here so the native program and the WASM
// module hash session tokens with the same code and no crypto library.
// Used to store a token's digest instead of the token itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pulse {

class Sha256 {
 public:
  Sha256();
  void Update(const void* data, size_t size);
  void Update(std::string_view data) { Update(data.data(), data.size()); }
  // The 32-byte digest; the object must not be updated afterwards.
  std::string Finish();

 private:
  void Block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;  // bytes
};

// Lowercase hex of SHA-256(data): 64 characters.
std::string Sha256Hex(std::string_view data);
// Lowercase hex of arbitrary bytes.
std::string HexEncode(std::string_view bytes);
// HMAC-SHA256 (RFC 2104) of `data` under `key`: the 32-byte MAC. Slack
// signs its requests with it (v0 signatures), so the signing check needs no
// crypto library in the core.
std::string HmacSha256(std::string_view key, std::string_view data);

// Compares two strings in time that depends only on their lengths, so a
// token check does not leak how many leading characters matched.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace pulse
