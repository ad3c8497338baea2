# Writes OUT, a C++ file holding the page template's files (src/render/page/) as strings,
# so the CLI's --format html and `make web` fill the same page (the script is worker.js and
# hover.js, then page.js, which uses them). Run by a build step:
#   cmake -DPAGE_DIR=... -DOUT=... -P embed_page.cmake
set(body "// Generated from src/render/page/ by cmake/embed_page.cmake. Do not edit.\n")
string(APPEND body "#include \"render/page.h\"\n\nnamespace attn {\n\n")
foreach(pair "html;kPageHtml" "css;kPageCss" "js;kPageJs")
  list(GET pair 0 ext)
  list(GET pair 1 var)
  file(READ "${PAGE_DIR}/page.${ext}" text)
  if(ext STREQUAL "js")
    file(READ "${PAGE_DIR}/worker.js" worker)
    file(READ "${PAGE_DIR}/hover.js" hover)
    set(text "${worker}\n${hover}\n${text}")
  endif()
  string(FIND "${text}" ")ATTNPAGE\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "page.${ext} contains the string delimiter )ATTNPAGE\"")
  endif()
  string(APPEND body "extern const char* const ${var};\nconst char* const ${var} = R\"ATTNPAGE(${text})ATTNPAGE\";\n\n")
endforeach()
string(APPEND body "}  // namespace attn\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
