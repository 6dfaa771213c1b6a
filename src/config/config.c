/*
 * config.c — parses the SYNCTRACE_* environment (see variables.def).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

st_config_t st_config;
volatile int st_config_loaded;

typedef enum { T_SIZE, T_BOOL, T_UINT, T_DOUBLE, T_STRING, T_PATH, T_ENUM } var_type_t;

typedef struct var_desc {
    const char *name;
    var_type_t type;
    size_t offset;
    size_t cap; /* string capacity */
    const char *def, *accepted, *doc;
} var_desc_t;

#define ST_VAR(name, type, field, def, accepted, doc) \
    { "SYNCTRACE_" #name, T_##type, offsetof(st_config_t, field), sizeof(((st_config_t *)0)->field), def, accepted, doc },
static const var_desc_t vars[] = {
#include "variables.def"
};
#undef ST_VAR
#define NVARS (sizeof vars / sizeof vars[0])

int st_config_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    if (!*s || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s)
        return -1;
    unsigned long long mul = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1ull << 10; break;
        case 'm': case 'M': mul = 1ull << 20; break;
        case 'g': case 'G': mul = 1ull << 30; break;
        default: return -1;
        }
        end++;
        if (*end == 'B' || *end == 'b' || (*end == 'i' && end[1] == 'B' && end++))
            end++;
        if (*end)
            return -1;
    }
    if (v > ULLONG_MAX / mul)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = { "1", "yes", "on", "true" }, *const no[] = { "0", "no", "off", "false" };
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(s, yes[i])) return *out = 1, 0;
        if (!strcasecmp(s, no[i])) return *out = 0, 0;
    }
    return -1;
}

static int parse_enum(const char *s, const char *accepted, int *out)
{
    size_t len = strlen(s);
    int idx = 0;
    for (const char *p = accepted; *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t wl = bar ? (size_t)(bar - p) : strlen(p);
        if (wl == len && !strncasecmp(p, s, len))
            return *out = idx, 0;
        if (!bar)
            break;
        p = bar + 1;
    }
    return -1;
}

/* Range checks beyond the type, for variables that have them. */
static int check_range(const var_desc_t *v, const st_config_t *c)
{
    if (!strcmp(v->name, "SYNCTRACE_BUFFER"))
        return c->buffer >= (64u << 10) && c->buffer <= (1u << 30) ? 0 : -1;
    if (!strcmp(v->name, "SYNCTRACE_VERBOSE"))
        return c->verbose <= 2 ? 0 : -1;
    if (!strcmp(v->name, "SYNCTRACE_CLC_GAMMA"))
        return c->clc_gamma > 0 && c->clc_gamma <= 1 ? 0 : -1;
    if (!strcmp(v->name, "SYNCTRACE_CLC_AMORT"))
        return c->clc_amort > 0 && c->clc_amort <= 1 ? 0 : -1;
    return 0;
}

static int parse_one(const var_desc_t *v, const char *s, st_config_t *c)
{
    void *field = (char *)c + v->offset;
    char *end;
    switch (v->type) {
    case T_SIZE:
        return st_config_parse_size(s, (size_t *)field);
    case T_BOOL:
        return parse_bool(s, (int *)field);
    case T_UINT: {
        if (!*s || *s == '-' || *s == '+')
            return -1;
        errno = 0;
        unsigned long u = strtoul(s, &end, 10);
        if (errno || *end)
            return -1;
        *(unsigned long *)field = u;
        return 0;
    }
    case T_DOUBLE: {
        errno = 0;
        double d = strtod(s, &end);
        if (errno || end == s || *end || !(d >= 0) || d > 1e12)
            return -1;
        *(double *)field = d;
        return 0;
    }
    case T_STRING:
    case T_PATH:
        if (strlen(s) >= v->cap)
            return -1;
        strcpy((char *)field, s);
        return 0;
    case T_ENUM:
        return parse_enum(s, v->accepted, (int *)field);
    }
    return -1;
}

static int known_name(const char *entry)
{
    for (size_t i = 0; i < NVARS; i++) {
        size_t n = strlen(vars[i].name);
        if (!strncmp(entry, vars[i].name, n) && entry[n] == '=')
            return 1;
    }
    return 0;
}

int st_config_load(char *err, size_t errlen)
{
    st_config_t c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < NVARS; i++) {
        const var_desc_t *v = &vars[i];
        if (parse_one(v, v->def, &c) != 0) { /* defaults are compiled in: a bug if bad */
            snprintf(err, errlen, "internal: bad default for %s", v->name);
            return -1;
        }
        const char *s = getenv(v->name);
        if (s && (parse_one(v, s, &c) != 0 || check_range(v, &c) != 0)) {
            snprintf(err, errlen, "%s='%s' is not valid; accepted: %s", v->name, s, v->accepted);
            return -1;
        }
    }
    for (char **e = environ; e && *e; e++) {
        if (!strncmp(*e, "SYNCTRACE_", 10) && !known_name(*e)) {
            const char *eq = strchr(*e, '=');
            int n = eq ? (int)(eq - *e) : (int)strlen(*e);
            snprintf(err, errlen, "unknown variable %.*s; see 'synctrace env' for the accepted SYNCTRACE_* variables", n, *e);
            return -1;
        }
    }
    st_config = c;
    st_config_loaded = 1;
    return 0;
}

void st_config_print(FILE *out, int markdown)
{
    if (markdown)
        fprintf(out, "| variable | default | accepted | meaning |\n|---|---|---|---|\n");
    for (size_t i = 0; i < NVARS; i++) {
        const var_desc_t *v = &vars[i];
        const char *def = *v->def ? v->def : "(see meaning)";
        if (markdown)
            fprintf(out, "| `%s` | `%s` | %s | %s |\n", v->name, def, v->accepted, v->doc);
        else
            fprintf(out, "%s (default %s; accepted: %s)\n    %s\n", v->name, def, v->accepted, v->doc);
    }
}
