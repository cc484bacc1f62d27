/*
 * progress.c - the progress hook of host.h: the functions the layer that
 * owns other outstanding work registered (core/nbc.c in preload mode),
 * or none.
 */
#include <stddef.h>

#include "host.h"

static int (*others_fn)(void);
static int (*busy_fn)(void);

void ch4coll_host_set_progress(int (*others)(void), int (*busy)(void))
{
    others_fn = others;
    busy_fn = busy;
}

int ch4coll_host_progress_others(void)
{
    return others_fn ? others_fn() : 0;
}

int ch4coll_host_busy(void)
{
    return busy_fn ? busy_fn() : 0;
}
