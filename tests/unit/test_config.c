/*
 * test_config.c — the strict parser of SYNCTRACE_* values (src/config/config.c).
 *
 * Every variable of variables.def gets the same hostile values (empty, blank, sign, overflow, hexadecimal,
 * inf/nan, garbage, unicode, newline, too long); each must be refused with one line that names the
 * variable and says what is accepted. Then the accepted edges of each numeric range, and the
 * regressions found hardening the parser: 4294967296 as a node size, " -1", CLC_ROUNDS above 200, hex seconds,
 * CLOCKCHECK=9e9, a TMPDIR that does not exist.
 */
/* link: src/config/config.c src/util/archive_dir.c */
#include "../../src/config/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static const char *const names[] = {
#define ST_VAR(name, type, field, def, lo, hi, accepted, doc) "SYNCTRACE_" #name,
#include "../../src/config/variables.def"
#undef ST_VAR
};
static const char *const types[] = {
#define ST_VAR(name, type, field, def, lo, hi, accepted, doc) #type,
#include "../../src/config/variables.def"
#undef ST_VAR
};
#define NNAMES (sizeof names / sizeof names[0])

static int clear_env(void)
{
    for (size_t i = 0; i < NNAMES; i++)
        unsetenv(names[i]);
    return 0;
}

/* Loads with name=value; returns the result and the message. */
static int load_with(const char *name, const char *value, char *err, size_t len)
{
    clear_env();
    err[0] = 0;
    if (value)
        setenv(name, value, 1);
    int rc = st_config_load(err, len);
    unsetenv(name);
    return rc;
}

static void refused(const char *name, const char *value)
{
    char err[600];
    int rc = load_with(name, value, err, sizeof err);
    EXPECT(rc != 0, "%s='%s' was accepted", name, value);
    if (rc == 0)
        return;
    EXPECT(strchr(err, '\n') == NULL && strchr(err, '\r') == NULL, "%s: the message is not one line: %s", name, err);
    EXPECT(strstr(err, name) != NULL, "%s: the message does not name the variable: %s", name, err);
    EXPECT(strstr(err, "accepted") != NULL, "%s: the message does not say what is accepted: %s", name, err);
}

static void accepted(const char *name, const char *value)
{
    char err[600];
    EXPECT(load_with(name, value, err, sizeof err) == 0, "%s='%s' was refused: %s", name, value, err);
}

static int is_numeric(const char *type)
{
    return !strcmp(type, "SIZE") || !strcmp(type, "UINT") || !strcmp(type, "DOUBLE") || !strcmp(type, "FRACTION");
}

int main(void)
{
    char err[600];
    /* Values no numeric, bool or enum variable accepts; strings and paths take text, TMPDIR must name a directory. */
    static const char *const bad_any[] = { "x\ny", "a\rb" };
    static const char *const bad_num[] = { "", " ", "-1", " -1", "+1", "1 ", " 1", "0x10", "0X1p3", "inf", "nan",
                                           "1e999", "99999999999999999999999", "4294967296", "18446744073709551616",
                                           "1,5", "1..2", ".5", "5.", "1e", "1e+", "abc", "\xc2\xb5s", "1\n",
                                           "１", "--", "1k2" };
    clear_env();
    EXPECT(st_config_load(err, sizeof err) == 0, "defaults refused: %s", err);
    for (size_t i = 0; i < NNAMES; i++) {
        if (!strcmp(types[i], "STRING") || !strcmp(types[i], "PATH")) {
            if (strcmp(names[i] + 10, "TMPDIR") == 0)
                for (size_t k = 0; k < sizeof bad_any / sizeof *bad_any; k++)
                    refused(names[i], bad_any[k]);
            continue;
        }
        for (size_t k = 0; k < sizeof bad_num / sizeof *bad_num; k++)
            refused(names[i], bad_num[k]); /* no bool or enum word either */
        if (is_numeric(types[i]))
            accepted(names[i], !strcmp(types[i], "SIZE") ? "64k" : "1");
    }

    /* Ranges: the edges are accepted, one past them refused. */
    accepted("SYNCTRACE_BUFFER", "64k");
    accepted("SYNCTRACE_BUFFER", "1G");
    refused("SYNCTRACE_BUFFER", "65535");
    refused("SYNCTRACE_BUFFER", "1025M");
    refused("SYNCTRACE_BUFFER", "99999999999G");
    accepted("SYNCTRACE_NODE_SIZE", "2147483647");
    refused("SYNCTRACE_NODE_SIZE", "2147483648");
    refused("SYNCTRACE_SOCKET_SIZE", "4294967296");
    accepted("SYNCTRACE_CLC_ROUNDS", "200");
    refused("SYNCTRACE_CLC_ROUNDS", "201");
    refused("SYNCTRACE_VERBOSE", "3");
    accepted("SYNCTRACE_RESYNC", "0.25");
    accepted("SYNCTRACE_RESYNC", "2e1");
    refused("SYNCTRACE_RESYNC", "0x10");
    refused("SYNCTRACE_CLOCKCHECK", "9e9");
    accepted("SYNCTRACE_CLOCKCHECK", "600");
    refused("SYNCTRACE_CLC_GAMMA", "0");
    refused("SYNCTRACE_CLC_GAMMA", "1.01");
    accepted("SYNCTRACE_CLC_GAMMA", "1");
    refused("SYNCTRACE_CLC_AMORT", "0.0");
    accepted("SYNCTRACE_CLC_MU", "1e9");
    refused("SYNCTRACE_CLC_MU", "1.1e9");

    /* The parsed values are the written ones. */
    clear_env();
    setenv("SYNCTRACE_BUFFER", "3M", 1);
    setenv("SYNCTRACE_RESYNC", "2.5", 1);
    setenv("SYNCTRACE_NODE_SIZE", "7", 1);
    EXPECT(st_config_load(err, sizeof err) == 0, "good values refused: %s", err);
    EXPECT(st_config.buffer == 3u << 20 && st_config.resync == 2.5 && st_config.node_size == 7,
          "parsed values differ: buffer %zu resync %g node_size %lu", st_config.buffer, st_config.resync,
          st_config.node_size);

    /* A newline in a value shows escaped, in one line. */
    load_with("SYNCTRACE_CLC", "on\nSYNCTRACE_FAKE=1", err, sizeof err);
    EXPECT(strstr(err, "on\\nSYNCTRACE_FAKE") != NULL, "newline not shown escaped: %s", err);

    /* Unknown names, also with a newline in the name. */
    clear_env();
    setenv("SYNCTRACE_BUFER", "8M", 1);
    EXPECT(st_config_load(err, sizeof err) != 0 && strstr(err, "SYNCTRACE_BUFER"), "unknown variable accepted: %s", err);
    unsetenv("SYNCTRACE_BUFER");

    /* The flush directory must exist and be writable: SYNCTRACE_TMPDIR, else $TMPDIR. */
    refused("SYNCTRACE_TMPDIR", "/nonexistent/synctrace-test");
    refused("SYNCTRACE_TMPDIR", "/etc/passwd");
    accepted("SYNCTRACE_TMPDIR", "/tmp");
    char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    setenv("TMPDIR", "/nonexistent/synctrace-test", 1);
    clear_env();
    EXPECT(st_config_load(err, sizeof err) != 0 && strstr(err, "TMPDIR") && !strchr(err, '\n'),
          "a missing $TMPDIR was accepted: %s", err);
    accepted("SYNCTRACE_TMPDIR", "/tmp"); /* SYNCTRACE_TMPDIR wins over $TMPDIR */
    if (old)
        setenv("TMPDIR", old, 1), free(old);
    else
        unsetenv("TMPDIR");

    printf("%s\n", failures ? "FAILED" : "ok");
    return failures != 0;
}
