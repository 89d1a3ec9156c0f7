#!/bin/bash
# Slurm array job: each task runs one shard of the nightly batch into a
# shared folder; submit with docs/scaling/slurm_submit.sh (which also queues
# the merge).  Tested by scripts/test_scaling.sh with simulated SLURM_* vars.
#SBATCH --job-name=tracepress-batch
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --mem-per-cpu=4G
#SBATCH --time=02:00:00
#SBATCH --output=tracepress-%A_%a.log
set -u
IN=${TRACES_IN:?set TRACES_IN to the trace folder}
OUT=${TRACES_OUT:?set TRACES_OUT to the shared output folder}
# Exit 2 (some trace failed) is reported, not hidden: the merge job runs
# with afterany and the index lists the failures.
exec tracepress batch "$IN" -o "$OUT" -j "${SLURM_CPUS_PER_TASK:-1}" \
    --shard "${SLURM_ARRAY_TASK_ID}/${SLURM_ARRAY_TASK_COUNT}"
