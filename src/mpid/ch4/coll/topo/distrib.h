/*
 * distrib.h - the six block-size distributions of Träff, Ripke, Siebert,
 * Balaji, Thakur, Gropp, "A pipelined algorithm for large, irregular
 * all-gather problems", section 3, for tests and the model tables.
 *
 * With base size c (bytes) and p ranks, m[i] is rank i's contribution:
 *   1 regular          m_i = c
 *   2 broadcast        m_0 = c, the others 0
 *   3 spike            m_0 = c/2, the others c / (2 (p-1))
 *   4 half full        even ranks 2c, odd ranks 0
 *   5 linear           m_i = 2c (p-1-i) / (p-1)
 *   6 geometric        m_{i-1+j} = c p / (i lg p), i = 1, 2, 4, ..., j < i
 * (integer division; p = 1 gives m_0 = c everywhere.)
 */
#ifndef CH4COLL_DISTRIB_H
#define CH4COLL_DISTRIB_H

#include <math.h>
#include <stddef.h>
#include <string.h>

enum {
    CH4COLL_D_REGULAR = 1,
    CH4COLL_D_BROADCAST,
    CH4COLL_D_SPIKE,
    CH4COLL_D_HALF_FULL,
    CH4COLL_D_LINEAR,
    CH4COLL_D_GEOMETRIC,
    CH4COLL_D_N = CH4COLL_D_GEOMETRIC
};

/* The name of distribution dist (1..6), "?" otherwise. */
static inline const char *ch4coll_distrib_name(int dist)
{
    static const char *const names[] = {"regular",   "broadcast", "spike",
                                        "half_full", "linear",    "geometric"};

    return dist >= 1 && dist <= CH4COLL_D_N ? names[dist - 1] : "?";
}

/* "regular", "broadcast", "spike", "half_full", "linear", "geometric"
 * -> 1..6, or 0 if unknown. */
static inline int ch4coll_distrib_from_name(const char *name)
{
    int i;

    for (i = 1; i <= CH4COLL_D_N; i++)
        if (strcmp(name, ch4coll_distrib_name(i)) == 0)
            return i;
    return 0;
}

/* Distribution dist (1..6) with base size c: m[0..p-1]. */
static inline void ch4coll_distrib_counts(int dist, int p, size_t c, size_t *m)
{
    int i;

    for (i = 0; i < p; i++) {
        switch (dist) {
        case CH4COLL_D_REGULAR:
            m[i] = c;
            break;
        case CH4COLL_D_BROADCAST:
            m[i] = i == 0 ? c : 0;
            break;
        case CH4COLL_D_SPIKE:
            m[i] = p == 1 ? c : i == 0 ? c / 2 : c / (2 * (size_t) (p - 1));
            break;
        case CH4COLL_D_HALF_FULL:
            m[i] = p == 1 ? c : i % 2 == 0 ? 2 * c : 0;
            break;
        case CH4COLL_D_LINEAR:
            m[i] = p == 1 ? c : 2 * c * (size_t) (p - 1 - i) / (size_t) (p - 1);
            break;
        default: { /* geometric: rank i is in the group of 2^floor(lg(i+1)) */
            int g = 1;
            while (2 * g <= i + 1)
                g *= 2;
            m[i] =
                p == 1 ? c : (size_t) ((double) c * p / (g * log2((double) p)));
            break;
        }
        }
    }
}

#endif /* CH4COLL_DISTRIB_H */
