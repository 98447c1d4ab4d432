# The Python package (python/fp8attn) through pytest, on this build's libfp8attn.so and the
# package's source tree (no `pip install`, so the CUDA library is built once). run_pytest.py
# turns a missing optional prerequisite, or a suite that skipped itself whole, into exit 77
# (CTest SKIP), never a silent pass:
#   python_numpy      numpy + ml_dtypes, CPU backend (CI: scripts/deps.sh installs them);
#   python_torch_cpu  torch CPU tensors, custom ops, torch.compile (SKIP without torch: CI);
#   python_gpu        torch CUDA tensors (SKIP without torch or an NVIDIA device node).
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(fp8attn_py ${Python3_EXECUTABLE})
else()
  set(fp8attn_py python3)
endif()
set(fp8attn_py_dir ${CMAKE_CURRENT_SOURCE_DIR}/python)
set(fp8attn_py_env "PYTHONPATH=${CMAKE_SOURCE_DIR}/python:${CMAKE_SOURCE_DIR}/.deps/pip"
    "FP8ATTN_LIBRARY=$<TARGET_FILE:fp8attn_shared>" "PYTHONDONTWRITEBYTECODE=1")
foreach(suite numpy torch_cpu gpu)
  set(need "--need=numpy,ml_dtypes,pytest")
  set(skip "")
  set(env ${fp8attn_py_env})
  if(suite STREQUAL "numpy")
    list(APPEND env "FP8ATTN_NO_TORCH=1")
  elseif(suite STREQUAL "torch_cpu")
    set(skip "--skip-without=torch")
  else()
    set(skip "--skip-without=torch,gpu")
  endif()
  add_test(NAME python_${suite}
           COMMAND ${fp8attn_py} ${fp8attn_py_dir}/run_pytest.py ${need} ${skip} --
                   ${fp8attn_py_dir}/test_${suite}.py)
  set_tests_properties(python_${suite} PROPERTIES ENVIRONMENT "${env}" SKIP_RETURN_CODE 77
                       TIMEOUT 1200)
endforeach()
