# Turns configs/*.yaml into a C++ table so that npusim needs no file at hand for its built-in
# platforms and jobs. Invoked at build time: cmake -DOUT=... -DFILES="a;b" -P embed_configs.cmake
set(body "")
foreach(f IN LISTS FILES)
  file(READ "${f}" text)
  get_filename_component(name "${f}" NAME)
  string(APPEND body "    {\"${name}\", R\"npusim_embed(${text})npusim_embed\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from configs/ by cmake/embed_configs.cmake; do not edit.\n"
  "#include \"configs/embedded.h\"\n\nnamespace npu::configs {\n\n"
  "const std::vector<EmbeddedFile>& embedded() {\n"
  "  static const std::vector<EmbeddedFile> files = {\n${body}  };\n  return files;\n}\n\n"
  "}  // namespace npu::configs\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
