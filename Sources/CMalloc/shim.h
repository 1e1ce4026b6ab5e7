// CMalloc: glibc's allocator settings (mallopt), which the Glibc module leaves out.
#ifndef FUNNEL_CMALLOC_SHIM_H
#define FUNNEL_CMALLOC_SHIM_H
#include <malloc.h>
#endif
