// Shared helpers for the Qt Test suites.
//
// FT_TEST_MAIN(Class)      a plain Qt Test main (QCoreApplication).
// FT_GPU_TEST_MAIN(Class)  for suites labelled `gpu`: without a usable CUDA device the process prints
//                          "SKIP: <reason>" and exits with FT_SKIP_CODE, which CTest reports as *skipped* (the test's
//                          SKIP_RETURN_CODE), never as passed. With FT_REQUIRE_GPU=1 in the environment (the GPU
//                          machine's script sets it) a missing GPU is a failure instead.
#pragma once

#include <QCoreApplication>
#include <QTest>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "ft/gpu.h"

#define FT_SKIP_CODE 77

namespace ft::test {

inline bool gpu_required() {
    const char* v = std::getenv("FT_REQUIRE_GPU");
    return v && *v && std::string(v) != "0";
}

// Returns -1 when a GPU is available (run the suite), else the exit code to return.
inline int gpu_gate() {
    if (!ft::gpu_devices().empty()) return -1;
    const std::string reason = ft::gpu_unavailable_reason();
    if (gpu_required()) {
        std::fprintf(stderr, "FAIL: FT_REQUIRE_GPU is set but no GPU is usable: %s\n", reason.c_str());
        return 1;
    }
    std::printf("SKIP: no GPU: %s\n", reason.c_str());
    return FT_SKIP_CODE;
}

}  // namespace ft::test

#define FT_TEST_MAIN(TestClass)                      \
    int main(int argc, char** argv) {                \
        QCoreApplication app(argc, argv);            \
        TestClass tc;                                \
        QTEST_SET_MAIN_SOURCE_PATH                   \
        return QTest::qExec(&tc, argc, argv);        \
    }

#define FT_GPU_TEST_MAIN(TestClass)                              \
    int main(int argc, char** argv) {                            \
        if (int rc = ft::test::gpu_gate(); rc >= 0) return rc;   \
        QCoreApplication app(argc, argv);                        \
        TestClass tc;                                            \
        QTEST_SET_MAIN_SOURCE_PATH                               \
        return QTest::qExec(&tc, argc, argv);                    \
    }
