# Included from the top-level CMakeLists.txt when GSTACK_FUZZ is on, after the packages are found and
# before any target exists, so that every library is built the way the fuzzer needs it.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "GSTACK_FUZZ needs clang (configure with CC=clang CXX=clang++)")
endif()

# Coverage instrumentation everywhere, ASan and UBSan; UB aborts so the fuzzer reports it as a crash.
# The fuzz targets link libFuzzer's main themselves (tests/fuzz/CMakeLists.txt).
add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
add_link_options(-fsanitize=address,undefined)

# The ANTLR 4.9 umbrella header pulls in misc/InterpreterDataReader.h, whose inline constructor clang
# rejects (it default-constructs a Vocabulary whose const members have no initialisers; GCC lets it
# pass). Nothing here uses that header, so a copy of the umbrella header without it goes first on the
# include path. Its other includes are quoted and still resolve to the real runtime headers.
find_file(GSTACK_ANTLR_UMBRELLA antlr4-runtime.h PATHS ${ANTLR4_INCLUDE_DIR} NO_DEFAULT_PATH REQUIRED)
file(READ ${GSTACK_ANTLR_UMBRELLA} umbrella)
string(REPLACE "#include \"misc/InterpreterDataReader.h\"" "" umbrella "${umbrella}")
file(WRITE ${CMAKE_BINARY_DIR}/antlr_clang_shim/antlr4-runtime.h "${umbrella}")
include_directories(BEFORE ${CMAKE_BINARY_DIR}/antlr_clang_shim)
