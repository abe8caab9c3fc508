/*
 * cmd_repro.c — `v10sim repro`: runs the V10 paper's experiments and writes
 * CSVs, SVG plots, summary.md and report.html into a directory.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/file.h"
#include "v10/repro.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: v10sim repro [--out DIR] [--quick] [--workloads isca23|zoo] [--fairness-both]\n"
        "                    [-j N] [--seed S]\n\n"
        "Reproduces the V10 paper (ISCA 2023) on its core: the 11 paper pairs and all 55\n"
        "pairs of the eleven models under pmt, v10-base, v10-fair and v10-full; the time\n"
        "slice (under both readings of the SA switch), priority, vector-memory,\n"
        "scalability, contention and PMT-slice studies; and the clustering-based\n"
        "collocation.  Writes pairs.csv, one CSV per study, SVG plots,\n"
        "summary.md (our ratios beside the paper's) and a self-contained report.html.\n\n"
        "options:\n"
        "  --out DIR    output directory, created if missing (default repro-out)\n"
        "  --quick      fewer requests per run (a smoke test: under a minute on 2 cores)\n"
        "  --workloads SET  isca23 (default): the paper's workloads calibrated to its TPU\n"
        "               profiles; zoo: the architecture-derived models.  The other set's\n"
        "               11 paper pairs run too, for the side-by-side table in summary.md\n"
        "  --fairness-both  the fairness study over the other set's 55 pairs too (220\n"
        "               runs more, a fifth more simulation)\n"
        "  -j N         threads (default: online CPUs)\n"
        "  --seed S     seed (default 1)\n"
        "  --help       this text\n"
        "See docs/repro.md for what each study measures.\n");
}

enum { O_OUT = 1000, O_QUICK, O_SEED, O_HELP, O_WORKLOADS, O_FAIR_BOTH };
static const struct option opts[] = {
    {"out", required_argument, 0, O_OUT},   {"quick", no_argument, 0, O_QUICK},
    {"seed", required_argument, 0, O_SEED}, {"help", no_argument, 0, O_HELP},
    {"jobs", required_argument, 0, 'j'},    {"workloads", required_argument, 0, O_WORKLOADS},
    {"fairness-both", no_argument, 0, O_FAIR_BOTH},
    {0, 0, 0, 0},
};

int cmd_repro(int argc, char **argv)
{
    const char *dir = "repro-out";
    v10_repro_opts o = {.quick = 0, .threads = 0, .seed = 1, .progress = 1};
    o.threads = cli_default_threads();
    cli_getopt_begin();
    int c;
    while ((c = getopt_long(argc, argv, ":j:", opts, NULL)) != -1) {
        switch (c) {
        case O_OUT:
            if (cli_path("repro", "--out", optarg, &dir))
                return V10_EXIT_USAGE;
            break;
        case O_QUICK: o.quick = 1; break;
        case O_FAIR_BOTH: o.fairness_both = 1; break;
        case O_WORKLOADS:
        {
            static const char *const sets[] = {"isca23", "zoo", NULL};
            int i = cli_choice("repro", "--workloads", optarg, sets);
            if (i < 0)
                return V10_EXIT_USAGE;
            snprintf(o.workloads, sizeof o.workloads, "%s", sets[i]);
            break;
        }
        case 'j':
            if (cli_threads("repro", optarg, &o.threads))
                return V10_EXIT_USAGE;
            break;
        case O_SEED:
            if (cli_seed("repro", optarg, &o.seed))
                return V10_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return V10_EXIT_OK;
        default: return cli_bad_option("repro", c, argv);
        }
    }
    if (optind < argc)
        return cli_usage_error("repro", "unexpected argument '%s'", argv[optind]);
    v10_outdir od;
    if (cli_out_dir(&od, dir, "repro"))
        return V10_EXIT_FAIL;
    v10_err err;
    v10_repro *r;
    if (v10_repro_run(&o, &r, &err)) {
        v10_outdir_abandon(&od);
        return cli_fail(&err);
    }
    v10_repro_out out;
    int bad = v10_repro_render(r, &out, &err);
    v10_repro_destroy(r);
    if (bad) {
        v10_outdir_abandon(&od);
        return cli_fail(&err);
    }
    int rc = cli_write_files(&od, "repro", out.files, out.n_files);
    if (rc == V10_EXIT_OK)
        printf("v10sim repro: %zu simulations on %d thread%s in %.1f s%s; %zu files in %s/ "
               "(see %s/summary.md and %s/report.html)\n",
               out.runs, o.threads, o.threads == 1 ? "" : "s", out.wall_seconds,
               o.quick ? " (--quick)" : "", out.n_files, dir, dir, dir);
    if (rc == V10_EXIT_OK && v10_repro_headlines_write(&out, stdout))
        rc = V10_EXIT_FAIL;
    v10_repro_out_fini(&out);
    return rc;
}
