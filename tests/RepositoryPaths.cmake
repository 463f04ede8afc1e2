# Fails when a comment, a doc or a build file names a path of the repository
# that does not exist (a file moved to another room, a guide renamed), so
# that a reader sent to runtime/<name>.hpp or docs/<name>.md finds it there.
#
#   cmake -DROOT=<source tree> -P RepositoryPaths.cmake
#
# Read: the sources (*.hpp, *.cpp, *.ipp, *.h), the CMake files
# (CMakeLists.txt, *.cmake, *.in), every *.md, and scripts/* and .ci/*.
# Not read: build trees (only the top-level folders below are walked) and
# the fixture trees under tests/ (EXCLUDE), each a source tree of its own.
#
# A path is a token that starts with one of the top-level folders (TOPS)
# and a slash, after a character that cannot be part of a path (so
# ../docs/x.md and share/doc/coreactor/x.md are not read as paths of this
# tree); a trailing dot or dash is punctuation. It leads somewhere when,
# from ROOT:
#   - it names a file or folder (a folder when it ends with a slash);
#   - its last part has no extension and names a file's stem (runtime/<Name>
#     for runtime/<Name>.hpp and runtime/<Name>.cpp);
#   - in a CMake file, it names one from that file's folder, as CMake reads
#     a source list (tests/CMakeLists.txt's runtime/AskTest.cpp).
# A token with *, <, {, $ or ... is a pattern or a placeholder and is not
# checked. coreactor/<name>.hpp is an installed header: include/coreactor/.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source tree> -P RepositoryPaths.cmake")
endif()

set(TOPS include isolate transport runtime tests bench examples docs scripts cmake)
set(EXCLUDE tests/include-directions tests/repository-paths)

# The files to read: the root's own (not recursively: a build tree, or a
# worktree scripts/bench-ab keeps under build/, is no part of this one) and
# everything below the top-level folders.
file(GLOB _all RELATIVE ${ROOT} ${ROOT}/*.md ${ROOT}/CMakeLists.txt ${ROOT}/.ci/*)
set(_globs)
foreach(_top IN LISTS TOPS)
  list(APPEND _globs ${ROOT}/${_top}/*)
endforeach()
file(GLOB_RECURSE _below RELATIVE ${ROOT} ${_globs})
list(APPEND _all ${_below})
set(_files)
foreach(_file IN LISTS _all)
  set(_skip FALSE)
  foreach(_excluded IN LISTS EXCLUDE)
    string(FIND "${_file}" "${_excluded}/" _at)
    if(_at EQUAL 0)
      set(_skip TRUE)
      break()
    endif()
  endforeach()
  if(NOT _skip AND (_file MATCHES "\\.(hpp|cpp|ipp|h|cmake|in|md)$|(^|/)CMakeLists\\.txt$|^(scripts|\\.ci)/"))
    list(APPEND _files ${_file})
  endif()
endforeach()

# Whether TOKEN (relative to ROOT, or to FROM_DIR when given) leads somewhere.
function(leads_somewhere token from_dir out)
  set(${out} TRUE PARENT_SCOPE)
  foreach(_base IN ITEMS "${ROOT}" "${from_dir}")
    if(_base STREQUAL "")
      continue()
    endif()
    if(token MATCHES "/$")
      if(IS_DIRECTORY "${_base}/${token}")
        return()
      endif()
    elseif(EXISTS "${_base}/${token}")
      return()
    elseif(NOT token MATCHES "\\.[^/]*$")
      file(GLOB _stems "${_base}/${token}.*")
      if(_stems)
        return()
      endif()
    endif()
  endforeach()
  set(${out} FALSE PARENT_SCOPE)
endfunction()

string(JOIN "|" _tops_alternation ${TOPS})
set(_path_chars "A-Za-z0-9_./*<{$-")
set(_stale 0)
foreach(_file IN LISTS _files)
  file(READ ${ROOT}/${_file} _text)
  # Every character that cannot be part of a path becomes a space; what is
  # left after a space (or a '<') is a token.
  string(REGEX REPLACE "[^${_path_chars}]" " " _text " ${_text}")
  string(REGEX MATCHALL "[ <](${_tops_alternation}|coreactor)/[${_path_chars}]*" _tokens "${_text}")
  list(REMOVE_DUPLICATES _tokens)
  set(_from_dir "")
  if(_file MATCHES "(^|/)CMakeLists\\.txt$|\\.cmake$")
    get_filename_component(_from_dir ${ROOT}/${_file} DIRECTORY)
  endif()
  foreach(_token IN LISTS _tokens)
    string(SUBSTRING "${_token}" 1 -1 _token)
    if(_token MATCHES "[*<{$]" OR _token MATCHES "\\.\\.\\.")
      continue()
    endif()
    string(REGEX REPLACE "[.-]+$" "" _token "${_token}")
    set(_path "${_token}")
    if(_token MATCHES "^coreactor/")
      if(NOT _token MATCHES "\\.hpp$")
        continue()  # "coreactor/CAF": the project's name in prose
      endif()
      set(_path "include/${_token}")
    endif()
    set(_key "${_from_dir}|${_path}")
    if(NOT DEFINED _known_${_key})
      leads_somewhere("${_path}" "${_from_dir}" _known_${_key})
    endif()
    if(NOT _known_${_key})
      message(SEND_ERROR "${_file} names ${_token}, which does not exist")
      math(EXPR _stale "${_stale} + 1")
    endif()
  endforeach()
endforeach()
list(LENGTH _files _count)
if(_stale GREATER 0)
  message(FATAL_ERROR "${_stale} path(s) that lead nowhere")
endif()
message(STATUS "repository paths: ${_count} files, every path they name exists")
