/*
 * cli.h — the `synctrace` command-line tool: subcommand descriptors and shared helpers.
 *
 * Every subcommand is one descriptor (name, usage, help, run function) in its own file,
 * listed once in commands.def; main.c dispatches on the name, answers --help from the
 * descriptor and, for commands that read archives, runs them under the crash guard
 * (guard.c). Adding a command = one file defining `const st_cli_cmd_t st_cli_cmd_NAME`
 * plus one ST_CLI_CMD(NAME) line in commands.def.
 *
 * Exit codes: 0 success, 1 failure (unreadable archive, violations found, ...),
 * 2 usage error (one line on stderr). Single-threaded.
 */
#ifndef ST_CLI_H
#define ST_CLI_H

#include <stddef.h>

#include "archive.h"

typedef struct st_cli_cmd {
    const char *name;    /* "info" */
    const char *usage;   /* "info DIR" (after "synctrace ") */
    const char *summary; /* one line for `synctrace --help` */
    const char *help;    /* full help text printed by `synctrace NAME --help` */
    int reads_archive;   /* run under the crash guard (guard.c) */
    /* argv[0] is the command name; --help was already handled. Returns the exit code. */
    int (*run)(int argc, char **argv);
} st_cli_cmd_t;

#define ST_CLI_CMD(name) extern const st_cli_cmd_t st_cli_cmd_##name;
#include "commands.def"
#undef ST_CLI_CMD

/* NULL-terminated table of every command, in commands.def order. */
extern const st_cli_cmd_t *const st_cli_commands[];

/* Prints "synctrace: CMD: <message> (usage: synctrace USAGE)" to stderr; returns 2. */
int st_cli_usage_error(const st_cli_cmd_t *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Parses "DIR [flags]" (argv[0] is the command name): opts is a NULL-terminated list of the
 * accepted flags (or NULL); flags[i] becomes 1 when opts[i] is given (flags may be NULL when
 * opts lists none). Returns 0 with *dir set, or prints a usage error and returns 2.
 */
int st_cli_args(const st_cli_cmd_t *cmd, int argc, char **argv, const char *const *opts, int *flags,
                const char **dir);

/*
 * Loads the archive of dir for a command. On failure prints
 * "synctrace: cannot read archive DIR: <reason>" and returns -1. Tells the crash guard
 * when loading is over, so a later crash is not blamed on the archive.
 */
int st_cli_open(const char *dir, st_cli_archive_t *ar);
/* The same, with the events of the ranks pick accepts only (st_cli_archive_load_ranks). */
int st_cli_open_ranks(const char *dir, st_cli_archive_t *ar, st_cli_rank_pick_fn pick, void *ctx);

/*
 * Runs cmd->run(argc, argv) in a forked child and returns its exit code. If the child dies
 * from a signal while loading an archive (OTF2 crashing on a corrupt file), prints
 * "synctrace: cannot read archive DIR: ..." and returns 1; a crash after loading is
 * reported as an internal error (exit 1); SIGPIPE (output closed early) exits quietly.
 */
int st_cli_guard_run(const st_cli_cmd_t *cmd, int argc, char **argv);
/* Called by st_cli_open in the child: loading of dir starts / ended. */
void st_cli_guard_loading(const char *dir);
void st_cli_guard_loaded(void);

#endif
