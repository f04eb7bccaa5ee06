# The include rules of docs/architecture.md, checked on every source file: each folder may include
# only the folders below it. Run by ctest (layering.include_rules):
#   cmake -DSOURCE_DIR=... -P check_layering.cmake
# A violation prints "file:line: includes X; FOLDER may include only ..." and fails.

# Folder prefix -> allowed include prefixes. The first matching prefix wins (most specific first).
# "models/*/" stands for the file's own model folder: a model includes no other model (a
# platform composes them).
set(rules
  "sim/core/=sim/core/"
  "sim/tlm/=sim/core/,sim/tlm/"
  "sim/onnx/=sim/core/,sim/onnx/"
  "sim/report/=sim/core/,sim/report/"
  "sim/campaign/=sim/core/,sim/campaign/"
  "sim/regress/=sim/core/,sim/regress/"
  "configs/=sim/core/,configs/"
  "models/=sim/core/,sim/tlm/,models/*/"
  "platforms/common/=sim/,platforms/common/"
  "platforms/k210/kmodel/=sim/core/,models/k210_kpu/,platforms/k210/kmodel/"
  "platforms/k210/compiler/=sim/core/,sim/onnx/,models/k210_kpu/,platforms/k210/kmodel/,platforms/k210/compiler/"
  "platforms/k210/soc/=sim/,models/,platforms/common/,platforms/k210/kmodel/,platforms/k210/soc/"
  "platforms/k210/firmware/=sim/,models/,platforms/common/,platforms/k210/kmodel/,platforms/k210/soc/,platforms/k210/firmware/"
  "platforms/k210/=sim/,models/,configs/,platforms/common/,platforms/k210/"
  "platforms/dlp/=sim/,models/,configs/,platforms/common/,platforms/dlp/"
  "platforms/ascend/=sim/,models/,configs/,platforms/common/,platforms/ascend/"
  "platforms/selfcheck/=sim/,models/,configs/,platforms/common/,platforms/selfcheck/"
  "platforms/finn/=sim/,models/,configs/,platforms/common/,platforms/finn/"
  "platforms/kl730/=sim/core/,models/kl730/,platforms/kl730/"
  "platforms/registry.cpp=sim/core/,platforms/"
  "app/=sim/,configs/,platforms/common/,platforms/kl730/layout_tool.h,app/"
  "python/=sim/,configs/,platforms/common/,platforms/kl730/layout_tool.h,app/")

file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}
     ${SOURCE_DIR}/sim/*.h ${SOURCE_DIR}/sim/*.cpp ${SOURCE_DIR}/models/*.h
     ${SOURCE_DIR}/models/*.cpp ${SOURCE_DIR}/platforms/*.h ${SOURCE_DIR}/platforms/*.cpp
     ${SOURCE_DIR}/configs/*.h ${SOURCE_DIR}/configs/*.cpp ${SOURCE_DIR}/app/*.h
     ${SOURCE_DIR}/app/*.cpp ${SOURCE_DIR}/python/*.cpp)
set(violations 0)
set(checked 0)
foreach(src IN LISTS sources)
  set(allowed "")
  set(folder "")
  foreach(rule IN LISTS rules)
    string(REPLACE "=" ";" parts "${rule}")
    list(GET parts 0 prefix)
    string(FIND "${src}" "${prefix}" at)
    if(at EQUAL 0)
      list(GET parts 1 allowed)
      set(folder "${prefix}")
      break()
    endif()
  endforeach()
  if(folder STREQUAL "")
    message(SEND_ERROR "${src}: no include rule covers this folder (cmake/check_layering.cmake)")
    math(EXPR violations "${violations} + 1")
    continue()
  endif()
  # models/*/: the model folder the file is in.
  string(REGEX MATCH "^models/[^/]+/" own_model "${src}")
  string(REPLACE "models/*/" "${own_model}" allowed "${allowed}")
  string(REPLACE "," ";" allowed_list "${allowed}")
  file(STRINGS ${SOURCE_DIR}/${src} lines REGEX "^#include \"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
    # Only our own tree's headers are ruled; a header beside the file (no folder) is its own.
    if(NOT inc MATCHES "^(sim|models|platforms|configs|tests|app|python)/")
      continue()
    endif()
    math(EXPR checked "${checked} + 1")
    set(ok FALSE)
    foreach(a IN LISTS allowed_list)
      string(FIND "${inc}" "${a}" at)
      if(at EQUAL 0)
        set(ok TRUE)
        break()
      endif()
    endforeach()
    if(NOT ok)
      message("${src}: includes ${inc}; ${folder} may include only ${allowed}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH sources n)
if(violations GREATER 0)
  message(FATAL_ERROR "${violations} include-rule violations in ${n} files")
endif()
message("include rules hold: ${checked} includes in ${n} files")
