# Writes OUTPUT, a header defining GFN_HARNESS_GIT_COMMIT: the commit of the checkout at
# SOURCE_DIR ("-dirty" when tracked files have uncommitted changes), or "unknown" outside
# git. Run at every build (tools/CMakeLists.txt, target gfn_harness_git_commit); the file
# is rewritten only when the text changes, so only tools/common/harness/machine.cc
# recompiles after a commit.
set(commit "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(rc EQUAL 0 AND head)
    set(commit "${head}")
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain
                            --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND changes)
      string(APPEND commit "-dirty")
    endif()
  endif()
endif()
set(text "#pragma once\n#define GFN_HARNESS_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE ${OUTPUT} "${text}")
endif()
