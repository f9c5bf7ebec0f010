// The clq program: parses the command line and runs one subcommand. Every
// clq::Error becomes one message on stderr and exit status 1; a usage error
// prints the subcommand's help and exits 2.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <iostream>

#include "clq_version.hpp"
#include "host/commands.hpp"
#include "runtime/cl_error.hpp"
#include "runtime/errors.hpp"

namespace {

const CLI::App* DeepestParsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return DeepestParsed(*sub);
  return &app;
}

}  // namespace

int main(int argc, char** argv) {
  // Keep freed memory for reuse: query results up to 32 MiB per column come
  // from the heap and stay mapped after they are freed, so the next query's
  // result does not fault in fresh pages (the largest share of a big result's
  // host time). glibc's default returns them to the system each time.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{
      "clq: an OpenCL query engine that runs the same relational pipelines on any "
      "OpenCL device",
      "clq"};
  app.set_version_flag("--version", std::string("clq ") + clq::kVersion);
  app.require_subcommand(1);
  clq::RegisterDevicesCommand(app);
  clq::RegisterBandwidthCommand(app);
  clq::RegisterQueryCommand(app);
  clq::RegisterGenCommand(app);
  clq::RegisterImportCommand(app);
  clq::RegisterBenchCommand(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; })
            .empty())
      message = std::string("unknown subcommand '") + argv[1] + "'";
    std::cerr << "clq: error: " << message << "\n\n" << DeepestParsed(app)->help();
    return 2;
  } catch (const clq::Error& e) {
    std::cerr << "clq: error: " << e.what() << "\n";
    return 1;
  } catch (const cl::Error& e) {
    std::cerr << "clq: error: " << clq::TranslateClError(e).what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "clq: error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "clq: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
