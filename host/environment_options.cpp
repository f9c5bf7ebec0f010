#include "host/environment_options.hpp"

#include <cstdlib>

#include "common/errors.hpp"
#include "host/available_memory.hpp"

namespace clq {
namespace {

const char* Variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

// Applies $`variable` as option `option`, naming the variable in errors.
void FromVariable(Options& options, const char* variable, const char* option) {
  const char* value = Variable(variable);
  if (value == nullptr) return;
  try {
    options.Set(option, value);
  } catch (const InvalidInputError& error) {
    throw InvalidInputError(std::string(variable) + ": " + error.what());
  }
}

}  // namespace

Options OptionsFromEnvironment(const std::vector<std::string>& settings) {
  Options options;
  options.engine.cache_directory = DefaultCacheDirectory();
  // Read once: the budget is what the machine had to give when clq started.
  options.query.host_memory = AvailableHostMemory();
  options.engine.host_memory = options.query.host_memory;
  FromVariable(options, "CLQ_WG_SIZE", "wg_size");
  FromVariable(options, "CLQ_IPT", "ipt");
  FromVariable(options, "CLQ_KERNEL_PATHS", "kernel_paths");
  FromVariable(options, "CLQ_BUILD_OPTIONS", "build_options");
  FromVariable(options, "CLQ_SYNC", "sync");
  FromVariable(options, "CLQ_PRINT_BUILD_LOG", "print_build_log");
  FromVariable(options, "CLQ_TABLET_ROWS", "tablet_rows");
  if (const char* more = Variable("CLQ_OPTIONS")) {
    const std::string text = more;
    for (std::size_t begin = 0; begin <= text.size();) {
      std::size_t end = text.find(',', begin);
      if (end == std::string::npos) end = text.size();
      if (end > begin) {
        try {
          options.Set(std::string_view(text).substr(begin, end - begin));
        } catch (const InvalidInputError& error) {
          throw InvalidInputError(std::string("CLQ_OPTIONS: ") + error.what());
        }
      }
      begin = end + 1;
    }
  }
  for (const std::string& setting : settings)
    options.Set(setting);
  return options;
}

std::string DefaultSelector() {
  const char* value = std::getenv("CLQ_DEVICE");
  return value != nullptr ? std::string(value) : std::string();
}

std::string PythonInterpreter() {
  const char* value = std::getenv("CLQ_PYTHON");
  return value != nullptr && *value != '\0' ? std::string(value) : std::string("python3");
}

std::filesystem::path DefaultCacheDirectory() {
  if (const char* dir = Variable("CLQ_CACHE_DIR")) return dir;
  if (const char* xdg = Variable("XDG_CACHE_HOME")) return std::filesystem::path(xdg) / "clq";
  if (const char* home = Variable("HOME")) return std::filesystem::path(home) / ".cache" / "clq";
  return {};
}

}  // namespace clq
