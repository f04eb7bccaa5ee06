# Turns the digits model and its data (platforms/k210/digits) into a C++ table so that the default
# `npusim run` needs no file at hand. Invoked at build time:
#   cmake -DOUT=... -DFILES="a;b" -P embed_binary.cmake
set(body "")
set(table "")
set(i 0)
foreach(f IN LISTS FILES)
  file(READ "${f}" hex HEX)
  string(LENGTH "${hex}" n)
  math(EXPR bytes "${n} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  get_filename_component(name "${f}" NAME)
  string(APPEND body "const unsigned char blob_${i}[] = {${hex}};\n")
  string(APPEND table "    {\"${name}\", blob_${i}, ${bytes}},\n")
  math(EXPR i "${i} + 1")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from platforms/k210/digits by sim/app/embed_binary.cmake; do not edit.\n"
  "#include \"sim/app/embedded.h\"\n\nnamespace npu::app {\n\nnamespace {\n${body}}  // namespace\n\n"
  "const std::vector<EmbeddedBlob>& embedded_digits() {\n"
  "  static const std::vector<EmbeddedBlob> files = {\n${table}  };\n  return files;\n}\n\n"
  "}  // namespace npu::app\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
