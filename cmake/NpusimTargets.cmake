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

# Precompiled headers (build time: most translation units include these; nlohmann/json.hpp alone
# costs seconds each, SystemC about two). Three are built, for pure libraries, for libraries with
# SystemC and for test executables, each once per build and reused by the targets of its kind
# (npusim_pch); a source whose flags differ (-O2, -mavx2, -ffp-contract) skips it, since GCC would
# refuse the header (-Winvalid-pch, an error with -Werror). NPUSIM_PCH=OFF builds without (the
# fuzz preset: clang).
option(NPUSIM_PCH "Precompiled headers for the common library headers" ON)
# Not fmt: its `#pragma GCC push_options` / `optimize("Og")` comes back out of a GCC 12
# precompiled header as __OPTIMIZE__ defined in -O0 code (Eigen's SSE prefetch then fails).
set(NPUSIM_PCH_HEADERS <algorithm> <functional> <map> <memory> <string> <vector>
    <nlohmann/json.hpp>)

# The two owners; called after every global compile option is set (the sanitizers).
function(npusim_pch_owners)
  if(NOT NPUSIM_PCH)
    return()
  endif()
  foreach(kind pure sc test)
    add_library(npusim_pch_${kind} OBJECT ${PROJECT_SOURCE_DIR}/cmake/pch.cpp)
    # No compile definitions: GCC uses a header only where every macro it was built with is
    # defined (fmt::fmt brings FMT_SHARED); json.hpp and the standard headers read none of ours.
    npusim_warnings(npusim_pch_${kind})
  endforeach()
  target_precompile_headers(npusim_pch_pure PRIVATE ${NPUSIM_PCH_HEADERS})
  # Test executables are compiled -fPIE where libraries are -fPIC, and GCC refuses a header built
  # with the other: their owner and they themselves take the compiler's default (npusim_test).
  target_precompile_headers(npusim_pch_test PRIVATE ${NPUSIM_PCH_HEADERS})
  set_target_properties(npusim_pch_test PROPERTIES POSITION_INDEPENDENT_CODE OFF)
  target_precompile_headers(npusim_pch_sc PRIVATE ${NPUSIM_PCH_HEADERS} <systemc> <tlm>)
  target_link_libraries(npusim_pch_sc PRIVATE PkgConfig::SYSTEMC)
endfunction()

# `target` reuses the precompiled headers of its kind (pure, sc or test).
function(npusim_pch target kind)
  if(NPUSIM_PCH)
    target_precompile_headers(${target} REUSE_FROM npusim_pch_${kind})
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
  npusim_pch(${target} pure)
endfunction()

# A library that models hardware with SystemC/TLM.
function(npusim_sc_library target)
  add_library(${target} STATIC ${ARGN})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${target} PUBLIC PkgConfig::SYSTEMC)
  npusim_warnings(${target})
  npusim_pch(${target} sc)
endfunction()
