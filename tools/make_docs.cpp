// make docs: writes the generated parts of the docs (src/cli/docs.h) into the repository.
//
//   make_docs ROOT            rewrite each file whose generated part differs; list them
//   make_docs ROOT --check    write nothing; exit 1 naming each file that differs
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "cli/docs.h"

int main(int argc, char** argv) {
  if (argc < 2 || (argc == 3 && std::string(argv[2]) != "--check") || argc > 3) {
    std::cerr << "usage: make_docs ROOT [--check]\n";
    return 2;
  }
  const std::string root = argv[1];
  const bool check = argc == 3;
  std::map<std::string, std::string> files;  // each file's text with every region in place
  std::map<std::string, std::string> before;
  try {
    for (const auto& doc : attn::generated_docs()) {
      if (!files.count(doc.file)) {
        std::ifstream in(root + "/" + doc.file, std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        files[doc.file] = before[doc.file] = ss.str();
      }
      files[doc.file] = attn::with_generated(files[doc.file], doc);
    }
  } catch (const std::exception& e) {
    std::cerr << "make_docs: " << e.what() << "\n";
    return 1;
  }
  int differ = 0;
  for (const auto& [file, text] : files) {
    if (text == before[file]) continue;
    ++differ;
    if (check) {
      std::cerr << "make_docs: " << file << " differs from what the options generate (run make docs)\n";
    } else {
      std::ofstream(root + "/" + file, std::ios::binary) << text;
      std::cout << "make_docs: wrote " << file << "\n";
    }
  }
  return check && differ ? 1 : 0;
}
