/*
 * tune.c - ch4coll-tune: a tuning file from measurements (DESIGN.md
 * sections 6 and 8; doc/tuning.md).
 *
 * Input: CSV files with a header naming at least the columns collective,
 * p, bytes, algorithm and seconds (or us); ppn is optional (1).  Each row
 * is one algorithm's time for one cell (collective, ppn, p, bytes), from
 * maint/tune-local (ch4coll-bench on this machine) or maint/smpi-compare
 * (SimGrid).  A cell's time for an algorithm is the minimum over its rows.
 *
 * The tree, per collective and ppn:
 *   - An algorithm is "good" in a cell when its time is within the
 *     tolerance of the cell's best (default 5 %): the slack that makes the
 *     tree compact and its choices robust to noise.  --tolerance-of gives
 *     the rows of one source their own (a deterministic simulation needs
 *     less than a real machine's runs); a cell takes its rows' largest.
 *   - Message sizes (for a set of communicator sizes): scanned upwards, a
 *     range is extended while some algorithm stays good in every cell of
 *     it (greedy, which gives the fewest ranges).  The range's algorithm
 *     is the good one with the smallest summed time / best.
 *   - Communicator sizes: consecutive measured sizes share one size split
 *     while that needs no more ranges than the larger of their own splits
 *     and every message size keeps a common good algorithm.
 *   - Cuts between measured values sit at their geometric mean; the last
 *     range of each level is "=any".
 *   - A p measured at small sizes only (the grid's largest p): its larger
 *     sizes take the cells of the largest smaller p measured at them, on
 *     each platform (--group) measured at that p, so that they keep that
 *     p's choices and not the small sizes' last one; the check leaves
 *     these cells out (borrow()).
 *   - A commutative-only winner is followed by the best algorithm that is
 *     not, so non-commutative calls stay in the same range (first match
 *     with fall-through, doc/json_tuning.md).
 * With a reference (--reference COL: a time to beat per cell, e.g. the
 * fastest algorithm of another library), an algorithm slower than it pays
 * REF_WEIGHT times its excess ratio on top of its time / best wherever
 * algorithms are ranked (a range's choice and the compromise), so that
 * between choices close to the best, the one that also beats the
 * reference is kept.
 * The collectives without measurements keep the base tree's branches
 * (--base, default the installed default.json), so the file is complete.
 *
 * Several platforms (--group COL, e.g. maint/smpi-compare's platform): a
 * cell is (collective, ppn, p, bytes, group), so a range's algorithm must
 * be good on every platform measured there, and where no algorithm is
 * good on all of them at one p and size, that size takes the one with the
 * smallest summed time / best over the platforms (among those measured on
 * the most of them, when none has a time on all): a choice is kept only
 * where it holds across them.  --hold-out COL=VALUE keeps the matching
 * rows out of the tree and checks the tree on them alone (held-out
 * regret, per group).
 *
 * The file is validated (ch4coll_validate) and then checked: every
 * measured cell is explained through the file (ch4coll_explain file=) and
 * the time of the algorithm it selects is compared with the cell's best
 * (the regret).  --map draws the selection, bytes x p, one PNG per
 * collective and ppn, with gnuplot.
 *
 * Uses json-c and the public header ch4coll.h only.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ch4coll.h"

#ifndef CH4COLL_TUNINGDIR
#define CH4COLL_TUNINGDIR "/usr/local/share/ch4coll/json_tuning"
#endif

#define MAX_ALGS    64 /* distinct algorithm strings per collective */
#define MAX_FIELDS  64
#define MAX_WHERE   8
#define LINE_MAX_   4096
#define EXPLAIN_OUT 16384

/* ------------------------------------------------------------ options */

typedef struct {
    const char *out, *base, *map;
    int evaluate; /* --evaluate: out is an existing tree, only checked */
    int ppn;      /* --ppn: for input without a ppn column */
    const char *algo_col; /* --algorithm-column */
    double tol;
    int quiet;
    int nwhere;
    char *where_col[MAX_WHERE], *where_val[MAX_WHERE];
    const char *group_col; /* --group */
    const char *ref_col;   /* --reference */
    int nhold;             /* --hold-out */
    char *hold_col[MAX_WHERE], *hold_val[MAX_WHERE];
    int hierarchy;       /* --hierarchy */
    const char *comment; /* --comment */
    int nppn_of;         /* --ppn-of COL=VALUE:K */
    char *ppn_col[MAX_WHERE], *ppn_val[MAX_WHERE];
    int ppn_of[MAX_WHERE];
    int ntol_of; /* --tolerance-of COL=VALUE:PCT */
    char *tol_col[MAX_WHERE], *tol_val[MAX_WHERE];
    double tol_of[MAX_WHERE];
} opts_t;

/* ---------------------------------------------------------------- data */

typedef struct {
    int coll;    /* index into colls[] */
    int ppn;     /* ranks per node */
    long p;      /* communicator size */
    long long b; /* bytes per rank */
    int alg;     /* index into the collective's algs[] */
    double t;    /* seconds */
    double ref;  /* --reference: the cell's time to beat, 0 if none */
    double tol;  /* good within this fraction of the best (--tolerance-of) */
    int group;   /* index into groups[] (--group), else 0 */
    int held;    /* --hold-out: checked only */
} row_t;

typedef struct {
    char name[40];
    char *algs[MAX_ALGS]; /* "ring" or "ring:chunk=65536" */
    int nalgs;
} coll_t;

static coll_t colls[32];
static int ncolls;
static char groups[64][40]; /* --group's values, in order of appearance */
static int ngroups = 1;
static row_t *rows;
static size_t nrows, caprows;
/* The rows each --ppn-of and --tolerance-of matched: one that matches
 * none (a misspelt value) is warned about, not silently ignored. */
static long ppn_hits[MAX_WHERE], tol_hits[MAX_WHERE];

/* A cell: the rows of one (coll, ppn, p, b), algorithms deduplicated. */
typedef struct {
    long p;
    long long b;
    int group;
    double t[MAX_ALGS]; /* 0: not measured */
    double best;
    double ref; /* the smallest reference of the cell's rows, 0: none */
    double tol; /* the largest tolerance of the cell's rows */
    uint64_t good;
    long from; /* 0: measured; else the p whose cell this is (borrow()) */
} cell_t;

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "ch4coll-tune: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);

    if (!q)
        die("%s", "out of memory");
    return q;
}

/* ------------------------------------------------------------ catalog */

/* Base name of an algorithm string: "ring:chunk=1" -> "ring". */
static void base_name(const char *alg, char *out, size_t len)
{
    size_t n = strcspn(alg, ":");

    if (n >= len)
        n = len - 1;
    memcpy(out, alg, n);
    out[n] = '\0';
}

/* 1 if coll has an algorithm named like alg's base name (or native);
 * *comm_only = its commutative_only flag. */
static int catalog_has(const char *coll, const char *alg, int *comm_only)
{
    ch4coll_algorithm_info_t ai;
    char name[64];
    int i;

    base_name(alg, name, sizeof name);
    *comm_only = 0;
    if (strcmp(name, "native") == 0)
        return 1;
    for (i = 0; i < ch4coll_algorithm_count(); i++)
        if (ch4coll_algorithm_info(i, &ai) == 0 &&
            strcmp(ai.collective, coll) == 0 && strcmp(ai.name, name) == 0) {
            *comm_only = ai.commutative_only;
            return 1;
        }
    return 0;
}

/* Rewrite alg ("ring:chunk=0" or "ring") with every parameter of the
 * catalog's row, in its order, at the value given or else the default
 * ("ring:chunk=0,torus_x=0,torus_y=0"): one schedule gets one string
 * whatever parameters its run printed (a parameter added to a row later
 * would make old and new measurements of it two algorithms), and a tree
 * leaf names the measured values, not defaults that may change.  alg has
 * room for ALG_LEN chars. */
#define ALG_LEN 256
static void all_params(const char *coll, char *alg)
{
    ch4coll_algorithm_info_t ai;
    char name[64], out[ALG_LEN], *params = strchr(alg, ':');
    size_t used;
    int i, k;

    base_name(alg, name, sizeof name);
    for (i = 0; i < ch4coll_algorithm_count(); i++)
        if (ch4coll_algorithm_info(i, &ai) == 0 &&
            strcmp(ai.collective, coll) == 0 && strcmp(ai.name, name) == 0)
            break;
    if (i == ch4coll_algorithm_count() || ai.nparams == 0)
        return;
    used = (size_t) snprintf(out, sizeof out, "%s", name);
    for (k = 0; k < ai.nparams && used < sizeof out; k++) {
        long long v = (long long) ai.param_defaults[k];
        const char *at = params ? strstr(params, ai.param_names[k]) : NULL;
        size_t len = strlen(ai.param_names[k]);

        while (at && !((at[-1] == ':' || at[-1] == ',') && at[len] == '='))
            at = strstr(at + 1, ai.param_names[k]);
        if (at)
            v = atoll(at + len + 1);
        used += (size_t) snprintf(out + used, sizeof out - used, "%c%s=%lld",
                                  k ? ',' : ':', ai.param_names[k], v);
    }
    if (used < ALG_LEN)
        memcpy(alg, out, used + 1);
}

static int coll_index(const char *name)
{
    int i;

    for (i = 0; i < ncolls; i++)
        if (strcmp(colls[i].name, name) == 0)
            return i;
    if (ncolls == (int) (sizeof colls / sizeof colls[0]))
        die("%s", "too many collectives");
    snprintf(colls[ncolls].name, sizeof colls[ncolls].name, "%s", name);
    return ncolls++;
}

static int alg_index(coll_t *c, const char *alg)
{
    int i;

    for (i = 0; i < c->nalgs; i++)
        if (strcmp(c->algs[i], alg) == 0)
            return i;
    if (c->nalgs == MAX_ALGS)
        die("more than 64 algorithm strings for %s", c->name);
    c->algs[c->nalgs] = strdup(alg);
    if (!c->algs[c->nalgs])
        die("%s", "out of memory");
    return c->nalgs++;
}

/* ---------------------------------------------------------------- CSV */

/* Split line into fields at commas, honouring double quotes; returns the
 * number of fields (the line is modified). */
static int split_csv(char *line, char **f, int max)
{
    int n = 0;
    char *r = line, *w;

    line[strcspn(line, "\r\n")] = '\0';
    while (n < max) {
        f[n++] = w = r;
        if (*r == '"') {
            r++;
            for (; *r; r++) {
                if (*r == '"' && r[1] == '"')
                    *w++ = *r++;
                else if (*r == '"')
                    break;
                else
                    *w++ = *r;
            }
            if (*r == '"')
                r++;
        } else {
            while (*r && *r != ',')
                *w++ = *r++;
        }
        if (*r != ',') {
            *w = '\0';
            break;
        }
        *w = '\0';
        r++;
    }
    return n;
}

static int column(char **h, int n, const char *const *names)
{
    int i, k;

    for (k = 0; names[k]; k++)
        for (i = 0; i < n; i++)
            if (strcasecmp(h[i], names[k]) == 0)
                return i;
    return -1;
}

/* The column an option names (opt: the option, for the error); -1 for
 * no name. */
static int named_column(char **h, int n, const char *opt, const char *name)
{
    const char *names[] = {name, NULL};
    char msg[160];
    int c;

    if (!name)
        return -1;
    c = column(h, n, names);
    if (c < 0) {
        snprintf(msg, sizeof msg, "%s: no column '%.100s' in the input", opt,
                 name);
        die("%s", msg);
    }
    return c;
}

typedef struct {
    int coll, p, ppn, bytes, alg, sec, us, group, ref;
    int where[MAX_WHERE], hold[MAX_WHERE], ppn_of[MAX_WHERE];
    int tol_of[MAX_WHERE];
} cols_t;

static void header(char **h, int n, const opts_t *o, const char *path,
                   cols_t *c)
{
    static const char *const coll[] = {"collective", "coll", NULL};
    static const char *const p[] = {"p", "comm_size", "procs", NULL};
    static const char *const ppn[] = {"ppn", NULL};
    static const char *const bytes[] = {"bytes", NULL};
    static const char *const alg[] = {"algorithm", "algo", "name", NULL};
    static const char *const sec[] = {"seconds", "time_s", NULL};
    static const char *const us[] = {"us", "time_us", NULL};
    int i;

    c->coll = column(h, n, coll);
    c->p = column(h, n, p);
    c->ppn = column(h, n, ppn);
    c->bytes = column(h, n, bytes);
    c->alg = o->algo_col ? named_column(h, n, "--algorithm-column", o->algo_col)
                         : column(h, n, alg);
    c->sec = column(h, n, sec);
    c->us = column(h, n, us);
    if (c->coll < 0 || c->p < 0 || c->bytes < 0 || c->alg < 0 ||
        (c->sec < 0 && c->us < 0))
        die("%s: the header needs the columns collective, p, bytes, "
            "algorithm and seconds (or us)",
            path);
    for (i = 0; i < o->nwhere; i++)
        c->where[i] = named_column(h, n, "--where", o->where_col[i]);
    for (i = 0; i < o->nhold; i++)
        c->hold[i] = named_column(h, n, "--hold-out", o->hold_col[i]);
    for (i = 0; i < o->nppn_of; i++)
        c->ppn_of[i] = named_column(h, n, "--ppn-of", o->ppn_col[i]);
    for (i = 0; i < o->ntol_of; i++)
        c->tol_of[i] = named_column(h, n, "--tolerance-of", o->tol_col[i]);
    c->ref = named_column(h, n, "--reference", o->ref_col);
    c->group = named_column(h, n, "--group", o->group_col);
}

/* The index of group value v, added if new. */
static int group_index(const char *v)
{
    int g;

    for (g = 0; g < ngroups; g++)
        if (strcmp(groups[g], v) == 0)
            return g;
    if (ngroups == (int) (sizeof groups / sizeof groups[0]))
        die("more than 64 values of --group's column (%s)", v);
    snprintf(groups[ngroups], sizeof groups[0], "%s", v);
    return ngroups++;
}

static int parse_num(const char *s, double *v)
{
    char *end;

    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

/* Read one CSV; returns the rows skipped (unknown algorithm, no time). */
static long read_csv(const char *path, const opts_t *o)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    char line[LINE_MAX_], *fl[MAX_FIELDS], alg[ALG_LEN];
    cols_t c;
    long lineno = 0, skipped = 0;
    int n, i, comm_only;

    if (!f)
        die("cannot open %s", path);
    do { /* the header: the first line that is not a # comment */
        if (!fgets(line, sizeof line, f))
            die("%s: no header line", path);
        lineno++;
    } while (line[0] == '#');
    n = split_csv(line, fl, MAX_FIELDS);
    header(fl, n, o, path, &c);
    while (fgets(line, sizeof line, f)) {
        double p, b, t, ppn = o->ppn;
        row_t r;
        int keep = 1, ci;

        lineno++;
        if (line[0] == '#' || line[strspn(line, " \t\r\n")] == '\0')
            continue;
        n = split_csv(line, fl, MAX_FIELDS);
        for (i = 0; i < o->nwhere; i++)
            keep &=
                c.where[i] < n && strcmp(fl[c.where[i]], o->where_val[i]) == 0;
        if (!keep)
            continue;
        for (i = 0; i < o->nppn_of; i++)
            if (c.ppn_of[i] < n &&
                strcmp(fl[c.ppn_of[i]], o->ppn_val[i]) == 0) {
                ppn = o->ppn_of[i];
                ppn_hits[i]++;
            }
        if (c.coll >= n || c.p >= n || c.bytes >= n || c.alg >= n ||
            c.group >= n || !parse_num(fl[c.p], &p) ||
            !parse_num(fl[c.bytes], &b) ||
            (c.ppn >= 0 && (c.ppn >= n || !parse_num(fl[c.ppn], &ppn)))) {
            fprintf(stderr, "ch4coll-tune: %s:%ld: malformed row, skipped\n",
                    path, lineno);
            skipped++;
            continue;
        }
        if (c.sec >= 0 ? c.sec >= n || !parse_num(fl[c.sec], &t)
                       : c.us >= n || !parse_num(fl[c.us], &t)) {
            skipped++; /* a failed measurement: no time */
            continue;
        }
        if (c.sec < 0)
            t *= 1e-6;
        /* "two_tree:chunk=65536 (forced ...)": the name and parameters,
         * which may be separated by ';' in a CSV field */
        fl[c.alg][strcspn(fl[c.alg], " ")] = '\0';
        for (char *q = fl[c.alg]; *q; q++)
            if (*q == ';')
                *q = ',';
        if (t <= 0 || p < 1 || b < 0 || ppn < 1 ||
            !catalog_has(fl[c.coll], fl[c.alg], &comm_only)) {
            skipped++;
            continue;
        }
        snprintf(alg, sizeof alg, "%s", fl[c.alg]);
        all_params(fl[c.coll], alg);
        ci = coll_index(fl[c.coll]);
        r.coll = ci;
        r.p = (long) p;
        r.ppn = (int) ppn;
        r.b = (long long) b;
        r.alg = alg_index(&colls[ci], alg);
        r.t = t;
        /* an empty or unparsable reference: the cell has none */
        r.ref = 0;
        if (c.ref >= 0 && c.ref < n && parse_num(fl[c.ref], &r.ref) &&
            r.ref < 0)
            r.ref = 0;
        /* group 0 is the unnamed one of input without --group */
        r.group = c.group >= 0 ? group_index(fl[c.group]) : 0;
        r.tol = o->tol;
        for (i = 0; i < o->ntol_of; i++)
            if (c.tol_of[i] < n &&
                strcmp(fl[c.tol_of[i]], o->tol_val[i]) == 0) {
                r.tol = o->tol_of[i];
                tol_hits[i]++;
            }
        r.held = 0;
        for (i = 0; i < o->nhold; i++)
            r.held |=
                c.hold[i] < n && strcmp(fl[c.hold[i]], o->hold_val[i]) == 0;
        if (nrows == caprows) {
            caprows = caprows ? 2 * caprows : 1024;
            rows = xrealloc(rows, caprows * sizeof *rows);
        }
        rows[nrows++] = r;
    }
    if (f != stdin)
        fclose(f);
    return skipped;
}

static int by_cell(const void *a_, const void *b_)
{
    const row_t *a = a_, *b = b_;

    if (a->held != b->held)
        return a->held - b->held;
    if (a->coll != b->coll)
        return a->coll - b->coll;
    if (a->ppn != b->ppn)
        return a->ppn - b->ppn;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return a->group - b->group;
}

/* ------------------------------------------------------- segmentation */

/* The cells of one (coll, ppn), sorted by p then bytes. */
typedef struct {
    int ppn;
    cell_t *c;
    int n;
    long ps[1024]; /* the distinct p, ascending */
    int np;
} plane_t;

/* A range of message sizes [lo, hi] (indices into the sorted distinct
 * sizes) with its algorithm (and the alternative for non-commutative
 * calls, or -1). */
typedef struct {
    long long b_lo, b_hi;
    int alg, alt;
} seg_t;

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *) a, y = *(const long long *) b;

    return x < y ? -1 : x > y;
}

/* Distinct sizes of the cells whose p is in [p_lo, p_hi]. */
static int sizes_of(const plane_t *pl, long p_lo, long p_hi, long long *out)
{
    int i, n = 0, k = 0;

    for (i = 0; i < pl->n; i++)
        if (pl->c[i].p >= p_lo && pl->c[i].p <= p_hi)
            out[n++] = pl->c[i].b;
    qsort(out, (size_t) n, sizeof *out, cmp_ll);
    for (i = 0; i < n; i++)
        if (k == 0 || out[k - 1] != out[i])
            out[k++] = out[i];
    return k;
}

/* A cell an algorithm has no time in costs this much: more than any sum
 * of time / best, so an algorithm measured in every cell always wins
 * over one that is not, and among those that are not the one measured
 * in the most wins (the large column runs only the best few algorithms
 * of the size before, which may differ between platforms). */
#define MISSED 1e12

/* What a slower time than the reference costs per unit of excess ratio
 * (--reference), on top of time / best: an algorithm 1.10x the reference
 * pays 0.4 more, as much as one 1.4x the best. */
#define REF_WEIGHT 4.0

/* One cell's cost of time t: t / best, plus the reference's penalty. */
static double cell_cost(const cell_t *c, double t)
{
    double x = t / c->best;

    if (c->ref > 0 && t > c->ref)
        x += REF_WEIGHT * (t / c->ref - 1);
    return x;
}

/* Summed cell_cost of alg over the cells of p in [p_lo, p_hi] and b in
 * [b_lo, b_hi], plus MISSED per cell without its time; HUGE_VAL if it
 * has a time in none of them. */
static double cost(const plane_t *pl, long p_lo, long p_hi, long long b_lo,
                   long long b_hi, int alg)
{
    double s = 0;
    int i, timed = 0;

    for (i = 0; i < pl->n; i++) {
        const cell_t *c = &pl->c[i];

        if (c->p < p_lo || c->p > p_hi || c->b < b_lo || c->b > b_hi)
            continue;
        if (c->t[alg] <= 0) {
            s += MISSED;
            continue;
        }
        timed = 1;
        s += cell_cost(c, c->t[alg]);
    }
    return timed ? s : HUGE_VAL;
}

static int cheapest(const plane_t *pl, long p_lo, long p_hi, long long b_lo,
                    long long b_hi, uint64_t set)
{
    double best = HUGE_VAL, x;
    int a, arg = -1;

    for (a = 0; a < MAX_ALGS; a++) {
        if (!(set >> a & 1))
            continue;
        x = cost(pl, p_lo, p_hi, b_lo, b_hi, a);
        if (x < best) {
            best = x;
            arg = a;
        }
    }
    return arg;
}

/* Split the sizes of p in [p_lo, p_hi] into ranges; returns their number
 * (0: some size has no algorithm good for all those p).  comm_only[a]:
 * algorithm a is commutative-only. */
static int segment(const plane_t *pl, long p_lo, long p_hi,
                   const int *comm_only, int nalgs, seg_t *segs)
{
    long long sizes[4096];
    int ns = sizes_of(pl, p_lo, p_hi, sizes), i, k, nseg = 0;
    uint64_t cur = 0, general = 0;
    long long start = 0;

    for (k = 0; k < nalgs; k++)
        if (!comm_only[k])
            general |= UINT64_C(1) << k;
    for (k = 0; k <= ns; k++) {
        uint64_t g = ~UINT64_C(0);

        if (k < ns)
            for (i = 0; i < pl->n; i++)
                if (pl->c[i].b == sizes[k] && pl->c[i].p >= p_lo &&
                    pl->c[i].p <= p_hi)
                    g &= pl->c[i].good;
        if (k < ns && g == 0 && p_lo == p_hi) {
            /* platforms disagree at this p and size: the compromise */
            int a = cheapest(pl, p_lo, p_hi, sizes[k], sizes[k], ~UINT64_C(0));
            g = a >= 0 ? UINT64_C(1) << a : 0;
        }
        if (k < ns && g == 0)
            return 0;
        if (k > 0 && (k == ns || !(cur & g))) {
            seg_t *s = &segs[nseg++];

            s->b_lo = start;
            s->b_hi = sizes[k - 1];
            s->alg = cheapest(pl, p_lo, p_hi, s->b_lo, s->b_hi, cur);
            s->alt = comm_only[s->alg]
                         ? cheapest(pl, p_lo, p_hi, s->b_lo, s->b_hi, general)
                         : -1;
            cur = g;
            start = k < ns ? sizes[k] : 0;
        } else if (k < ns) {
            cur = k == 0 ? g : cur & g;
        }
        if (k == 0)
            start = sizes[0];
    }
    return nseg;
}

/* ---------------------------------------------------------------- JSON */

static long long geo_cut(long long a, long long b)
{
    return (long long) floor(sqrt((double) a * (double) b));
}

/* {"algorithm=NAME": {params}} entries for alg (and alt) into obj. */
static void add_leaf(json_object *obj, const coll_t *c, int alg)
{
    char key[96], name[64], *params, *kv, *save = NULL;
    json_object *prm = json_object_new_object();

    base_name(c->algs[alg], name, sizeof name);
    snprintf(key, sizeof key, "algorithm=%s", name);
    params = strchr(c->algs[alg], ':');
    if (params) {
        char *copy = strdup(params + 1);

        for (kv = strtok_r(copy, ",", &save); kv;
             kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');

            if (!eq)
                continue;
            *eq = '\0';
            json_object_object_add(prm, kv,
                                   json_object_new_int64(atoll(eq + 1)));
        }
        free(copy);
    }
    json_object_object_add(obj, key, prm);
}

static json_object *size_level(const coll_t *c, const seg_t *s, int nseg)
{
    json_object *o = json_object_new_object();
    int k;

    for (k = 0; k < nseg; k++) {
        json_object *leaf = nseg == 1 ? o : json_object_new_object();
        char key[64];

        add_leaf(leaf, c, s[k].alg);
        if (s[k].alt >= 0 && s[k].alt != s[k].alg)
            add_leaf(leaf, c, s[k].alt);
        if (nseg == 1)
            break;
        if (k == nseg - 1)
            snprintf(key, sizeof key, "avg_msg_size=any");
        else
            snprintf(key, sizeof key, "avg_msg_size<=%lld",
                     geo_cut(s[k].b_hi, s[k + 1].b_lo));
        json_object_object_add(o, key, leaf);
    }
    return o;
}

/* Move the children of src into dst (json-c keeps insertion order). */
static void merge_into(json_object *dst, json_object *src)
{
    json_object_object_foreach(src, key, val)
    {
        json_object_object_add(dst, key, json_object_get(val));
    }
    json_object_put(src);
}

/* The tree of one (coll, ppn) plane; *ranges counts its leaves' ranges. */
static json_object *plane_tree(const plane_t *pl, const coll_t *c,
                               const int *comm_only, int *ranges)
{
    json_object *o = json_object_new_object();
    seg_t segs[4096], trial[4096];
    int g0 = 0, k, nseg = 0, n1, nt;

    /* groups of consecutive p: [ps[g0], ps[k-1]] */
    for (k = 1; k <= pl->np; k++) {
        if (k == g0 + 1)
            nseg =
                segment(pl, pl->ps[g0], pl->ps[g0], comm_only, c->nalgs, segs);
        if (k < pl->np) {
            n1 = segment(pl, pl->ps[k], pl->ps[k], comm_only, c->nalgs, trial);
            nt = segment(pl, pl->ps[g0], pl->ps[k], comm_only, c->nalgs, trial);
            if (nt > 0 && nt <= (nseg > n1 ? nseg : n1)) {
                memcpy(segs, trial, sizeof segs[0] * (size_t) nt);
                nseg = nt;
                continue;
            }
        }
        if (nseg == 0) {
            /* no algorithm has a time in every cell of some size of this
             * range (all skipped or failed somewhere): no branch, so its
             * calls fall through to the next one (an empty branch would
             * be a node that yields nothing, which the loader warns of) */
            g0 = k;
            continue;
        }
        {
            json_object *lvl = size_level(c, segs, nseg);
            char key[64];

            *ranges += nseg;
            if (g0 == 0 && k == pl->np) {
                merge_into(o, lvl);
                break;
            }
            if (k == pl->np)
                snprintf(key, sizeof key, "comm_size=any");
            else
                snprintf(key, sizeof key, "comm_size<=%lld",
                         geo_cut(pl->ps[k - 1], pl->ps[k]));
            json_object_object_add(o, key, lvl);
        }
        g0 = k;
    }
    return o;
}

/* ------------------------------------------------------------- explain */

/* The algorithm the file selects for a cell ("ring:chunk=65536"). */
static int explain(const char *file, const char *coll, long p, int ppn,
                   long long b, char *alg, size_t len)
{
    static char out[EXPLAIN_OUT];
    char spec[1024], *arrow, *end;

    snprintf(spec, sizeof spec,
             "coll=%s,comm_size=%ld,bytes=%lld,ppn=%d,file=%s", coll, p, b, ppn,
             file);
    if (ch4coll_explain(spec, out, sizeof out) != 0)
        return -1;
    arrow = strstr(out, "-> ");
    if (!arrow)
        return -1;
    arrow += 3;
    end = strstr(arrow, " (");
    if (!end)
        end = arrow + strcspn(arrow, "\n");
    snprintf(alg, len, "%.*s", (int) (end - arrow), arrow);
    return 0;
}

/* Time of the measured algorithm matching sel (same string, or the only
 * one with the same base name); 0 if none. */
static double time_of(const coll_t *c, const cell_t *cell, const char *sel)
{
    char a[64], s[64];
    double t = 0;
    int i, same = 0;

    for (i = 0; i < c->nalgs; i++)
        if (strcmp(c->algs[i], sel) == 0)
            return cell->t[i];
    base_name(sel, s, sizeof s);
    for (i = 0; i < c->nalgs; i++) {
        base_name(c->algs[i], a, sizeof a);
        if (strcmp(a, s) == 0 && cell->t[i] > 0) {
            t = cell->t[i];
            same++;
        }
    }
    return same == 1 ? t : 0;
}

static void progress(const opts_t *o, long done, long total)
{
    static int last = -1;
    int width = 40, fill = total ? (int) (done * width / total) : width;
    int pct = total ? (int) (done * 100 / total) : 100;

    if (o->quiet || pct == last)
        return;
    last = pct;
    if (isatty(2))
        fprintf(stderr, "\rchecking [%.*s%*s] %3d%% %ld/%ld cells", fill,
                "########################################", width - fill, "",
                pct, done, total);
    else if (pct % 25 == 0)
        fprintf(stderr, "checking: %d%% (%ld/%ld cells)\n", pct, done, total);
    if (done == total && isatty(2))
        fputc('\n', stderr);
}

/* --------------------------------------------------------------- maps */

static void draw_map(const opts_t *o, const char *file, const coll_t *c,
                     const plane_t *pl, int nplanes)
{
    char dat[1024], gp[1024], png[1024], sel[256], names[MAX_ALGS][64];
    char cmd[1100];
    long long sizes[4096], b;
    int ns = sizes_of(pl, 0, pl->ps[pl->np - 1], sizes), nn = 0, i, k, a;
    int ppn = pl->ppn;
    FILE *f;

    if (ns == 0)
        return;
    snprintf(png, sizeof png, nplanes > 1 ? "%s-%s-ppn%d.png" : "%s-%s.png",
             o->map, c->name, ppn);
    snprintf(dat, sizeof dat, "%.1000s.dat", png);
    snprintf(gp, sizeof gp, "%.1000s.gp", png);
    f = fopen(dat, "w");
    if (!f)
        die("cannot write %s", dat);
    /* one gnuplot data block per algorithm the file selects */
    {
        static char lines[MAX_ALGS][65536];
        size_t used[MAX_ALGS] = {0};

        for (i = 0; i < pl->np; i++)
            for (b = sizes[0]; b <= sizes[ns - 1]; b = b ? 2 * b : 1) {
                if (explain(file, c->name, pl->ps[i], ppn, b, sel,
                            sizeof sel) != 0)
                    snprintf(sel, sizeof sel, "?");
                base_name(sel, names[nn], sizeof names[nn]);
                for (a = 0; a < nn; a++)
                    if (strcmp(names[a], names[nn]) == 0)
                        break;
                if (a == nn && nn < MAX_ALGS - 1)
                    nn++;
                if (a < MAX_ALGS && used[a] + 64 < sizeof lines[a])
                    used[a] += (size_t) snprintf(lines[a] + used[a],
                                                 sizeof lines[a] - used[a],
                                                 "%lld %d\n", b ? b : 1, i);
            }
        for (a = 0; a < nn; a++)
            fprintf(f, "\"%s\"\n%s\n\n", names[a], lines[a]);
    }
    fclose(f);
    f = fopen(gp, "w");
    if (!f)
        die("cannot write %s", gp);
    fprintf(f,
            "set terminal pngcairo size 1000,%d\nset output '%s'\n"
            "set title '%s, ppn %d: the algorithm %s selects' noenhanced\n"
            "set logscale x 2\nset format x '2^{%%L}'\n"
            "set xlabel 'bytes per rank'\nset ylabel 'communicator size'\n"
            "set key outside right\nset ytics (",
            200 + 40 * pl->np, png, c->name, ppn, file);
    for (k = 0; k < pl->np; k++)
        fprintf(f, "%s'%ld' %d", k ? ", " : "", pl->ps[k], k);
    fprintf(f,
            ")\nset yrange [-0.5:%d.5]\nplot for [i=0:%d] '%s' index i "
            "using 1:2 with points pt 5 ps 2.5 title columnheader(1) "
            "noenhanced\n",
            pl->np - 1, nn - 1, dat);
    fclose(f);
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>/dev/null", gp);
    if (system(cmd) != 0)
        fprintf(stderr,
                "ch4coll-tune: gnuplot failed or is missing (apt: "
                "gnuplot-nox); the data and script are %s, %s\n",
                dat, gp);
    else if (!o->quiet)
        fprintf(stderr, "ch4coll-tune: map %s\n", png);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: ch4coll-tune [-o FILE | --evaluate TREE] [--base FILE]\n"
        "                    [--tolerance PCT] [--tolerance-of "
        "COL=VALUE:PCT]...\n"
        "                    [--where COL=VALUE]... [--map PREFIX]\n"
        "                    [--group COL] [--reference COL] "
        "[--ppn-of COL=VALUE:K]...\n"
        "                    [--hierarchy] [--hold-out COL=VALUE]...\n"
        "                    [--quiet] CSV...\n"
        "Write a tuning file (JSON selection tree) from measured times.\n\n"
        "  CSV               files with a header naming the columns "
        "collective, p,\n"
        "                    bytes, algorithm (or name) and seconds (or us); "
        "ppn\n"
        "                    optional (--ppn);\n"
        "                    '-' reads standard input.  One row: one "
        "algorithm's time\n"
        "                    for one (collective, ppn, p, bytes); "
        "algorithm is a name\n"
        "                    of ch4coll-info --algorithms or native, with "
        "optional\n"
        "                    :k=v,... parameters; other columns are ignored\n"
        "  -o, --output FILE the tuning file to write (default tuned.json)\n"
        "  --base FILE       the tree whose branches the collectives "
        "without\n"
        "                    measurements keep (default %s/default.json)\n"
        "  --tolerance PCT   an algorithm within PCT %% of a cell's best "
        "counts as\n"
        "                    good there (default 5): larger gives smaller "
        "trees\n"
        "  --where COL=VALUE only the rows whose column COL is VALUE "
        "(repeatable)\n"
        "  --ppn K           ranks per node of input without a ppn column "
        "(default 1)\n"
        "  --algorithm-column COL\n"
        "                    the column naming what ran (default: "
        "algorithm, algo or\n"
        "                    name); its text up to the first space counts, "
        "';' may\n"
        "                    separate parameters (maint/smpi-compare: "
        "ran)\n"
        "  --group COL       the rows' platform: a cell is (collective, ppn, "
        "p,\n"
        "                    bytes, COL), so a choice must hold on every "
        "platform\n"
        "                    measured (where none does at one p and size, "
        "the one\n"
        "                    with the smallest summed time / best); the "
        "summary\n"
        "                    gives the regret per platform\n"
        "  --reference COL   a time to beat per row's cell, in seconds (e.g. "
        "the\n"
        "                    fastest algorithm of another library): where "
        "algorithms\n"
        "                    are ranked, one slower than it pays 4x its "
        "excess ratio\n"
        "                    on top of its time / best (empty: none)\n"
        "  --tolerance-of COL=VALUE:PCT\n"
        "                    the rows whose column COL is VALUE use "
        "tolerance PCT\n"
        "                    (a noisy source more, a simulation less; "
        "repeatable;\n"
        "                    a cell takes its rows' largest)\n"
        "  --ppn-of COL=VALUE:K\n"
        "                    the rows whose column COL is VALUE have K ranks "
        "per\n"
        "                    node (a platform's; repeatable)\n"
        "  --hierarchy       several ppn: those above 1 under "
        "comm_hierarchy=parent\n"
        "                    (several nodes sharing ranks), ppn 1 for every "
        "other\n"
        "                    communicator (one node, one rank per node), as "
        "the\n"
        "                    default tree (without ppn 1 rows, the base "
        "tree's);\n"
        "                    without it comm_avg_ppn<=K branches\n"
        "  --comment TEXT    the file's top-level \"comment\": how it was "
        "made\n"
        "  --hold-out COL=VALUE\n"
        "                    learn without the matching rows and check the "
        "tree on\n"
        "                    them alone: the held-out regret (repeatable)\n"
        "  --map PREFIX      PREFIX-<collective>.png: the selection, bytes x "
        "p\n"
        "                    (gnuplot; the .dat and .gp files stay beside)\n"
        "  --quiet           no progress and no summary\n"
        "  --evaluate TREE   write nothing: check the existing tuning file "
        "TREE\n"
        "                    against the measurements (the summary below), "
        "e.g.\n"
        "                    the default tree, or a tuned file on a second "
        "run's data\n\n"
        "Sizes above the largest one measured at a p (on a platform measured "
        "there)\ntake the cells of the largest smaller p measured at them: "
        "a large p\nmeasured at small sizes only keeps that p's large-size "
        "choices (each\nborrowing is reported; the check leaves those cells "
        "out).\n"
        "The file is validated as ch4coll-info --validate does, then every "
        "measured\ncell is explained through it; the summary gives the "
        "regret (the time of\nthe algorithm the file selects / the cell's "
        "best).  Exit status 0, 1 if the\nfile does not validate, 2 on bad "
        "input.  doc/tuning.md has the method.\n",
        CH4COLL_TUNINGDIR);
}

static void parse_args(int argc, char **argv, opts_t *o)
{
    static const struct option lo[] = {
        {"output", required_argument, NULL, 'o'},
        {"base", required_argument, NULL, 'B'},
        {"tolerance", required_argument, NULL, 't'},
        {"where", required_argument, NULL, 'w'},
        {"map", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},
        {"evaluate", required_argument, NULL, 'e'},
        {"ppn", required_argument, NULL, 'P'},
        {"algorithm-column", required_argument, NULL, 'A'},
        {"group", required_argument, NULL, 'G'},
        {"reference", required_argument, NULL, 'R'},
        {"ppn-of", required_argument, NULL, 'K'},
        {"tolerance-of", required_argument, NULL, 'T'},
        {"hierarchy", no_argument, NULL, 'Y'},
        {"comment", required_argument, NULL, 'C'},
        {"hold-out", required_argument, NULL, 'H'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    int ch;
    double v;
    char *eq, *colon;

    o->out = "tuned.json";
    o->base = CH4COLL_TUNINGDIR "/default.json";
    o->tol = 0.05;
    o->ppn = 1;
    while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
        switch (ch) {
        case 'o':
            o->out = optarg;
            break;
        case 'B':
            o->base = optarg;
            break;
        case 't':
            if (!parse_num(optarg, &v) || v < 0 || v > 100)
                die("--tolerance takes a percentage 0..100, not '%s'", optarg);
            o->tol = v / 100;
            break;
        case 'w':
            eq = strchr(optarg, '=');
            if (!eq || eq == optarg || o->nwhere == MAX_WHERE)
                die("--where takes COL=VALUE (at most 8), not '%s'", optarg);
            *eq = '\0';
            o->where_col[o->nwhere] = optarg;
            o->where_val[o->nwhere++] = eq + 1;
            break;
        case 'm':
            o->map = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'e':
            o->out = optarg;
            o->evaluate = 1;
            break;
        case 'A':
            o->algo_col = optarg;
            break;
        case 'G':
            o->group_col = optarg;
            break;
        case 'R':
            o->ref_col = optarg;
            break;
        case 'Y':
            o->hierarchy = 1;
            break;
        case 'C':
            o->comment = optarg;
            break;
        case 'K':
            eq = strchr(optarg, '=');
            colon = eq ? strrchr(eq, ':') : NULL;
            if (!eq || eq == optarg || !colon || o->nppn_of == MAX_WHERE ||
                !parse_num(colon + 1, &v) || v < 1 || v > 1 << 20 ||
                v != (int) v)
                die("--ppn-of takes COL=VALUE:K (at most 8), not '%s'", optarg);
            *eq = *colon = '\0';
            o->ppn_col[o->nppn_of] = optarg;
            o->ppn_val[o->nppn_of] = eq + 1;
            o->ppn_of[o->nppn_of++] = (int) v;
            break;
        case 'T':
            eq = strchr(optarg, '=');
            colon = eq ? strrchr(eq, ':') : NULL;
            if (!eq || eq == optarg || !colon || o->ntol_of == MAX_WHERE ||
                !parse_num(colon + 1, &v) || v < 0 || v > 100)
                die("--tolerance-of takes COL=VALUE:PCT, PCT 0..100 (at most "
                    "8), not '%s'",
                    optarg);
            *eq = *colon = '\0';
            o->tol_col[o->ntol_of] = optarg;
            o->tol_val[o->ntol_of] = eq + 1;
            o->tol_of[o->ntol_of++] = v / 100;
            break;
        case 'H':
            eq = strchr(optarg, '=');
            if (!eq || eq == optarg || o->nhold == MAX_WHERE)
                die("--hold-out takes COL=VALUE (at most 8), not '%s'", optarg);
            *eq = '\0';
            o->hold_col[o->nhold] = optarg;
            o->hold_val[o->nhold++] = eq + 1;
            break;
        case 'P':
            if (!parse_num(optarg, &v) || v < 1 || v > 1 << 20 || v != (int) v)
                die("--ppn takes a positive integer, not '%s'", optarg);
            o->ppn = (int) v;
            break;
        case 'h':
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            exit(2);
        }
    }
    if (optind == argc) {
        usage(stderr);
        exit(2);
    }
}

/* The planes of collective ci (one per ppn) from the sorted rows at *at;
 * good sets with each cell's tolerance. */
static int planes_of(int ci, size_t *at, size_t end, plane_t *pl, int max)
{
    int np = 0, a, i;

    while (*at < end && rows[*at].coll == ci) {
        plane_t *P = &pl[np++];

        if (np > max)
            die("more than 16 ppn values for %s", colls[ci].name);
        memset(P, 0, sizeof *P);
        P->ppn = rows[*at].ppn;
        for (; *at < end && rows[*at].coll == ci && rows[*at].ppn == P->ppn;
             (*at)++) {
            const row_t *r = &rows[*at];
            cell_t *c;

            if (P->n == 0 || P->c[P->n - 1].p != r->p ||
                P->c[P->n - 1].b != r->b || P->c[P->n - 1].group != r->group) {
                P->c = xrealloc(P->c, (size_t) (P->n + 1) * sizeof *P->c);
                c = &P->c[P->n++];
                memset(c, 0, sizeof *c);
                c->p = r->p;
                c->b = r->b;
                c->group = r->group;
                if (P->np == 0 || P->ps[P->np - 1] != r->p) {
                    if (P->np == (int) (sizeof P->ps / sizeof P->ps[0]))
                        die("more than 1024 communicator sizes for %s",
                            colls[ci].name);
                    P->ps[P->np++] = r->p;
                }
            }
            c = &P->c[P->n - 1];
            if (c->t[r->alg] == 0 || r->t < c->t[r->alg])
                c->t[r->alg] = r->t;
            if (r->ref > 0 && (c->ref == 0 || r->ref < c->ref))
                c->ref = r->ref;
            if (r->tol > c->tol)
                c->tol = r->tol;
        }
        for (i = 0; i < P->n; i++) {
            cell_t *c = &P->c[i];

            c->best = HUGE_VAL;
            for (a = 0; a < MAX_ALGS; a++)
                if (c->t[a] > 0 && c->t[a] < c->best)
                    c->best = c->t[a];
            for (a = 0; a < MAX_ALGS; a++)
                if (c->t[a] > 0 && c->t[a] <= c->best * (1 + c->tol))
                    c->good |= UINT64_C(1) << a;
        }
    }
    return np;
}

static int by_p_size(const void *x, const void *y)
{
    const cell_t *a = x, *b = y;

    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return a->group - b->group;
}

/* The largest size measured at p on group g, -1 if none. */
static long long largest_size(const plane_t *P, long p, int g)
{
    long long m = -1;
    int i;

    for (i = 0; i < P->n; i++)
        if (P->c[i].p == p && P->c[i].group == g && P->c[i].b > m)
            m = P->c[i].b;
    return m;
}

/* Report the cells borrow() added from index first on: per p they came
 * from, the range of their sizes. */
static void borrowed(const plane_t *P, int first, const char *coll,
                     const opts_t *o)
{
    int j, m;

    for (j = first; j < P->n && !o->quiet; j++) {
        long long lo = P->c[j].b, hi = P->c[j].b;
        int seen = 0;

        for (m = first; m < j; m++)
            seen |= P->c[m].from == P->c[j].from;
        if (seen)
            continue; /* reported with the first of its source */
        for (m = j + 1; m < P->n; m++)
            if (P->c[m].from == P->c[j].from) {
                lo = P->c[m].b < lo ? P->c[m].b : lo;
                hi = P->c[m].b > hi ? P->c[m].b : hi;
            }
        fprintf(stderr,
                "ch4coll-tune: %s ppn=%d p=%ld%s%s: sizes %lld-%lld not "
                "measured, learned from p=%ld's\n",
                coll, P->ppn, P->c[j].p, o->group_col ? " " : "",
                o->group_col ? groups[P->c[j].group] : "", lo, hi,
                P->c[j].from);
    }
}

/* Sizes above the largest one measured at a p, on a group (platform)
 * measured there, take the cells of the largest smaller p measured at
 * them on that group, as cells of p (from = that p).  The grid measures
 * its largest p at small sizes only (doc/tuning.md, "Beyond the grid"):
 * without them, the last size range learned there would reach every
 * larger size with its largest size's choice.  Learning planes only:
 * the check counts measured cells.  Each borrowing is reported. */
static void borrow(plane_t *P, const char *coll, const opts_t *o)
{
    int i, j, k, g;

    for (i = 1; i < P->np; i++)
        for (g = 0; g < ngroups; g++) {
            long long top = largest_size(P, P->ps[i], g);
            int first = P->n;

            if (top < 0)
                continue; /* group g not measured at this p */
            for (k = i - 1; k >= 0; k--)
                for (j = 0; j < first; j++) {
                    cell_t c = P->c[j];
                    int have = 0, m;

                    if (c.p != P->ps[k] || c.group != g || c.b <= top)
                        continue;
                    for (m = first; m < P->n; m++)
                        have |= P->c[m].b == c.b;
                    if (have)
                        continue; /* from a nearer p */
                    c.from = c.from ? c.from : c.p;
                    c.p = P->ps[i];
                    P->c = xrealloc(P->c, (size_t) (P->n + 1) * sizeof *P->c);
                    P->c[P->n++] = c;
                }
            borrowed(P, first, coll, o);
        }
    qsort(P->c, (size_t) P->n, sizeof *P->c, by_p_size);
}

/* The tree of collective ci: its planes under comm_avg_ppn keys when there
 * are several; with hierarchy, those of more than one rank per node under
 * comm_hierarchy=parent (several nodes sharing ranks), the one-rank-per-
 * node plane after it for every other communicator (one rank per node,
 * one node). */
static json_object *coll_tree(int ci, const plane_t *pl, int np, int hierarchy,
                              json_object *base, int *ranges)
{
    coll_t *c = &colls[ci];
    json_object *top = json_object_new_object(), *in = top;
    int comm_only[MAX_ALGS] = {0}, k, flat = -1, nin = np;
    char key[64];

    for (k = 0; k < c->nalgs; k++)
        catalog_has(c->name, c->algs[k], &comm_only[k]);
    if (hierarchy && (pl[0].ppn > 1 || np > 1)) {
        /* planes are sorted by ppn: the flat one first, if any; without
         * it (one platform of several ranks per host) the planes still go
         * under the parent key, so that a communicator of one rank per
         * node (a composition's leaders) keeps the base tree's choices */
        flat = pl[0].ppn == 1 ? 0 : -1;
        nin = np - (flat + 1);
        in = json_object_new_object();
        json_object_object_add(top, "comm_hierarchy=parent", in);
    }
    for (k = flat + 1; k < np; k++) {
        json_object *t = plane_tree(&pl[k], c, comm_only, ranges);

        if (nin == 1) {
            merge_into(in, t);
            break;
        }
        if (k == np - 1)
            snprintf(key, sizeof key, "comm_avg_ppn=any");
        else
            snprintf(key, sizeof key, "comm_avg_ppn<=%d", pl[k].ppn);
        json_object_object_add(in, key, t);
    }
    if (flat == 0)
        merge_into(top, plane_tree(&pl[0], c, comm_only, ranges));
    else if (in != top && base) {
        /* no flat plane: the base tree's branches for everything else
         * (its own parent branch is what the learned planes replace) */
        json_object_object_del(base, "comm_hierarchy=parent");
        merge_into(top, base);
        base = NULL;
    }
    if (base)
        json_object_put(base);
    return top;
}

/* Explain every cell of the planes through file: agreement and regret. */
typedef struct {
    long cells, checked, agree, unknown;
    double log_regret, worst;
    char worst_cell[256];
} check_t;

/* One checked cell into k. */
static void check_add(check_t *k, int ci, const plane_t *P, const cell_t *cell,
                      const char *sel, double t)
{
    k->checked++;
    if (t <= 0) {
        k->unknown++;
        return;
    }
    k->agree += t <= cell->best * (1 + cell->tol);
    k->log_regret += log(t / cell->best);
    if (t / cell->best > k->worst) {
        k->worst = t / cell->best;
        snprintf(k->worst_cell, sizeof k->worst_cell,
                 "%.40s p=%ld ppn=%d bytes=%lld: %.180s", colls[ci].name,
                 cell->p, P->ppn, cell->b, sel);
    }
}

/* The cells of P measured at their p. */
static long measured(const plane_t *P)
{
    long n = 0;
    int i;

    for (i = 0; i < P->n; i++)
        n += P->c[i].from == 0;
    return n;
}

/* Every cell of P into k, and into kg[its group]. */
static void check_plane(const opts_t *o, int ci, const plane_t *P, check_t *k,
                        check_t *kg)
{
    int j;

    for (j = 0; j < P->n; j++) {
        const cell_t *cell = &P->c[j];
        char sel[256] = "";
        double t = 0;

        if (cell->from)
            continue; /* not measured at its p: borrow() */
        progress(o, k->checked + 1, k->cells);
        if (explain(o->out, colls[ci].name, cell->p, P->ppn, cell->b, sel,
                    sizeof sel) == 0)
            t = time_of(&colls[ci], cell, sel);
        check_add(k, ci, P, cell, sel, t);
        kg[cell->group].cells++;
        check_add(&kg[cell->group], ci, P, cell, sel, t);
    }
}

/* The summary line of k, after prefix. */
static void report(const opts_t *o, const char *prefix, const check_t *k)
{
    long known = k->cells - k->unknown;

    fprintf(stderr,
            "ch4coll-tune: %s%ld cells: a good algorithm (within %.0f%%%s of "
            "the best) in %ld, regret geomean %.3f, worst %.2fx%s%s%s\n",
            prefix, k->cells, o->tol * 100,
            o->ntol_of ? " or the --tolerance-of" : "", k->agree,
            known ? exp(k->log_regret / (double) known) : 1.0, k->worst,
            k->worst_cell[0] ? " (" : "", k->worst_cell,
            k->worst_cell[0] ? ")" : "");
    if (k->unknown)
        fprintf(stderr,
                "ch4coll-tune: %s%ld cells select an algorithm that was not "
                "measured there\n",
                prefix, k->unknown);
}

/* The base tree with the measured collectives' branches replaced,
 * written to o->out. */
static void write_tree(const opts_t *o, plane_t (*planes)[16],
                       const int *nplanes)
{
    json_object *root = json_object_from_file(o->base);
    FILE *f;
    int ci;

    if (!root || !json_object_is_type(root, json_type_object))
        die("cannot read the base tree %s (--base)", o->base);
    json_object_object_del(root, "comment"); /* the base's, not this file's */
    if (o->comment) {                        /* first in the file */
        json_object *top = json_object_new_object();

        json_object_object_add(top, "comment",
                               json_object_new_string(o->comment));
        merge_into(top, root);
        root = top;
    }
    for (ci = 0; ci < ncolls; ci++) {
        char key[64];
        int ranges = 0;

        json_object *base = NULL, *copy = NULL;

        snprintf(key, sizeof key, "collective=%.40s", colls[ci].name);
        if (json_object_object_get_ex(root, key, &base) &&
            json_object_deep_copy(base, &copy, NULL) != 0)
            die("%s", "out of memory");
        json_object_object_add(root, key,
                               coll_tree(ci, planes[ci], nplanes[ci],
                                         o->hierarchy, copy, &ranges));
        if (!o->quiet)
            fprintf(stderr,
                    "ch4coll-tune: %-22s %2d algorithm(s) measured, %d "
                    "range(s)\n",
                    colls[ci].name, colls[ci].nalgs, ranges);
    }
    f = fopen(o->out, "w");
    if (!f)
        die("cannot write %s", o->out);
    fprintf(f, "%s\n",
            json_object_to_json_string_ext(
                root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                          JSON_C_TO_STRING_NOSLASHESCAPE));
    if (fclose(f) != 0)
        die("cannot write %s", o->out);
    json_object_put(root);
}

int main(int argc, char **argv)
{
    static plane_t planes[32][16], held[32][16];
    int nplanes[32] = {0}, nheld[32] = {0};
    opts_t o = {0};
    int i, ci, k, g;
    long skipped = 0;
    check_t chk = {0}, gchk[64];
    char msg[4096];
    size_t at = 0, nlearn = 0;

    parse_args(argc, argv, &o);
    for (i = optind; i < argc; i++)
        skipped += read_csv(argv[i], &o);
    for (i = 0; i < o.nppn_of; i++)
        if (ppn_hits[i] == 0)
            fprintf(stderr,
                    "ch4coll-tune: warning: --ppn-of %s=%s matched no row\n",
                    o.ppn_col[i], o.ppn_val[i]);
    for (i = 0; i < o.ntol_of; i++)
        if (tol_hits[i] == 0)
            fprintf(stderr,
                    "ch4coll-tune: warning: --tolerance-of %s=%s matched no "
                    "row\n",
                    o.tol_col[i], o.tol_val[i]);
    if (nrows == 0)
        die("%s", "no usable rows in the input (see --help for the columns)");
    qsort(rows, nrows, sizeof *rows, by_cell);
    while (nlearn < nrows && !rows[nlearn].held)
        nlearn++;
    if (nlearn == 0 && !o.evaluate)
        die("%s", "--hold-out leaves no rows to learn from");

    for (ci = 0; ci < ncolls; ci++) {
        nplanes[ci] = planes_of(ci, &at, nlearn, planes[ci], 16);
        for (k = 0; k < nplanes[ci]; k++)
            borrow(&planes[ci][k], colls[ci].name, &o);
    }
    for (ci = 0; ci < ncolls; ci++)
        nheld[ci] = planes_of(ci, &at, nrows, held[ci], 16);
    if (!o.evaluate)
        write_tree(&o, planes, nplanes);
    if (ch4coll_validate(o.out, msg, sizeof msg) != 0) {
        fprintf(stderr, "ch4coll-tune: %s does not validate: %s\n", o.out, msg);
        return 1;
    }

    /* the check: on the held-out rows if there are any */
    memset(gchk, 0, sizeof gchk);
    chk.worst = 1;
    for (g = 0; g < ngroups; g++)
        gchk[g].worst = 1;
    for (ci = 0; ci < ncolls; ci++)
        for (k = 0; k < (nlearn < nrows ? nheld : nplanes)[ci]; k++)
            chk.cells += measured((nlearn < nrows ? held : planes)[ci] + k);
    for (ci = 0; ci < ncolls; ci++) {
        for (k = 0; k < (nlearn < nrows ? nheld : nplanes)[ci]; k++)
            check_plane(&o, ci, &(nlearn < nrows ? held : planes)[ci][k], &chk,
                        gchk);
        for (k = 0; o.map && k < nplanes[ci]; k++)
            draw_map(&o, o.out, &colls[ci], &planes[ci][k], nplanes[ci]);
    }
    if (!o.quiet) {
        snprintf(msg, sizeof msg,
                 "%s %s (valid); %zu rows used, %ld skipped; %s",
                 o.evaluate ? "evaluated" : "wrote", o.out, nrows, skipped,
                 nlearn < nrows ? "held out: " : "");
        report(&o, msg, &chk);
        for (g = o.group_col ? 1 : ngroups; g < ngroups; g++) {
            snprintf(msg, sizeof msg, "%s=%s: ", o.group_col, groups[g]);
            report(&o, msg, &gchk[g]);
        }
    }
    return 0;
}
