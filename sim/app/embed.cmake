# Turns configs/*.yaml into a C++ table so that `npusim run` works with no files at hand.
# Invoked at build time: cmake -DOUT=... -DFILES="a;b" -P embed.cmake
set(body "")
foreach(f IN LISTS FILES)
  file(READ "${f}" text)
  get_filename_component(name "${f}" NAME)
  string(APPEND body "    {\"${name}\", R\"npusim_embed(${text})npusim_embed\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from configs/ by sim/app/embed.cmake; do not edit.\n"
  "#include \"sim/app/embedded.h\"\n\nnamespace npu::app {\n\n"
  "const std::vector<EmbeddedFile>& embedded_configs() {\n"
  "  static const std::vector<EmbeddedFile> files = {\n${body}  };\n  return files;\n}\n\n"
  "}  // namespace npu::app\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
