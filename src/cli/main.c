/*
 * main.c — `synctrace` entry point: picks the subcommand from the table (commands.def),
 * answers --help, runs archive-reading commands under the crash guard.
 */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const st_cli_cmd_t *const st_cli_commands[] = {
#define ST_CLI_CMD(name) &st_cli_cmd_##name,
#include "commands.def"
#undef ST_CLI_CMD
    NULL};

int st_cli_usage_error(const st_cli_cmd_t *cmd, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "synctrace: %s: %s (usage: synctrace %s)\n", cmd->name, msg, cmd->usage);
    return 2;
}

int st_cli_args(const st_cli_cmd_t *cmd, int argc, char **argv, const char *const *opts, int *flags,
                const char **dir)
{
    *dir = NULL;
    for (int i = 1; i < argc; i++) {
        int k = 0;
        while (opts && opts[k] && strcmp(opts[k], argv[i]))
            k++;
        if (opts && opts[k])
            flags[k] = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return st_cli_usage_error(cmd, "unknown option '%s'", argv[i]);
        else if (*dir)
            return st_cli_usage_error(cmd, "unexpected argument '%s'", argv[i]);
        else
            *dir = argv[i];
    }
    if (!*dir)
        return st_cli_usage_error(cmd, "missing archive directory");
    return 0;
}

int st_cli_open(const char *dir, st_cli_archive_t *ar)
{
    return st_cli_open_ranks(dir, ar, NULL, NULL);
}

int st_cli_open_ranks(const char *dir, st_cli_archive_t *ar, st_cli_rank_pick_fn pick, void *ctx)
{
    char err[1024];
    st_cli_guard_loading(dir);
    int rc = st_cli_archive_load_ranks(dir, ar, pick, ctx, err, sizeof err);
    st_cli_guard_loaded();
    if (rc)
        fprintf(stderr, "synctrace: cannot read archive %s: %s\n", dir, err);
    return rc;
}

static void overview(FILE *out)
{
    fprintf(out, "usage: synctrace COMMAND [ARGS]   (synctrace COMMAND --help for details)\n\n"
                 "Reads OTF2 archives written by libsynctrace.so.\n\ncommands:\n");
    for (const st_cli_cmd_t *const *c = st_cli_commands; *c; c++)
        fprintf(out, "  %-28s %s\n", (*c)->usage, (*c)->summary);
}

static int is_help(const char *a) { return !strcmp(a, "--help") || !strcmp(a, "-h"); }

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "synctrace: missing command (try synctrace --help)\n");
        return 2;
    }
    if (is_help(argv[1]) || !strcmp(argv[1], "help")) {
        overview(stdout);
        return 0;
    }
    for (const st_cli_cmd_t *const *c = st_cli_commands; *c; c++) {
        if (strcmp((*c)->name, argv[1]))
            continue;
        for (int i = 2; i < argc; i++)
            if (is_help(argv[i])) {
                printf("usage: synctrace %s\n\n%s", (*c)->usage, (*c)->help);
                return 0;
            }
        if ((*c)->reads_archive)
            return st_cli_guard_run(*c, argc - 1, argv + 1);
        return (*c)->run(argc - 1, argv + 1);
    }
    fprintf(stderr, "synctrace: unknown command '%s' (commands:", argv[1]);
    for (const st_cli_cmd_t *const *c = st_cli_commands; *c; c++)
        fprintf(stderr, " %s", (*c)->name);
    fprintf(stderr, ")\n");
    return 2;
}
