/*
 * info.c - ch4coll-info: the catalog, the CVARs, a decision explained, a
 * schedule drawn.  Uses the public API only and needs no MPI launch.
 */
#include <stdio.h>
#include <string.h>

#include "ch4coll.h"

static void usage(FILE *f)
{
    fprintf(
        f, "usage: ch4coll-info [OPTION]\n"
           "  --algorithms        list every algorithm: collective, name, "
           "parameters, restrictions\n"
           "  --cvars [--markdown]\n"
           "                      list the MPIR_CVAR_CH4COLL_* variables "
           "(--markdown: the\n"
           "                      table of doc/cvars.md)\n"
           "  --explain SPEC [--file F]\n"
           "                      the path through the selection tree and "
           "the algorithm\n"
           "                      chosen for a call shape, under the current "
           "CVARs and the\n"
           "                      tuning file they name (or F, or the "
           "embedded default);\n"
           "                      SPEC = coll=C,comm_size=P[,bytes=B]"
           "[,ppn=K|nodes=N]\n"
           "                      [,op=commutative|noncommutative|user]"
           "[,inplace=1][,root=R]\n"
           "                      [,threaded=1]; bytes = per-rank message "
           "size\n"
           "  --validate F        check a tuning file; exit status 0 if valid, "
           "1 if not\n"
           "  --dot SPEC [-o F]   the schedule as Graphviz (default stdout); "
           "SPEC =\n"
           "                      coll=C,algorithm=A[:k=v,...],p=P[,rank=R]"
           "[,root=R][,count=N]\n"
           "                      (all ranks unless rank= is given)\n"
           "  --version           print the version\n"
           "  --help              this text\n");
}

static void list_algorithms(void)
{
    ch4coll_algorithm_info_t in;
    int i, j;

    printf("%-21s %-20s %-28s %s\n", "collective", "algorithm", "parameters",
           "description");
    for (i = 0; i < ch4coll_algorithm_count(); i++) {
        char params[128] = "-";
        size_t used = 0;
        ch4coll_algorithm_info(i, &in);
        for (j = 0; j < in.nparams && used < sizeof params; j++)
            used += (size_t) snprintf(
                params + used, sizeof params - used, "%s%s=%lld", j ? "," : "",
                in.param_names[j], (long long) in.param_defaults[j]);
        printf("%-21s %-20s %-28s %s%s\n", in.collective, in.name, params,
               in.description, in.commutative_only ? " [commutative ops]" : "");
    }
}

static void list_cvars(int markdown)
{
    ch4coll_cvar_info_t cv;
    int i;

    if (markdown)
        printf(
            "| variable | default | values | meaning |\n|---|---|---|---|\n");
    for (i = 0; i < ch4coll_cvar_count(); i++) {
        if (markdown) {
            ch4coll_cvar_info(i, &cv);
            printf("| `%s` | `%s` | %s | %s |\n", cv.name, cv.default_value,
                   cv.valid_values, cv.description);
            continue;
        }
        ch4coll_cvar_info(i, &cv);
        printf("%s\n    default: %s\n    values:  %s\n    %s\n", cv.name,
               cv.default_value, cv.valid_values, cv.description);
    }
}

int main(int argc, char **argv)
{
    char buf[16384], spec[2048];
    const char *out = "-";

    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ch4coll %s\n", ch4coll_version());
        return 0;
    }
    if (strcmp(argv[1], "--algorithms") == 0) {
        list_algorithms();
        return 0;
    }
    if (strcmp(argv[1], "--cvars") == 0 && argc == 2) {
        list_cvars(0);
        return 0;
    }
    if (strcmp(argv[1], "--cvars") == 0 && argc == 3 &&
        strcmp(argv[2], "--markdown") == 0) {
        list_cvars(1);
        return 0;
    }
    if (strcmp(argv[1], "--explain") == 0 &&
        (argc == 3 || (argc == 5 && strcmp(argv[3], "--file") == 0))) {
        snprintf(spec, sizeof spec, "%s%s%s", argv[2],
                 argc == 5 ? ",file=" : "", argc == 5 ? argv[4] : "");
        if (ch4coll_explain(spec, buf, sizeof buf) != 0) {
            fprintf(stderr, "ch4coll-info: %s", buf);
            return 1;
        }
        printf("%s", buf);
        return 0;
    }
    if (strcmp(argv[1], "--validate") == 0 && argc == 3) {
        int rc = ch4coll_validate(argv[2], buf, sizeof buf);
        fputs(buf, rc == 0 ? stdout : stderr);
        return rc == 0 ? 0 : 1;
    }
    if (strcmp(argv[1], "--dot") == 0 && (argc == 3 || argc == 5)) {
        if (argc == 5 && strcmp(argv[3], "-o") == 0)
            out = argv[4];
        else if (argc == 5) {
            usage(stderr);
            return 2;
        }
        if (ch4coll_dot(argv[2], out, buf, sizeof buf) != 0) {
            fprintf(stderr, "ch4coll-info: %s\n", buf);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "ch4coll-info: unknown or incomplete option '%s'\n",
            argv[1]);
    usage(stderr);
    return 2;
}
