/*
 * info.c - ch4coll-info: the catalog, the CVARs, a decision explained, a
 * schedule drawn.  Uses the public API only and needs no MPI launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch4coll.h"

static void usage(FILE *f)
{
    fprintf(
        f, "usage: ch4coll-info [OPTION]\n"
           "  --algorithms [--markdown]\n"
           "                      list every algorithm: collective, name, "
           "parameters,\n"
           "                      restrictions (--markdown: the registry "
           "table of\n"
           "                      doc/algorithms.md)\n"
           "  --cvars [--markdown]\n"
           "                      list the MPIR_CVAR_CH4COLL_* variables "
           "(--markdown: the\n"
           "                      table of doc/cvars.md)\n"
           "  --explain SPEC [--file F] [--model M]\n"
           "                      the path through the selection tree and "
           "the algorithm\n"
           "                      chosen for a call shape, under the current "
           "CVARs and the\n"
           "                      tuning file they name (or F, or the "
           "embedded default);\n"
           "                      SPEC = coll=C,comm_size=P[,bytes=B]"
           "[,ppn=K|nodes=N]\n"
           "                      [,map=block|cyclic]"
           "[,op=commutative|noncommutative|user]\n"
           "                      [,inplace=1][,root=R][,threaded=1][,dist=D]; "
           "bytes =\n"
           "                      per-rank message size (with dist=D, the "
           "base size of\n"
           "                      allgatherv's and reduce_scatter's blocks, "
           "as in --model);\n"
           "                      ppn/nodes place the ranks on virtual "
           "nodes;\n"
           "                      coll=iC: the nonblocking and persistent "
           "form of C\n"
           "                      --model alpha=S,beta=S,gamma=S also ranks "
           "every\n"
           "                      applicable algorithm by its cost formula\n"
           "  --model SPEC        every applicable algorithm on the "
           "alpha-beta-gamma model:\n"
           "                      formula, replayed schedules, the lower "
           "bound and the\n"
           "                      memory one cached schedule holds "
           "(sched_KiB: the largest\n"
           "                      rank's vertices, run arrays and scratch); "
           "SPEC =\n"
           "                      coll=C,p=P,bytes=B[,algorithm=A[:k=v,...]]"
           "[,root=R]\n"
           "                      [,op=noncommutative][,dist=D]"
           "[,ppn=K[,map=block|cyclic]]\n"
           "                      [,machine=FILE][,alpha=S][,beta=S][,gamma=S]"
           "[,alpha_node=S][,beta_node=S][,gap=S][,eager=B]\n"
           "                      [,replay=0]; D = regular, broadcast, "
           "spike, half_full,\n"
           "                      linear or geometric (block sizes of "
           "v-collectives)\n"
           "                      (defaults alpha=2e-6 s, beta=1e-10 s/B, "
           "gamma=2.5e-10 s/B;\n"
           "                      machine=FILE: all five from a machine "
           "description of\n"
           "                      ch4coll-calibrate, e.g. machines/NAME.json, "
           "keys after it\n"
           "                      override);\n"
           "                      ppn=K: the ranks on virtual nodes of K "
           "ranks, placed\n"
           "                      block (default) or cyclic, which the "
           "algorithms see as\n"
           "                      their locality; a message costs alpha_node + "
           "m beta_node\n"
           "                      inside a node (defaults 5e-7 s, 5e-11 s/B), "
           "alpha + m beta\n"
           "                      between nodes, and a node sends and receives "
           "one message\n"
           "                      to and from other nodes at a time (one "
           "network interface);\n"
           "                      the lower bound stays the flat one;\n"
           "                      gap=S > 0: the lower bound of a "
           "multi-ported machine,\n"
           "                      where a rank starts a message every S "
           "seconds (SimGrid's\n"
           "                      hosts; default 0: single-ported);\n"
           "                      eager=B > 0: the replay starts a message "
           "of more than B\n"
           "                      bytes once its receive is posted "
           "(rendezvous;\n"
           "                      default 0: every message eager)\n"
           "  --validate F        check a tuning file; exit status 0 if valid, "
           "1 if not\n"
           "  --dot SPEC [-o F]   the schedule as Graphviz (default stdout); "
           "SPEC =\n"
           "                      coll=C,algorithm=A[:k=v,...],p=P[,rank=R]"
           "[,root=R][,count=N]\n"
           "                      (all ranks unless rank= is given)\n"
           "  --fingerprint SPEC...\n"
           "                      per SPEC (--explain's keys) a 16-digit "
           "digest of what the\n"
           "                      call runs on every rank under the current "
           "CVARs: the\n"
           "                      algorithm chosen, its parameters and its "
           "schedule's\n"
           "                      vertices and edges (maint/smpi-compare "
           "keeps a grid part\n"
           "                      while its digests hold)\n"
           "  --version           print the version\n"
           "  --help              this text\n");
}

/* "name=default,..." of in's parameters into buf ("-" for none). */
static void param_list(const ch4coll_algorithm_info_t *in, char *buf,
                       size_t len, const char *quote)
{
    size_t used = 0;
    int j;

    snprintf(buf, len, "-");
    for (j = 0; j < in->nparams && used < len; j++)
        used += (size_t) snprintf(buf + used, len - used, "%s%s%s=%lld%s",
                                  j ? ", " : "", quote, in->param_names[j],
                                  (long long) in->param_defaults[j], quote);
}

static void list_algorithms(int markdown)
{
    ch4coll_algorithm_info_t in;
    char params[160];
    int i;

    if (markdown)
        printf("| collective | algorithm | parameters (default) | ops | "
               "node map | description |\n|---|---|---|---|---|---|\n");
    else
        printf("%-21s %-20s %-28s %s\n", "collective", "algorithm",
               "parameters", "description");
    for (i = 0; i < ch4coll_algorithm_count(); i++) {
        ch4coll_algorithm_info(i, &in);
        param_list(&in, params, sizeof params, markdown ? "`" : "");
        if (markdown)
            printf("| %s | `%s` | %s | %s | %s | %s |\n", in.collective,
                   in.name, params, in.commutative_only ? "commutative" : "any",
                   in.node_aware ? "follows" : "-", in.description);
        else
            printf("%-21s %-20s %-28s %s%s%s\n", in.collective, in.name, params,
                   in.description,
                   in.commutative_only ? " [commutative ops]" : "",
                   in.node_aware ? " [follows the node map]" : "");
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

/* An error text on stderr, ending with one newline. */
static void fail_text(const char *text)
{
    size_t n = strlen(text);
    fprintf(stderr, "ch4coll-info: %s%s", text,
            n && text[n - 1] == '\n' ? "" : "\n");
}

/* The --model spec for an --explain spec: its collective, size, bytes,
 * root, op and placement (nodes=N as ppn), the model's constants, and
 * formulas only (replay=0). */
static void model_spec(const char *explain, const char *model, char *out,
                       size_t len)
{
    char buf[2048], *kv, *save = NULL;
    size_t used = 0;
    long p = 0, nodes = 0;

    snprintf(buf, sizeof buf, "%s", explain);
    for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        if (strncmp(kv, "comm_size=", 10) == 0 || strncmp(kv, "p=", 2) == 0)
            p = strtol(strchr(kv, '=') + 1, NULL, 10);
        if (strncmp(kv, "nodes=", 6) == 0)
            nodes = strtol(kv + 6, NULL, 10);
        if (strncmp(kv, "coll=", 5) == 0 ||
            strncmp(kv, "comm_size=", 10) == 0 || strncmp(kv, "p=", 2) == 0 ||
            strncmp(kv, "bytes=", 6) == 0 || strncmp(kv, "root=", 5) == 0 ||
            strncmp(kv, "ppn=", 4) == 0 || strncmp(kv, "map=", 4) == 0 ||
            strcmp(kv, "op=noncommutative") == 0)
            used += (size_t) snprintf(out + used, len - used, "%s,", kv);
    }
    if (nodes > 0 && p > 0 && !strstr(explain, "ppn="))
        used += (size_t) snprintf(out + used, len - used, "ppn=%ld,",
                                  (p + nodes - 1) / nodes);
    snprintf(out + used, len - used, "%s%sreplay=0", model,
             model[0] ? "," : "");
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
    if (strcmp(argv[1], "--algorithms") == 0 && argc == 2) {
        list_algorithms(0);
        return 0;
    }
    if (strcmp(argv[1], "--algorithms") == 0 && argc == 3 &&
        strcmp(argv[2], "--markdown") == 0) {
        list_algorithms(1);
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
    if (strcmp(argv[1], "--explain") == 0 && argc >= 3) {
        const char *file = NULL, *model = NULL;
        int i;
        for (i = 3; i + 1 < argc; i += 2) {
            if (strcmp(argv[i], "--file") == 0 && !file)
                file = argv[i + 1];
            else if (strcmp(argv[i], "--model") == 0 && !model)
                model = argv[i + 1];
            else
                break;
        }
        if (i != argc) {
            usage(stderr);
            return 2;
        }
        snprintf(spec, sizeof spec, "%s%s%s", argv[2], file ? ",file=" : "",
                 file ? file : "");
        if (ch4coll_explain(spec, buf, sizeof buf) != 0) {
            fail_text(buf);
            return 1;
        }
        printf("%s", buf);
        if (model) {
            model_spec(argv[2], model, spec, sizeof spec);
            if (ch4coll_model(spec, buf, sizeof buf) != 0) {
                fail_text(buf);
                return 1;
            }
            printf("candidates on the model:\n%s", buf);
        }
        return 0;
    }
    if (strcmp(argv[1], "--model") == 0 && argc == 3) {
        if (ch4coll_model(argv[2], buf, sizeof buf) != 0) {
            fail_text(buf);
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
    if (strcmp(argv[1], "--fingerprint") == 0 && argc >= 3) {
        int i;

        for (i = 2; i < argc; i++) {
            uint64_t h;

            if (ch4coll_fingerprint(argv[i], &h, buf, sizeof buf) != 0) {
                fprintf(stderr, "ch4coll-info: %s: %s\n", argv[i], buf);
                return 1;
            }
            printf("%016llx %s\n", (unsigned long long) h, argv[i]);
        }
        return 0;
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
