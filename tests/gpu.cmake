# GPU tests: they exit 77 (reported by CTest as SKIPPED) on machines without a CUDA device.
# mma picks mma-m64 or mma-m128 per problem: the matrix's problems are all one-wave, where it
# picks mma-m64 (its matrix adds two large problems for mma-m128), so both tiles are also run by
# name over the whole matrix. gpu_dispatch checks which kernel each choice launches.
set(fp8attn_gpu_variants reference-gpu mma mma-m64 mma-m128)
if("90a" IN_LIST FP8ATTN_CUDA_ARCHS)
  list(APPEND fp8attn_gpu_variants wgmma)
endif()
foreach(variant IN LISTS fp8attn_gpu_variants)
  add_test(NAME gpu_matrix_${variant}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_matrix.sh $<TARGET_FILE:fp8attn_cli> ${variant})
  set_tests_properties(gpu_matrix_${variant} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endforeach()
# The tool passes a workspace by default; wgmma then writes V^T there first on the matrix's
# problems with enough repeats (query tiles x query heads per kv head: 17, hd64 10, on non-causal
# problems of more than one wave, else 32; src/kernels/wgmma/wgmma_variant.cu, use_vt_pass) and
# transposes in shared memory on the others. Without a workspace every problem takes the second
# path. The
# Python GPU tests check both paths bit for bit on multi-tile problems of every head dim.
if("90a" IN_LIST FP8ATTN_CUDA_ARCHS)
  add_test(NAME gpu_matrix_wgmma_no_workspace
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_matrix.sh $<TARGET_FILE:fp8attn_cli> wgmma
                   --no-workspace)
  set_tests_properties(gpu_matrix_wgmma_no_workspace PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
endif()
add_test(NAME gpu_sanitize COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_sanitize.sh $<TARGET_FILE:fp8attn_cli>)
set_tests_properties(gpu_sanitize PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1800)
fp8attn_c_test(test_gpu_dispatch test_gpu_dispatch.c)
if(TARGET fp8attn_wgmma) # it also calls a wgmma launcher with split plans that are not its own
  target_compile_definitions(test_gpu_dispatch PRIVATE FP8ATTN_HAVE_WGMMA=1)
endif()
