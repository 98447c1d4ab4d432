# The library as a package (included from CMakeLists.txt):
#  - libfp8attn.so beside libfp8attn.a, made from the static library's objects (no second CUDA
#    build): the public API alone exported (a version script generated from include/fp8attn.h),
#    SONAME libfp8attn.so.MAJOR, the CUDA runtime linked statically so that it loads next to
#    another runtime (PyTorch's);
#  - `cmake --install`: the header, both libraries, a CMake package (find_package(fp8attn) gives
#    fp8attn::fp8attn, the shared library, and fp8attn::fp8attn_static where CUDAToolkit is found)
#    and fp8attn.pc for pkg-config (relocatable: paths relative to the .pc file);
#  - under scikit-build-core (pip install .), the shared library inside the Python package.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Exported symbols: every function the public header declares.
file(READ ${CMAKE_SOURCE_DIR}/include/fp8attn.h fp8attn_header)
string(REGEX MATCHALL "fp8attn_[a-z0-9_]+\\(" fp8attn_api "${fp8attn_header}")
string(REPLACE "(" "" fp8attn_api "${fp8attn_api}")
list(REMOVE_DUPLICATES fp8attn_api)
list(SORT fp8attn_api)
list(JOIN fp8attn_api ";\n    " fp8attn_api_lines)
set(FP8ATTN_VERSION_SCRIPT ${CMAKE_BINARY_DIR}/generated/fp8attn.map)
file(CONFIGURE OUTPUT ${FP8ATTN_VERSION_SCRIPT}
     CONTENT "/* generated from include/fp8attn.h by cmake/package.cmake */\n{\n  global:\n    ${fp8attn_api_lines};\n  local: *;\n};\n")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/include/fp8attn.h)

add_library(fp8attn_shared SHARED ${CMAKE_SOURCE_DIR}/cmake/fp8attn_so.c)
target_link_libraries(fp8attn_shared PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,fp8attn>")
target_include_directories(fp8attn_shared INTERFACE
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_options(fp8attn_shared PRIVATE "LINKER:--version-script=${FP8ATTN_VERSION_SCRIPT}"
                    "LINKER:--no-undefined")
set_target_properties(fp8attn_shared PROPERTIES
  OUTPUT_NAME fp8attn EXPORT_NAME fp8attn LINKER_LANGUAGE CUDA
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LINK_DEPENDS ${FP8ATTN_VERSION_SCRIPT})

# ---- cmake --install
set(FP8ATTN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/fp8attn)
install(TARGETS fp8attn_shared EXPORT fp8attnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES $<TARGET_FILE:fp8attn> DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(FILES ${CMAKE_SOURCE_DIR}/include/fp8attn.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev)
install(EXPORT fp8attnTargets NAMESPACE fp8attn:: DESTINATION ${FP8ATTN_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/fp8attnConfig.cmake.in
  ${CMAKE_BINARY_DIR}/generated/fp8attnConfig.cmake INSTALL_DESTINATION ${FP8ATTN_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/generated/fp8attnConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/generated/fp8attnConfig.cmake
              ${CMAKE_BINARY_DIR}/generated/fp8attnConfigVersion.cmake
        DESTINATION ${FP8ATTN_CMAKE_DIR} COMPONENT dev)
# pkg-config: prefix relative to the .pc file, so the installed tree can be moved
file(RELATIVE_PATH FP8ATTN_PC_UP /x/${CMAKE_INSTALL_LIBDIR}/pkgconfig /x)
configure_file(${CMAKE_SOURCE_DIR}/cmake/fp8attn.pc.in ${CMAKE_BINARY_DIR}/generated/fp8attn.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/generated/fp8attn.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# ---- pip install . (scikit-build-core installs the component "python" into the wheel)
if(SKBUILD)
  install(FILES $<TARGET_FILE:fp8attn_shared> DESTINATION fp8attn RENAME libfp8attn.so
          COMPONENT python)
endif()
