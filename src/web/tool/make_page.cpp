// attn-walk-page ENGINE.js OUT.html: the web page of `make web`, the same page as
// --format html (render_page) with the WebAssembly engine in it instead of a walk.
#include <fstream>
#include <iostream>
#include <sstream>

#include "output.h"
#include "render/page.h"
#include "web/page_data.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: attn-walk-page ENGINE.js OUT.html\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "attn-walk-page: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::ostringstream engine;
  engine << in.rdbuf();
  attn::PageParts parts;
  parts.title = "attn-walk";
  parts.data_json = attn::page_data_json({}, attn::Lang::En, true);
  parts.engine_js = engine.str();
  try {
    attn::write_output(argv[2], attn::render_page(parts));
  } catch (const std::exception& e) {
    std::cerr << "attn-walk-page: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
