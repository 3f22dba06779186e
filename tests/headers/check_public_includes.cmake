# Fails when a header outside a detail/ folder (the solvers' public headers,
# fft/, core/, distributed/, include/portasolve/) includes one inside it: the
# internals stay behind the public headers.
#   cmake -DSOURCE_DIR=<repository> -P check_public_includes.cmake
file(GLOB _headers ${SOURCE_DIR}/include/portasolve/*.hpp ${SOURCE_DIR}/solvers/*/*.hpp ${SOURCE_DIR}/fft/*.hpp
     ${SOURCE_DIR}/core/*.hpp ${SOURCE_DIR}/distributed/*.hpp)
list(LENGTH _headers _count)
if(_count LESS 20)
  message(FATAL_ERROR "check_public_includes: only ${_count} headers found under ${SOURCE_DIR}")
endif()
set(_bad "")
foreach(_header IN LISTS _headers)
  file(STRINGS ${_header} _lines REGEX "^[ \t]*#[ \t]*include[ \t]+[\"<][^\">]*/detail/")
  foreach(_line IN LISTS _lines)
    file(RELATIVE_PATH _name ${SOURCE_DIR} ${_header})
    string(APPEND _bad "  ${_name}: ${_line}\n")
  endforeach()
endforeach()
if(_bad)
  message(FATAL_ERROR "public headers include internal (detail/) ones; include them from .cpp files:\n${_bad}")
endif()
message(STATUS "check_public_includes: ${_count} public headers, none includes a detail/ header")
