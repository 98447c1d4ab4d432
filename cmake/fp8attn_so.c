/* The shared library's own translation unit. All of libfp8attn.so's code comes from the static
 * library, linked whole (cmake/package.cmake); CMake needs one source file per library target. */
typedef int fp8attn_so_has_no_code_of_its_own;
