// libFuzzer target: the YAML experiment loader (roles/experiment/experiment.h load_config) on
// arbitrary file contents. The input is written to a file in /dev/shm (load_config reads a
// path) and loaded. Properties: only config::ConfigError is thrown (bad YAML names the key
// and the file); an accepted configuration survives its own round trip (to_yaml, then
// load_config of that text, gives the same to_yaml: the header's promise).

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "roles/experiment/experiment.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

std::string scratch(const char* what) {
  return "/dev/shm/gfn_config_fuzz_" + std::to_string(::getpid()) + "_" + what + ".yaml";
}

void write(const std::string& path, const char* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data, static_cast<std::streamsize>(size));
  FUZZ_CHECK(out.good());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string input = scratch("input");
  static const std::string round = scratch("round");
  write(input, reinterpret_cast<const char*>(data), size);
  std::string text;
  try {
    text = gfn::roles::to_yaml(gfn::roles::load_config(input));
  } catch (const gfn::config::ConfigError& e) {
    FUZZ_CHECK(std::string(e.what()).find(input) != std::string::npos ||
               std::string(e.what()).find("config") != std::string::npos);
    return 0;
  }
  write(round, text.data(), text.size());
  std::string again;
  try {
    again = gfn::roles::to_yaml(gfn::roles::load_config(round));
  } catch (const gfn::config::ConfigError& e) {
    std::fprintf(stderr, "round trip refused: %s\n", e.what());
    FUZZ_CHECK(!"the loader refuses its own to_yaml output");
  }
  FUZZ_CHECK(again == text);
  return 0;
}
