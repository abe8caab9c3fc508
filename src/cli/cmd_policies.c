/* cmd_policies.c — `v10sim policies`: the registry, one line each. */
#include <string.h>

#include "cli/cli.h"
#include "v10/sim.h"

int cmd_policies(int argc, char **argv)
{
    v10_format fmt = V10_FMT_TABLE;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: v10sim policies [--format table|json|csv]\n\n"
                   "Lists the scheduling policies with a one-line description and the\n"
                   "options they read.\n");
            return V10_EXIT_OK;
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (cli_format("policies", argv[++i], &fmt))
                return V10_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--format")) {
            return cli_usage_error("policies", "--format: missing value");
        } else if (argv[i][0] == '-') {
            return cli_usage_error("policies", "unknown option '%s'", argv[i]);
        } else {
            return cli_usage_error("policies", "unexpected argument '%s'", argv[i]);
        }
    }
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "name", V10_COL_STR, 0);
    v10_tab_col(t, "summary", V10_COL_STR, 0);
    v10_tab_col(t, "params", V10_COL_STR, 0);
    for (size_t i = 0; i < v10_policy_count(); i++) {
        const v10_policy_ops *p = v10_policy_at(i);
        v10_tab_row(t);
        v10_tab_str(t, v10_policy_name(p));
        v10_tab_str(t, v10_policy_summary(p));
        v10_tab_str(t, v10_policy_params_help(p));
    }
    int rc = v10_tab_write(t, fmt, stdout);
    v10_tab_destroy(t);
    return rc ? V10_EXIT_FAIL : V10_EXIT_OK;
}
