# The library as a package (cmake/package.cmake): what libfp8attn.so exports, and the installed
# tree used by a C program through find_package and through pkg-config (CPU backend; CI).
add_test(NAME shared_library_exports
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_shared_exports.sh $<TARGET_FILE:fp8attn_shared>
                 ${CMAKE_SOURCE_DIR}/include/fp8attn.h)
add_test(NAME install_consumer
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_install_consumer.sh ${CMAKE_COMMAND}
                 ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/consumer ${CMAKE_C_COMPILER})
set_tests_properties(install_consumer PROPERTIES TIMEOUT 600)
