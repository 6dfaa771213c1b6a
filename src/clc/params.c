/*
 * params.c — CLC parameters: defaults, validation, mu selection, and the mapping from
 * the SYNCTRACE_CLC_* settings (variables.def).
 */
#include "clc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../config/config.h"

void st_clc_params_default(st_clc_params_t *p)
{
    *p = (st_clc_params_t){ .gamma = 0.99, .delta = 1, .mu_proc = 1, .mu_intra = 0, .mu_inter = 0,
                            .amort = 0.02, .mu_source = ST_CLC_MU_SRC_NONE };
}

static const char *const mu_source_names[] = { "none", "user", "unknown" };

const char *st_clc_mu_source_name(unsigned src)
{
    return mu_source_names[src <= ST_CLC_MU_SRC_UNKNOWN ? src : ST_CLC_MU_SRC_UNKNOWN];
}

unsigned st_clc_mu_source_parse(const char *name)
{
    for (unsigned i = 0; name && i < ST_CLC_MU_SRC_UNKNOWN; i++)
        if (!strcmp(name, mu_source_names[i]))
            return i;
    return ST_CLC_MU_SRC_UNKNOWN;
}

int st_clc_params_check(const st_clc_params_t *p, char *err, size_t errlen)
{
    if (!(p->gamma > 0.0 && p->gamma <= 1.0)) {
        snprintf(err, errlen, "CLC gamma %g is out of range; accepted: 0 < gamma <= 1", p->gamma);
        return -1;
    }
    if (!(p->amort > 0.0 && p->amort <= 1.0)) {
        snprintf(err, errlen, "CLC amortization rate %g is out of range; accepted: 0 < rate <= 1", p->amort);
        return -1;
    }
    return 0;
}

uint64_t st_clc_mu(const st_clc_params_t *p, unsigned mumask)
{
    uint64_t mu = UINT64_MAX;
    if ((mumask & ST_REL_MU_PROC) && p->mu_proc < mu)
        mu = p->mu_proc;
    if ((mumask & ST_REL_MU_INTRA) && p->mu_intra < mu)
        mu = p->mu_intra;
    if ((mumask & ST_REL_MU_INTER) && p->mu_inter < mu)
        mu = p->mu_inter;
    return mu == UINT64_MAX ? 0 : mu;
}

/* ns value of a non-negative setting; latencies round down (a smaller mu corrects less). */
static uint64_t ns_floor(double v) { return v > 0 && v < 1.8e19 ? (uint64_t)floor(v) : 0; }

/*
 * mu: no measurement of the tool bounds the application's latencies from below (docs/clc.md,
 * "mu"), so it is the user's bound or 0.
 */
void st_clc_params_from_config(st_clc_params_t *p, const st_config_t *c, uint64_t timer_res_ns)
{
    st_clc_params_default(p);
    p->gamma = c->clc_gamma;
    p->amort = c->clc_amort;
    p->mu_proc = ns_floor(c->clc_mu_omp);
    p->delta = c->clc_delta > 0 ? (uint64_t)ceil(c->clc_delta) : (timer_res_ns ? timer_res_ns : 1);
    if (c->clc_mu > 0) {
        p->mu_intra = p->mu_inter = ns_floor(c->clc_mu);
        p->mu_source = ST_CLC_MU_SRC_USER;
    }
}

void st_clc_params_emit(const st_clc_params_t *p, const char *state, st_clc_emit_fn emit, void *ctx)
{
    char v[40];
    emit(ctx, "clc.state", state);
    snprintf(v, sizeof v, "%.17g", p->gamma), emit(ctx, "clc.gamma", v);
    snprintf(v, sizeof v, "%" PRIu64, p->delta), emit(ctx, "clc.delta", v);
    snprintf(v, sizeof v, "%" PRIu64, p->mu_intra), emit(ctx, "clc.mu_intra", v);
    snprintf(v, sizeof v, "%" PRIu64, p->mu_inter), emit(ctx, "clc.mu_inter", v);
    emit(ctx, "clc.mu_source", st_clc_mu_source_name(p->mu_source));
    snprintf(v, sizeof v, "%" PRIu64, p->mu_proc), emit(ctx, "clc.mu_proc", v);
    snprintf(v, sizeof v, "%.17g", p->amort), emit(ctx, "clc.amort", v);
}
