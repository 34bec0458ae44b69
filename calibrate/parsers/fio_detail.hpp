// Internal to the fio parsers.
#pragma once

#include <string>
#include <string_view>

namespace fathom::calib::detail {

// "read", "write" or "trim" for a one-direction rw mode; "" for mixed modes (rw, randrw, ...).
std::string fio_direction(const std::string& rw);

bool is_fio_rw(std::string_view rw);

}  // namespace fathom::calib::detail
