/*
 * main.c — the v10sim command: dispatches to a sub-command (src/cli/cmd_*.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/mem.h"
#include "util/names.h"
#include "util/text.h"

static const cli_command commands[] = {
    {"run", "simulate tenants sharing one NPU under a policy", cmd_run},
    {"models", "list the built-in models with their standalone profiles", cmd_models},
    {"profile", "per-operator breakdown of one model", cmd_profile},
    {"calibrate", "reshape a model to a measured solo profile (SA/VU busy, HBM, op lengths)",
     cmd_calibrate},
    {"validate", "the zoo alone against the V10 paper's measured TPU profiles", cmd_validate},
    {"topology", "cost a SCALE-Sim topology CSV layer by layer", cmd_topology},
    {"npu", "print the resolved NPU configuration", cmd_npu},
    {"policies", "list the scheduling policies and their parameters", cmd_policies},
    {"repro", "reproduce the V10 paper's experiments: CSVs, plots, report", cmd_repro},
    {"collocate", "clustering-based collocation: predict beneficial pairs", cmd_collocate},
    {"fleet", "place services on NPUs (clustering, greedy, random) and simulate", cmd_fleet},
    {"llm-study", "an LLM service beside each isca23 service and the other LLM: TTFT/TPOT",
     cmd_llm_study},
    {"sweep", "run the product of a spec's axes, resumable, on threads or MPI", cmd_sweep},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: v10sim COMMAND [OPTIONS]\n\n"
               "Simulates a TPU-like NPU shared by several ML inference services\n"
               "under V10 (ISCA 2023) and its baselines.\n\ncommands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'v10sim COMMAND --help' (or 'v10sim help COMMAND') describes a command's "
               "options.\n\n"
               "options:\n"
               "  --help       this text\n  --version    print the version\n");
}

int main(int argc, char **argv)
{
    cli_signals();
    cli_std_fds();
    v10_mem_tune();
    if (argc < 2) {
        usage(stderr);
        return V10_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    const char *names[N_COMMANDS + 1] = {NULL};
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    int help = !strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help");
    if ((help || !strcmp(cmd, "--version")) && argc > 2) {
        /* "help run" is "run --help"; anything else given is not dropped silently */
        long i = help ? v10_name_lookup(argv[2], names, N_COMMANDS) : -1;
        if (i >= 0 && argc == 3) {
            char *sub[] = {argv[2], (char *)"--help", NULL};
            return cli_stdout_done(commands[i].run(2, sub));
        }
        char esc[128];
        v10_name_escape(esc, sizeof esc, argv[i >= 0 ? 3 : 2]);
        fprintf(stderr, "v10sim: %s: unexpected argument '%s' (expected %s)\n", cmd, esc,
                i < 0 && help ? "a command, as in 'v10sim help run'" : "nothing more");
        return V10_EXIT_USAGE;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return cli_stdout_done(V10_EXIT_OK);
    }
    if (!strcmp(cmd, "--version")) {
        printf("v10sim %s\n", V10_VERSION);
        return cli_stdout_done(V10_EXIT_OK);
    }
    long i = v10_name_lookup(cmd, names, N_COMMANDS); /* as people type it: "Run" */
    if (i >= 0)
        return cli_stdout_done(commands[i].run(argc - 1, argv + 1));
    char esc[128], hint[160];
    v10_name_escape(esc, sizeof esc, cmd);
    v10_name_hint(hint, sizeof hint, cmd, names, N_COMMANDS, NULL);
    fprintf(stderr, "v10sim: unknown command '%s'%s\n", esc, hint);
    usage(stderr);
    return V10_EXIT_USAGE;
}
