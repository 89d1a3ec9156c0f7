#!/bin/bash
# Queue the shards and, after all of them (whatever their exit code), the merge.
set -eu
export TRACES_IN=$1 TRACES_OUT=$2
jid=$(sbatch --parsable --export=ALL "$(dirname "$0")/slurm_batch.sh")
sbatch --dependency=afterany:"$jid" --export=ALL --job-name=tracepress-merge \
    --wrap "tracepress batch --merge '$TRACES_OUT'"
