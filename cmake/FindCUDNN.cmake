# FindCUDNN: the cuDNN library and headers (cuDNN 9: cudnn.h, cudnn_graph.h, libcudnn).
#
# Looks in CUDNN_ROOT, $ENV{CUDNN_ROOT}, the CUDA toolkit and the system paths. Defines CUDNN_FOUND, CUDNN_VERSION
# (read from cudnn_version.h) and the imported target CUDNN::cudnn.
include(FindPackageHandleStandardArgs)

set(_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND _cudnn_hints ${CUDAToolkit_LIBRARY_ROOT})
endif()
if(CUDAToolkit_TARGET_DIR)
  list(APPEND _cudnn_hints ${CUDAToolkit_TARGET_DIR})
endif()

find_path(CUDNN_INCLUDE_DIR cudnn_version.h HINTS ${_cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
find_library(CUDNN_LIBRARY NAMES cudnn HINTS ${_cudnn_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib lib64)

if(CUDNN_INCLUDE_DIR AND EXISTS "${CUDNN_INCLUDE_DIR}/cudnn_version.h")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_major REGEX "^#define CUDNN_MAJOR +[0-9]+")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_minor REGEX "^#define CUDNN_MINOR +[0-9]+")
  file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_patch REGEX "^#define CUDNN_PATCHLEVEL +[0-9]+")
  string(REGEX REPLACE "^#define CUDNN_MAJOR +([0-9]+).*" "\\1" _cudnn_major "${_cudnn_major}")
  string(REGEX REPLACE "^#define CUDNN_MINOR +([0-9]+).*" "\\1" _cudnn_minor "${_cudnn_minor}")
  string(REGEX REPLACE "^#define CUDNN_PATCHLEVEL +([0-9]+).*" "\\1" _cudnn_patch "${_cudnn_patch}")
  set(CUDNN_VERSION "${_cudnn_major}.${_cudnn_minor}.${_cudnn_patch}")
endif()

find_package_handle_standard_args(CUDNN REQUIRED_VARS CUDNN_LIBRARY CUDNN_INCLUDE_DIR VERSION_VAR CUDNN_VERSION)

if(CUDNN_FOUND AND NOT TARGET CUDNN::cudnn)
  add_library(CUDNN::cudnn UNKNOWN IMPORTED)
  set_target_properties(CUDNN::cudnn PROPERTIES IMPORTED_LOCATION "${CUDNN_LIBRARY}"
                                                INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")
endif()
mark_as_advanced(CUDNN_INCLUDE_DIR CUDNN_LIBRARY)
