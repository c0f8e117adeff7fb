// A thread-safe map of at most `capacity` entries that forgets the least
// recently used one when full: for memory a long-running server keeps per
// caller (which workflow a session token belongs to), which must not grow
// with every caller ever seen.
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace pulse {

template <typename Key, typename Value>
class BoundedLru {
 public:
  explicit BoundedLru(size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // The value for `key`, now the most recently used; nullopt when not kept.
  std::optional<Value> Get(const Key& key) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    order_.splice(order_.begin(), order_, it->second);
    return it->second->second;
  }

  // Keeps `key` -> `value` as the most recently used, forgetting the least
  // recently used entry when over capacity.
  void Put(const Key& key, Value value) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = index_.find(key);
    if (it != index_.end()) {
      it->second->second = std::move(value);
      order_.splice(order_.begin(), order_, it->second);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_.emplace(key, order_.begin());
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

  size_t size() {
    std::lock_guard<std::mutex> l(mu_);
    return order_.size();
  }

 private:
  const size_t capacity_;
  std::mutex mu_;
  std::list<std::pair<Key, Value>> order_;  // most recently used first
  std::unordered_map<Key, typename std::list<std::pair<Key, Value>>::iterator> index_;
};

}  // namespace pulse
