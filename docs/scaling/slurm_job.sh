#!/bin/bash
# docs/scaling/slurm_job.sh: one shard of a distributed job's ranks per
# Slurm array task (docs/SCALING.md "Jobs").  Each task writes the rank
# summaries of its shard into REPORT_OUT/ranks/; the merge, queued after
# every task succeeded, writes the job report:
#   JOB=$(sbatch --parsable --array=1-8 --cpus-per-task=2 \
#         --export=ALL,RANKS_IN=/traces/run42,REPORT_OUT=/shared/run42.report docs/scaling/slurm_job.sh)
#   sbatch --dependency=afterok:$JOB --wrap "tracepress report --merge /shared/run42.report"
#SBATCH --job-name=tracepress-job
set -u
exec tracepress report "$RANKS_IN" -o "$REPORT_OUT" -j "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT"
