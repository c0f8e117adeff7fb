// workflow.json: the file every command and the tick read first. A parsed
// configuration must render back to JSON (the stored snapshot) and parse
// again to the same thing.
#include "core/workflow/workflow_config.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pulse;
  Result<WorkflowConfig> config = ParseWorkflowConfig(fuzz::Text(data, size), "workflow.json");
  if (!config.ok()) return 0;
  std::string snapshot = config->raw.dump();
  Result<WorkflowConfig> again = ParseWorkflowConfig(snapshot, "snapshot");
  if (!again.ok()) abort();  // what was accepted once must be accepted from the snapshot
  return 0;
}
