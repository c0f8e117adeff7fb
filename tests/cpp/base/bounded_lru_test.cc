// The bounded map a long-running server keeps per caller: never more than
// its capacity, the least recently used forgotten first.
#include <gtest/gtest.h>

#include <string>

#include "core/base/bounded_lru.h"

namespace pulse {
namespace {

TEST(BoundedLru, KeepsAtMostItsCapacityForgettingTheLeastRecentlyUsed) {
  BoundedLru<std::string, std::string> m(3);
  m.Put("a", "wf-a");
  m.Put("b", "wf-b");
  m.Put("c", "wf-c");
  EXPECT_EQ(m.Get("a"), "wf-a");  // a is now the most recently used
  m.Put("d", "wf-d");             // b goes
  EXPECT_EQ(m.size(), 3u);
  EXPECT_FALSE(m.Get("b").has_value());
  EXPECT_EQ(m.Get("a"), "wf-a");
  EXPECT_EQ(m.Get("c"), "wf-c");
  EXPECT_EQ(m.Get("d"), "wf-d");
  m.Put("c", "wf-c2");  // an update is no new entry
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.Get("c"), "wf-c2");
  for (int i = 0; i < 1000; ++i) m.Put("t" + std::to_string(i), "wf");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m.Get("t999"), "wf");
  EXPECT_FALSE(m.Get("a").has_value());
}

}  // namespace
}  // namespace pulse
