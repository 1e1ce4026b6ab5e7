// CZlib: zlib's gzip stream API (gzopen/gzread/gzwrite), for reading and writing .gz input files.
#ifndef FUNNEL_CZLIB_SHIM_H
#define FUNNEL_CZLIB_SHIM_H
#include <zlib.h>
#endif
