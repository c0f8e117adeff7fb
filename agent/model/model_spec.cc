#include "agent/model/model_spec.h"

#include <cctype>
#include <cmath>

#include "core/api/args.h"
#include "core/base/utf8.h"

namespace pulse {

using nlohmann::json;

namespace {

constexpr size_t kMaxModelName = 200;
constexpr size_t kMaxUrl = 2048;
constexpr const char* kFromWorkflow = "workflow.json pulse.model";

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A model name as vendors and local servers spell them ("gpt-4o-mini",
// "llama3.1:8b", "models/x"): printable, no blanks, bounded.
Status CheckName(const std::string& name, const std::string& what) {
  if (name.empty()) return Status::InvalidArgument(what + ": the model name is empty");
  if (name.size() > kMaxModelName) {
    return Status::InvalidArgument(what + ": the model name is longer than " + std::to_string(kMaxModelName) + " bytes");
  }
  if (!IsValidUtf8(name)) return Status::InvalidArgument(what + ": the model name is not UTF-8");
  for (unsigned char c : name) {
    if (c <= 0x20 || c == 0x7f) return Status::InvalidArgument(what + ": the model name holds a blank or control character");
  }
  return Status::OK();
}

// http(s)://host[:port][/path], printable ASCII, no query or fragment; the
// trailing '/' dropped.
Result<std::string> CheckUrl(std::string url, const std::string& what) {
  if (url.size() > kMaxUrl) return Status::InvalidArgument(what + ": the URL is longer than 2048 bytes");
  for (unsigned char c : url) {
    if (c <= 0x20 || c >= 0x7f) return Status::InvalidArgument(what + ": the URL holds a blank or a character that is not printable ASCII");
  }
  const std::string lower = Lower(url);
  size_t scheme = lower.rfind("https://", 0) == 0 ? 8 : lower.rfind("http://", 0) == 0 ? 7 : 0;
  if (scheme == 0) return Status::InvalidArgument(what + ": \"" + url + "\" is not an http:// or https:// URL");
  size_t path = url.find('/', scheme);
  std::string host = url.substr(scheme, path == std::string::npos ? std::string::npos : path - scheme);
  if (host.empty() || host.find('@') != std::string::npos) {
    return Status::InvalidArgument(what + ": \"" + url + "\" names no host (or carries credentials before it)");
  }
  if (url.find_first_of("?#") != std::string::npos) {
    return Status::InvalidArgument(what + ": \"" + url + "\" has a query or fragment; give the API's base URL");
  }
  while (url.size() > scheme + host.size() && url.back() == '/') url.pop_back();
  return url;
}

bool IsEnvName(const std::string& s) {
  if (s.empty() || s.size() > 128 || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (unsigned char c : s) {
    if (!(std::isalnum(c) || c == '_')) return false;
  }
  return true;
}

// "openai:gpt-4o" -> provider and name.
Status SplitModel(const std::string& text, ModelProvider* provider, std::string* name) {
  size_t colon = text.find(':');
  if (colon == std::string::npos) {
    return Status::InvalidArgument("--model: \"" + std::string(Utf8Prefix(text, 80)) +
                                   "\" is not PROVIDER:NAME (openai:NAME or anthropic:NAME)");
  }
  Result<ModelProvider> p = ParseModelProvider(text.substr(0, colon));
  if (!p.ok()) return p.status().WithContext("--model");
  *provider = *p;
  *name = text.substr(colon + 1);
  return CheckName(*name, "--model");
}

// The URL the operator chose for `p`: --model-url when --model names that
// provider, else the vendor's.
std::string OperatorUrl(const ModelFlags& flags, ModelProvider p) {
  ModelProvider fp;
  std::string name;
  if (!flags.model.empty() && SplitModel(flags.model, &fp, &name).ok() && fp == p && !flags.url.empty()) {
    Result<std::string> u = CheckUrl(flags.url, "--model-url");
    if (u.ok()) return *u;
  }
  return DefaultModelUrl(p);
}

void DecideKey(const ModelFlags& flags, ModelSpec* spec) {
  if (flags.model.empty()) {
    spec->key_note = "no key: the server was not started with --model (a key comes only with the server's flags)";
    return;
  }
  if (spec->url != OperatorUrl(flags, spec->provider)) {
    spec->key_note = "no key: " + spec->url + " is not the URL the server was given for " +
                     ModelProviderName(spec->provider) + " (" + OperatorUrl(flags, spec->provider) + ")";
    return;
  }
  spec->key_env = flags.key_env.empty() ? DefaultModelKeyEnv(spec->provider) : flags.key_env;
}

}  // namespace

const char* ModelProviderName(ModelProvider p) { return p == ModelProvider::kAnthropic ? "anthropic" : "openai"; }

Result<ModelProvider> ParseModelProvider(const std::string& text) {
  const std::string t = Lower(text);
  if (t == "openai") return ModelProvider::kOpenAi;
  if (t == "anthropic") return ModelProvider::kAnthropic;
  return Status::InvalidArgument("provider \"" + std::string(Utf8Prefix(text, 40)) +
                                 "\" is neither openai (the Chat Completions format: OpenAI, Ollama, llama.cpp, vLLM, "
                                 "LM Studio) nor anthropic (the Messages API)");
}

const char* DefaultModelUrl(ModelProvider p) {
  return p == ModelProvider::kAnthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1";
}

const char* DefaultModelKeyEnv(ModelProvider p) {
  return p == ModelProvider::kAnthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
}

std::string ModelSpec::Id() const { return std::string(ModelProviderName(provider)) + ":" + name; }

std::string ModelSpec::Endpoint() const {
  return url + (provider == ModelProvider::kAnthropic ? "/v1/messages" : "/chat/completions");
}

json ModelSpec::ToJson(bool key_set) const {
  json out = {{"provider", ModelProviderName(provider)}, {"name", name}, {"url", url}, {"source", source},
              {"max_steps", max_steps}, {"timeout", timeout}};
  if (key_env.empty()) {
    out["key"] = "none";
    out["key_note"] = key_note;
  } else {
    out["key_env"] = key_env;
    out["key"] = key_set ? "set" : "unset";
  }
  return out;
}

Status CheckModelFlags(const ModelFlags& flags) {
  if (!flags.model.empty()) {
    ModelProvider p;
    std::string name;
    PULSE_RETURN_IF_ERROR(SplitModel(flags.model, &p, &name));
  }
  if (!flags.url.empty()) PULSE_RETURN_IF_ERROR(CheckUrl(flags.url, "--model-url").status());
  if (!flags.key_env.empty() && !IsEnvName(flags.key_env)) {
    return Status::InvalidArgument("--model-key-env: \"" + std::string(Utf8Prefix(flags.key_env, 80)) +
                                   "\" is not an environment variable name (letters, digits and _)");
  }
  if (flags.max_steps < 1 || flags.max_steps > 256) {
    return Status::InvalidArgument("--model-max-steps: " + std::to_string(flags.max_steps) + " is not within 1-256");
  }
  if (!std::isfinite(flags.timeout) || flags.timeout < 0.1 || flags.timeout > 3600) {
    return Status::InvalidArgument("--model-timeout: seconds within 0.1-3600");
  }
  return Status::OK();
}

Result<std::optional<ModelSpec>> ModelForWorkflow(const ModelFlags& flags, const json& workflow_raw) {
  PULSE_RETURN_IF_ERROR(CheckModelFlags(flags));
  ModelSpec spec;
  spec.max_steps = flags.max_steps;
  spec.timeout = flags.timeout;
  const json* pulse = workflow_raw.is_object() && workflow_raw.contains("pulse") ? &workflow_raw["pulse"] : nullptr;
  const json* over = pulse && pulse->is_object() && pulse->contains("model") ? &(*pulse)["model"] : nullptr;
  if (over && !over->is_null()) {
    if (!over->is_object()) return Status::InvalidArgument(std::string(kFromWorkflow) + ": must be an object {\"provider\", \"name\", \"url\"}");
    for (auto it = over->begin(); it != over->end(); ++it) {
      if (it.key() != "provider" && it.key() != "name" && it.key() != "url") {
        return Status::InvalidArgument(std::string(kFromWorkflow) + ": unknown key \"" +
                                       std::string(Utf8Prefix(it.key(), 40)) + "\" (provider, name, url)");
      }
    }
    Args a(kFromWorkflow, *over);
    std::string provider, url;
    PULSE_RETURN_IF_ERROR(a.Text("provider", &provider));
    PULSE_RETURN_IF_ERROR(a.Text("name", &spec.name));
    PULSE_RETURN_IF_ERROR(a.OptString("url", &url));
    Result<ModelProvider> p = ParseModelProvider(provider);
    if (!p.ok()) return p.status().WithContext(kFromWorkflow);
    spec.provider = *p;
    PULSE_RETURN_IF_ERROR(CheckName(spec.name, kFromWorkflow));
    PULSE_ASSIGN_OR_RETURN(spec.url, url.empty() ? Result<std::string>(OperatorUrl(flags, spec.provider))
                                                 : CheckUrl(url, kFromWorkflow));
    spec.source = kFromWorkflow;
  } else if (!flags.model.empty()) {
    PULSE_RETURN_IF_ERROR(SplitModel(flags.model, &spec.provider, &spec.name));
    spec.url = OperatorUrl(flags, spec.provider);
    spec.source = "--model";
  } else {
    return std::optional<ModelSpec>();
  }
  DecideKey(flags, &spec);
  return std::optional<ModelSpec>(spec);
}

std::vector<std::string> ModelKeyVariables(const ModelFlags& flags) {
  if (flags.model.empty()) return {};
  if (!flags.key_env.empty()) return {flags.key_env};
  return {DefaultModelKeyEnv(ModelProvider::kOpenAi), DefaultModelKeyEnv(ModelProvider::kAnthropic)};
}

}  // namespace pulse
