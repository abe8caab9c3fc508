/* cmd_policies.c — `v10sim policies`: the registry, one line each, and the
 * parameters the policies declare (their tables, include/v10/sim.h). */
#include <string.h>

#include "cli/cli.h"
#include "util/num.h"
#include "v10/sim.h"

/* One row per parameter of every policy: name, default, range, help. */
static v10_tab *param_table(void)
{
    v10_tab *t = v10_tab_create();
    v10_tab_col(t, "param", V10_COL_STR, 0);
    v10_tab_col(t, "default", V10_COL_STR, 0);
    v10_tab_col(t, "range", V10_COL_STR, 0);
    v10_tab_col(t, "help", V10_COL_STR, 0);
    v10_policy_params defaults;
    v10_policy_params_default(&defaults);
    for (size_t i = 0; i < v10_policy_count(); i++) {
        const v10_policy_ops *p = v10_policy_at(i);
        for (size_t k = 0; k < v10_policy_param_count(p); k++) {
            const v10_param_def *d = v10_policy_param_at(p, k);
            char def[V10_NUM_MAX], lo[V10_NUM_MAX], hi[V10_NUM_MAX], range[3 * V10_NUM_MAX];
            v10_param_format(d, &defaults, NULL, def, sizeof def);
            v10_num_fmt(d->min, lo, sizeof lo);
            v10_num_fmt(d->max, hi, sizeof hi);
            if (d->type == V10_PARAM_CHOICE)
                snprintf(range, sizeof range, "%s", d->choices);
            else
                snprintf(range, sizeof range, "[%s, %s]%s", lo, hi,
                         d->type == V10_PARAM_U64 ? " integer" : "");
            v10_tab_row(t);
            v10_tab_str(t, d->name);
            v10_tab_str(t, def);
            v10_tab_str(t, range);
            v10_tab_str(t, d->help);
        }
    }
    return t;
}

int cmd_policies(int argc, char **argv)
{
    v10_format fmt = V10_FMT_TABLE;
    int params_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help")) {
            printf("usage: v10sim policies [--params] [--format table|json|csv]\n\n"
                   "Lists the scheduling policies with a one-line description and the\n"
                   "options they read, then every policy parameter (run --param\n"
                   "POLICY.NAME=VALUE) with its default, range and meaning.\n\n"
                   "options:\n"
                   "  --params      only the parameters (one row each; for json and csv,\n"
                   "                which otherwise list the policies)\n"
                   "  --format FMT  table (default), json or csv\n"
                   "  --help        this text\n");
            return V10_EXIT_OK;
        } else if (!strcmp(argv[i], "--params")) {
            params_only = 1;
        } else if (!strcmp(argv[i], "--format") && i + 1 < argc) {
            if (cli_format("policies", argv[++i], CLI_FORMATS, &fmt))
                return V10_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--format")) {
            return cli_usage_error("policies", "--format: missing value");
        } else if (argv[i][0] == '-') {
            return cli_usage_error("policies", "unknown option '%s'", argv[i]);
        } else {
            return cli_usage_error("policies", "unexpected argument '%s'", argv[i]);
        }
    }
    int rc = 0;
    if (!params_only) {
        v10_tab *t = v10_tab_create();
        v10_tab_col(t, "name", V10_COL_STR, 0);
        v10_tab_col(t, "summary", V10_COL_STR, 0);
        v10_tab_col(t, "params", V10_COL_STR, 0);
        for (size_t i = 0; i < v10_policy_count(); i++) {
            const v10_policy_ops *p = v10_policy_at(i);
            v10_tab_row(t);
            v10_tab_str(t, v10_policy_name(p));
            v10_tab_str(t, v10_policy_summary(p));
            char names[256] = "";
            for (size_t k = 0; k < v10_policy_param_count(p); k++)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         k ? ", " : "", v10_policy_param_at(p, k)->name);
            v10_tab_str(t, names[0] ? names : "-");
        }
        rc = v10_tab_write(t, fmt, stdout);
        v10_tab_destroy(t);
    }
    if (rc == 0 && (params_only || fmt == V10_FMT_TABLE)) {
        if (!params_only)
            printf("\nparameters (run --param NAME=VALUE):\n");
        v10_tab *t = param_table();
        rc = v10_tab_write(t, fmt, stdout);
        v10_tab_destroy(t);
    }
    return rc ? V10_EXIT_FAIL : V10_EXIT_OK;
}
