// attn-walk-page ENGINE.js ENGINE.wasm.gz OUT.html: the web page of `make web`, the same page
// as --format html (render_page) with the WebAssembly engine in it instead of a walk: its
// loader, and its wasm gzip-compressed (the page inflates it with the browser's own
// DecompressionStream; base64 of the compressed wasm is about half the size of the plain one).
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/output.h"
#include "render/page.h"
#include "web/page_data.h"

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(std::string("cannot read ") + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: attn-walk-page ENGINE.js ENGINE.wasm.gz OUT.html\n";
    return 2;
  }
  try {
    attn::PageParts parts;
    parts.title = "attn-walk";
    parts.data_json = attn::page_data_json({}, attn::RenderOptions{}, true);
    parts.engine_js = read_file(argv[1]);
    parts.engine_wasm = read_file(argv[2]);
    if (parts.engine_wasm.size() < 2 || parts.engine_wasm[0] != '\x1f' || parts.engine_wasm[1] != '\x8b')
      throw std::runtime_error(std::string(argv[2]) + " is not gzip-compressed");
    attn::write_output(argv[3], attn::render_page(parts));
  } catch (const std::exception& e) {
    std::cerr << "attn-walk-page: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
