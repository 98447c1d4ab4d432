# Writes build_info.h (what this build is) from src/build_info.h.in. Run at every build by the
# fp8attn_build_info target, so the git sha and dirty flag describe the sources actually compiled;
# configure_file leaves the header untouched (no rebuild) when nothing changed.
# Inputs (-D): SRC, OUT, ARCHS, BUILD_TYPE, CUDA_COMPILER, C_COMPILER, CUDA_FLAGS.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE FP8ATTN_GIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git rev-parse --abbrev-ref HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE FP8ATTN_GIT_BRANCH OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE git_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT FP8ATTN_GIT_SHA)
  set(FP8ATTN_GIT_SHA "unknown")
  set(FP8ATTN_GIT_BRANCH "unknown")
endif()
if(git_status)
  set(FP8ATTN_GIT_DIRTY 1)
else()
  set(FP8ATTN_GIT_DIRTY 0)
endif()
set(FP8ATTN_ARCH_LIST "${ARCHS}")
set(CMAKE_BUILD_TYPE "${BUILD_TYPE}")
set(FP8ATTN_CUDA_COMPILER "${CUDA_COMPILER}")
set(FP8ATTN_C_COMPILER "${C_COMPILER}")
set(FP8ATTN_CUDA_FLAGS_STR "${CUDA_FLAGS}")
configure_file(${SRC}/src/build_info.h.in ${OUT} @ONLY)
