/*
 * listalgos.c - print ch4coll's algorithm catalog, one "collective name"
 * per line, for runtests to force each algorithm through its CVAR.
 *
 * It reads the catalog through the public API (ch4coll_algorithm_count /
 * ch4coll_algorithm_info in ch4coll.h), the same table the CVAR parser and
 * ch4coll-info use, so the list follows the registry without parsing its
 * source or a tool's output format.  No MPI call is made; link with
 * -lch4coll.  With --nodes, only the algorithms that follow the node map.
 */
#include <stdio.h>
#include <string.h>

#include "ch4coll.h"

int main(int argc, char **argv)
{
    ch4coll_algorithm_info_t info;
    int i, n = ch4coll_algorithm_count();
    int nodes = argc > 1 && strcmp(argv[1], "--nodes") == 0;

    for (i = 0; i < n; i++) {
        if (ch4coll_algorithm_info(i, &info) != 0)
            return 1;
        if (nodes && !info.node_aware)
            continue;
        printf("%s %s\n", info.collective, info.name);
    }
    return n > 0 ? 0 : 1;
}
