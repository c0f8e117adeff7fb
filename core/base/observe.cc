#include "core/base/observe.h"

#include <atomic>

namespace pulse {

namespace {
std::atomic<ObserveSink*> g_sink{nullptr};
}  // namespace

void SetObserveSink(ObserveSink* sink) { g_sink.store(sink, std::memory_order_release); }

ObserveSink* CurrentObserveSink() { return g_sink.load(std::memory_order_acquire); }

}  // namespace pulse
