// Mutations of YAML text for the loaders' fuzz tests: the shared text mutator with the tokens
// YAML and the unit parsers give meaning to.
#pragma once

#include <string>
#include <vector>

#include "tests/support/fuzz_rng.hpp"
#include "tests/support/text_mutations.hpp"

namespace fathom::test {

// Bytes and tokens that YAML and the unit parsers give meaning to.
inline const std::vector<std::string> kTokens = {"\n",       "\t",     " ",
                                                 ":",        ": ",     "-",
                                                 "- ",       "[",      "]",
                                                 "{",        "}",      ",",
                                                 "#",        "&a ",    "*a",
                                                 "!",        "!!str ", "!!int ",
                                                 "|",        ">",      "'",
                                                 "\"",       "%",      "@",
                                                 "`",        "?",      "? ",
                                                 "$",        "\\",     std::string(1, '\0'),
                                                 "\xc2\xb5", "\xff",   "\xef\xbb\xbf",
                                                 "---\n",    "...\n",  "<<: ",
                                                 "~",        "null",   "yes",
                                                 "1e999",    "-0",     ".inf",
                                                 ".nan",     "0x1F",   "9999999999999999999999",
                                                 "GiB",      "Gbps",   "gb",
                                                 "us",       "%",      "/h",
                                                 "[[[[[[",   "{{{{",   "&a [*a]",
                                                 "*unknown"};

// The shared mutator (tests/support/text_mutations.hpp) with YAML's tokens.
inline std::string mutate(const std::string& in, FuzzRng& rng) { return mutate_text(in, rng, kTokens); }

}  // namespace fathom::test
