/*
 * test_clock_spec.c — the SYNCTRACE_SYNC grammar: accepted forms with their meaning,
 * rejected forms with a one-line message that names the variable, the bad part and
 * what is accepted; canonical formatting.
 */
/* link: src/clock/spec.c */
#include <stdio.h>
#include <string.h>

#include "../../src/clock/spec.h"

#include "check.h"

/* The same names and options as the descriptor table in src/clock/algs_mpi.c. */
static const st_sync_alg_info_t algs[] = {
    { "hca3", "fit,pp,offset,intercept,window,lsq" },
    { "hca2", "fit,pp,offset,intercept,window,lsq" },
    { "jk", "fit,pp,offset,intercept,window,lsq" },
    { "prop", "pp,check" },
    { NULL, NULL },
};

static void ok(const char *s, int scheme, int nlevels, const char *canon)
{
    st_sync_spec_t sp;
    char err[400] = "", out[256];
    int rc = st_sync_spec_parse(s, algs, &sp, err, sizeof err);
    EXPECT(rc == 0, "'%s' rejected: %s", s, err);
    if (rc)
        return;
    EXPECT(sp.scheme == scheme && sp.nlevels == nlevels, "'%s': scheme %d levels %d", s, sp.scheme, sp.nlevels);
    st_sync_spec_format(&sp, out, sizeof out);
    EXPECT(!strcmp(out, canon), "'%s' formats as '%s', expected '%s'", s, out, canon);
}

static void bad(const char *s, const char *mentions)
{
    st_sync_spec_t sp;
    char err[400] = "";
    int rc = st_sync_spec_parse(s, algs, &sp, err, sizeof err);
    EXPECT(rc != 0, "'%s' accepted", s);
    if (!rc)
        return;
    EXPECT(strstr(err, "SYNCTRACE_SYNC") && strstr(err, "accepted") && !strchr(err, '\n'),
          "message for '%s' is not one line naming the variable and what is accepted: %s", s, err);
    EXPECT(strstr(err, mentions) != NULL, "message for '%s' does not mention '%s': %s", s, mentions, err);
}

int main(void)
{
    ok("none", ST_SCHEME_NONE, 0, "none");
    ok("h2hca", ST_SCHEME_H2HCA, 2, "h2hca:hca3/prop");
    ok("h3hca", ST_SCHEME_H3HCA, 3, "h3hca:hca3/hca3/prop");
    ok("flat", ST_SCHEME_FLAT, 1, "flat:hca3");
    ok("hca3", ST_SCHEME_FLAT, 1, "flat:hca3");
    ok("jk(pp=20)", ST_SCHEME_FLAT, 1, "flat:jk(pp=20)");
    ok("hca3/prop", ST_SCHEME_H2HCA, 2, "h2hca:hca3/prop");
    ok("hca2/jk/prop(check=0)", ST_SCHEME_H3HCA, 3, "h3hca:hca2/jk/prop(check=0)");
    ok("h2hca(resync=full):hca3(fit=20,pp=30,window=80)/prop", ST_SCHEME_H2HCA, 2,
       "h2hca(resync=full):hca3(fit=20,pp=30,window=80)/prop");
    ok("flat:hca2(offset=meanrtt,intercept=1,lsq=1)", ST_SCHEME_FLAT, 1,
       "flat:hca2(offset=meanrtt,intercept=1,lsq=1)");
    st_sync_spec_t sp;
    char err[400];
    if (st_sync_spec_parse("h2hca:jk(fit=7)/prop", algs, &sp, err, sizeof err) == 0)
        EXPECT(!strcmp(sp.level[0].alg, "jk") && sp.level[0].nfit == 7 && sp.level[0].npp == -1 &&
                  !strcmp(sp.level[1].alg, "prop"), "levels not parsed into the spec");

    bad("", "unknown algorithm");
    bad("hca4", "hca4");
    bad("HCA3", "HCA3");
    bad("h2hca:hca3", "2 level");
    bad("h2hca:hca3/prop/prop", "2 level");
    bad("hca3/prop/prop/prop", "more than 3");
    bad("hca3(fit=0)", "fit=1..100");
    bad("hca3(fit=x)", "fit=1..100");
    bad("hca3(fit=101)", "fit=1..100");
    bad("hca3(pp=10000,fit=1000)", "pp=1..200");
    bad("hca3(pp=99999999999999999999)", "pp=1..200");
    bad("hca3(window=60000)", "window=0..10000");
    bad("hca3(foo=1)", "foo");
    bad("prop(fit=3)", "fit");
    bad("hca3(fit=3", "')'");
    bad("hca3(offset=median)", "skampi|meanrtt");
    bad("none:hca3", "none");
    bad("hca3/", "unknown algorithm");
    bad("h2hca(resync=maybe)", "resync=offset|full");
    bad("h2hca hca3", "unexpected");
    bad("hca3;prop", "unexpected");
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
