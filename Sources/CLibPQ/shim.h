// CLibPQ: the libpq client API, exposed to PostgresClient only. Nothing is added to libpq here.
#ifndef FUNNEL_CLIBPQ_SHIM_H
#define FUNNEL_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#endif
