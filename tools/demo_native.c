/* A tiny native library for the demo wheelhouse. getrandom() arrived in glibc 2.25, so this
 * library needs GLIBC_2.25: fine for manylinux_2_28, a lie under manylinux_2_17 (WC502). */
#include <string.h>
#include <sys/random.h>

int demo_fill(char* buf, unsigned n) { return (int)getrandom(buf, n, 0) + (int)strlen(buf); }
