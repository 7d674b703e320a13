# Writes the version header (model/version.h.in -> OUT) with the source tree's git revision at build time, not at
# configure time: a build after a commit or an edit records the revision it was built from. The revision gets a
# "-dirty" suffix when tracked files differ from HEAD, so that records measured with an uncommitted experiment build
# say so. configure_file leaves OUT untouched when its content is unchanged, so nothing recompiles needlessly.
#   cmake -DSOURCE_DIR=... -DINPUT=... -DOUT=... -DPROJECT_VERSION=... -P write_version.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE LCAB_GIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rev_failed)
if(rev_failed OR NOT LCAB_GIT_SHA)
  set(LCAB_GIT_SHA unknown)
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE dirty
                  OUTPUT_QUIET ERROR_QUIET)
  if(dirty EQUAL 1)
    string(APPEND LCAB_GIT_SHA "-dirty")
  endif()
endif()
configure_file(${INPUT} ${OUT} @ONLY)
