# Fails when an include crosses a room's door the wrong way (README.md, "Where
# things are"): isolate/ uses no other room; transport/ may use isolate/; runtime/
# may use both; the installed headers (include/coreactor/) use nothing but
# themselves. Every room may use the installed headers.
#
#   cmake -DROOT=<source tree> -P IncludeDirections.cmake
#
# An include is resolved as the compiler would: "coreactor/..." is an
# installed header; "isolate/...", "transport/...", "runtime/..." name that
# room; anything else is relative to the including file.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P IncludeDirections.cmake")
endif()

set(_allowed_isolate isolate public)
set(_allowed_transport transport isolate public)
set(_allowed_runtime runtime transport isolate public)
set(_allowed_public public)

# The room of a path relative to ROOT, or "" for none of them.
function(room_of path out)
  if(path MATCHES "^include/coreactor/")
    set(${out} public PARENT_SCOPE)
  elseif(path MATCHES "^(isolate|transport|runtime)/")
    set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(_violations 0)
file(GLOB_RECURSE _files RELATIVE ${ROOT}
  ${ROOT}/isolate/*.hpp ${ROOT}/isolate/*.cpp
  ${ROOT}/transport/*.hpp ${ROOT}/transport/*.ipp ${ROOT}/transport/*.cpp
  ${ROOT}/runtime/*.hpp ${ROOT}/runtime/*.cpp
  ${ROOT}/include/coreactor/*.hpp)
foreach(_file IN LISTS _files)
  room_of(${_file} _from)
  file(STRINGS ${ROOT}/${_file} _lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  get_filename_component(_dir ${_file} DIRECTORY)
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" _inc "${_line}")
    if(_inc MATCHES "^coreactor/")
      set(_target "include/${_inc}")
    elseif(_inc MATCHES "^(isolate|transport|runtime)/")
      set(_target "${_inc}")
    else()
      cmake_path(SET _joined NORMALIZE "${_dir}/${_inc}")
      set(_target "${_joined}")
    endif()
    room_of(${_target} _to)
    if(_to STREQUAL "")
      continue()  # a file of no room (a test helper, a generated file)
    endif()
    if(NOT _to IN_LIST _allowed_${_from})
      message(SEND_ERROR "${_file} (${_from}) includes \"${_inc}\" (${_to}): "
                         "${_from} may use only ${_allowed_${_from}}")
      math(EXPR _violations "${_violations} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH _files _count)
if(_violations GREATER 0)
  message(FATAL_ERROR "${_violations} include(s) against the rooms' directions")
endif()
message(STATUS "include directions: ${_count} files, every include goes the allowed way")
