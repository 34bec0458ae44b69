// `parameter-table`: prints docs/parameters.md as the code declares it; with `--check FILE`,
// exits 1 (saying how to regenerate) when FILE differs.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "report/parameter_table.hpp"

int main(int argc, char** argv) {
  const std::string generated = fathom::report::parameter_tables_markdown();
  if (argc == 3 && std::string(argv[1]) == "--check") {
    std::ifstream in(argv[2]);
    std::stringstream text;
    text << in.rdbuf();
    if (text.str() == generated) return 0;
    std::fprintf(stderr,
                 "%s does not match the declared parameters: regenerate it with\n  build/tests/parameter-table > %s\n",
                 argv[2], argv[2]);
    return 1;
  }
  std::cout << generated;
  return 0;
}
