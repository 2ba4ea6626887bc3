// Netlib's reference CBLAS from Debian's libblas-dev (libblas.so.3 may be swapped for OpenBLAS
// through update-alternatives without relinking).
#include <cblas.h>
