// Mutations of YAML text for the loaders' fuzz tests: byte edits, truncation, duplicated
// ranges, and the tokens YAML and the unit parsers give meaning to.
#pragma once

#include <string>
#include <vector>

#include "tests/support/fuzz_rng.hpp"

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

inline std::string mutate(const std::string& in, FuzzRng& rng) {
  std::string s = in;
  const std::size_t edits = 1 + rng.below(4);
  for (std::size_t e = 0; e < edits; ++e) {
    const std::size_t pos = rng.below(s.size() + 1);
    switch (rng.below(7)) {
      case 0:  // replace a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.below(256));
        break;
      case 1:  // flip a bit
        if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1 << rng.below(8));
        break;
      case 2:  // truncate
        s.resize(rng.below(s.size() + 1));
        break;
      case 3: {  // duplicate a range somewhere else
        const std::size_t start = rng.below(s.size() + 1);
        const std::string piece = s.substr(start, 1 + rng.below(64));
        s.insert(rng.below(s.size() + 1), piece);
        break;
      }
      case 4:  // insert a token
        s.insert(pos, kTokens[rng.below(kTokens.size())]);
        break;
      case 5:  // delete a range
        s.erase(pos, 1 + rng.below(16));
        break;
      default:  // insert a few random bytes
        for (std::size_t i = 0, n = 1 + rng.below(3); i < n; ++i)
          s.insert(rng.below(s.size() + 1), 1, static_cast<char>(rng.below(256)));
    }
  }
  return s;
}

}  // namespace fathom::test
