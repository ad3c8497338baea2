// What the tests of `attn-walk check` share (test_check.cpp, test_check_diagnoses.cpp,
// test_check_training.cpp): where its goldens are, and reading a report's diagnoses.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "check/check.h"
#include "test_util.h"

namespace attn::test {

// tests/golden/check/: learners' dumps made by real PyTorch (make_check_goldens.py).
inline const std::string kCheckDir = tests_dir() + "/golden/check/";

inline bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The evidence of diagnosis `id` in the report (empty if it is not named).
inline std::map<std::string, std::string> evidence_of(const CheckReport& r, const std::string& id) {
  for (size_t i = 0; i < r.diagnoses.size(); ++i)
    if (r.diagnoses[i] == id) return r.evidence.at(i);
  return {};
}

}  // namespace attn::test
