// One mutator for every parser's fuzz test: byte edits (replace, bit flip, insert random
// bytes), cuts, repeated and deleted runs, tokens the format gives meaning to (the caller's
// list), and whole lines swapped, repeated or dropped. Deterministic for a given FuzzRng.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/fuzz_rng.hpp"

namespace fathom::test {

// Swaps two lines, repeats one before another, or drops one (a third each).
inline void mutate_lines(std::string& s, FuzzRng& rng) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t end = s.find('\n', start);
    lines.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const std::size_t a = rng.below(lines.size());
  const std::size_t b = rng.below(lines.size());
  const std::size_t kind = rng.below(3);
  if (kind == 0) {
    std::swap(lines[a], lines[b]);
  } else if (kind == 1) {
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(b), lines[a]);
  } else if (lines.size() > 1) {
    lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(a));
  }
  s.clear();
  for (std::size_t i = 0; i < lines.size(); ++i) s += (i > 0 ? "\n" : "") + lines[i];
}

// One to four edits of `in`; `tokens` are the pieces the format gives meaning to.
inline std::string mutate_text(const std::string& in, FuzzRng& rng, const std::vector<std::string>& tokens) {
  std::string s = in;
  const std::size_t edits = 1 + rng.below(4);
  for (std::size_t e = 0; e < edits; ++e) {
    switch (rng.below(9)) {
      case 0:  // replace a byte
        if (!s.empty()) s[rng.below(s.size())] = static_cast<char>(rng.below(256));
        break;
      case 1:  // flip a bit
        if (!s.empty()) s[rng.below(s.size())] ^= static_cast<char>(1 << rng.below(8));
        break;
      case 2:  // cut the end off
        s.resize(rng.below(s.size() + 1));
        break;
      case 3: {  // repeat a piece somewhere else
        const std::string piece = s.substr(rng.below(s.size() + 1), 1 + rng.below(64));
        s.insert(rng.below(s.size() + 1), piece);
        break;
      }
      case 4:  // delete a run of bytes
        if (!s.empty()) s.erase(rng.below(s.size()), 1 + rng.below(16));
        break;
      case 5:  // insert a token
        s.insert(rng.below(s.size() + 1), tokens[rng.below(tokens.size())]);
        break;
      case 6:  // insert a few random bytes
        for (std::size_t i = 0, n = 1 + rng.below(3); i < n; ++i)
          s.insert(rng.below(s.size() + 1), 1, static_cast<char>(rng.below(256)));
        break;
      default:  // swap, repeat or drop whole lines
        mutate_lines(s, rng);
    }
  }
  return s;
}

}  // namespace fathom::test
