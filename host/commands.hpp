// The clq subcommands. Each Register* adds one subcommand with its options to
// the application; the subcommand's callback does the work and throws
// clq::Error for anything the user must fix.
#pragma once

#include <CLI/CLI.hpp>

namespace clq {

void RegisterDevicesCommand(CLI::App& app);
void RegisterBandwidthCommand(CLI::App& app);
void RegisterQueryCommand(CLI::App& app);
void RegisterGenCommand(CLI::App& app);
void RegisterImportCommand(CLI::App& app);
void RegisterBenchCommand(CLI::App& app);

}  // namespace clq
