# Helpers that give every npusim target the same warnings and that enforce the layering of
# DESIGN.md: a "pure" library (sim/core, models/*/..._func/_cost/_config) must not use SystemC.

set(NPUSIM_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual -Wconversion -Wsign-conversion -Wnull-dereference
    -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)

function(npusim_warnings target)
  target_compile_options(${target} PRIVATE ${NPUSIM_WARNINGS})
  if(NPUSIM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# A library that may not include or link SystemC. The poison directory comes first on the include
# path and holds <systemc>, <systemc.h>, <tlm>, <tlm.h> headers that #error, so a stray include fails
# the build with a message instead of silently pulling the kernel into a pure layer.
function(npusim_pure_library target)
  add_library(${target} STATIC ${ARGN})
  target_include_directories(${target} BEFORE PRIVATE ${PROJECT_SOURCE_DIR}/cmake/poison)
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  npusim_warnings(${target})
endfunction()

# A library that models hardware with SystemC/TLM.
function(npusim_sc_library target)
  add_library(${target} STATIC ${ARGN})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC PkgConfig::SYSTEMC)
  npusim_warnings(${target})
endfunction()
