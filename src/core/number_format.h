// Whole numbers as the texts and tables write them, for stages (their texts' vars) and
// renderers (exercise 3.3's parameter table) alike.
#pragma once

#include <cstdint>
#include <string>

namespace attn {

// 2360064 -> "2,360,064"
std::string grouped(int64_t n);

}  // namespace attn
