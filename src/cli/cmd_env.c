/* cmd_env.c — `synctrace env`: the table of SYNCTRACE_* variables (from variables.def). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "../config/config.h"

static int run_env(int argc, char **argv)
{
    int markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--markdown"))
            markdown = 1;
        else
            return st_cli_usage_error(&st_cli_cmd_env, "unexpected argument '%s'", argv[i]);
    }
    st_config_print(stdout, markdown);
    return 0;
}

const st_cli_cmd_t st_cli_cmd_env = {
    .name = "env",
    .usage = "env [--markdown]",
    .summary = "the SYNCTRACE_* environment variables the library reads",
    .help = "Prints every SYNCTRACE_* variable with its default, accepted values and meaning.\n"
            "  --markdown   as a markdown table (the README's configuration table)\n",
    .run = run_env,
};
