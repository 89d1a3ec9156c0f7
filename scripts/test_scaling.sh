#!/bin/bash
# scripts/test_scaling.sh: runs the recipes of docs/SCALING.md on a small
# folder of traces and checks that each one's merged index.json equals a
# single `tracepress batch` run.  Needs GNU parallel for that recipe (skipped
# if absent); Slurm and Kubernetes are simulated by setting the variables
# their schedulers set and running the same commands.
#   scripts/test_scaling.sh [TRACEPRESS] [SHARED]
set -eu
cd "$(dirname "$0")/.."
TP=$(realpath "${1:-build/tracepress}")
SHARED=${2:-../shared}
W=$(mktemp -d "${TMPDIR:-/tmp}/tp-scaling.XXXXXX")
mkdir -p "$W/bin" "$W/traces/sub"
ln -s "$TP" "$W/bin/tracepress"
export PATH="$W/bin:$PATH"
cp golden/example.pt.trace.json "$W/traces/"
cp "$SHARED"/external/kineto/hta_triton_example.json.gz "$W/traces/sub/"
cp "$SHARED"/external/kineto/hta_amd_mi250_rocm6_2.json.gz "$W/traces/sub/"
cp "$SHARED"/external/etdump/executorch_tutorial_etdump.etdp "$W/traces/"
head -c 2000 "$SHARED"/external/kineto/hta_nccl_data_2024.json.gz > "$W/traces/broken.json.gz"
cd "$W"
fail=0
check() { # name, folder
    if cmp -s one/index.json "$2/index.json"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
}
tracepress batch traces -o one -j 2 2>/dev/null || [ $? -eq 2 ]

# GNU parallel: 3 shards at once on this machine
if command -v parallel >/dev/null; then
    parallel -j 3 'tracepress batch traces -o par -j 1 --shard {}/3 2>/dev/null; [ $? -le 2 ]' ::: 1 2 3
    tracepress batch --merge par 2>/dev/null || [ $? -eq 2 ]
    check "GNU parallel, 3 shards" par
else
    echo "skip GNU parallel (not installed)"
fi

# Slurm array job: what each task of docs/scaling/slurm_batch.sh runs
export TRACES_IN=traces TRACES_OUT=slurm SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1
for k in 1 2 3 4; do
    SLURM_ARRAY_TASK_ID=$k bash "$OLDPWD/docs/scaling/slurm_batch.sh" 2>/dev/null || [ $? -eq 2 ]
done
tracepress batch --merge slurm 2>/dev/null || [ $? -eq 2 ]
check "Slurm array (simulated), 4 tasks" slurm

# Kubernetes Indexed Job: the container's command with JOB_COMPLETION_INDEX 0..7
args=$(sed -n '/- >-/,/exit \$rc/p' "$OLDPWD/docs/scaling/k8s-indexed-job.yaml" | sed '1d' | tr '\n' ' ' |
       sed 's#/traces#traces#; s#/out#k8s#')
for i in 0 1 2 3 4 5 6 7; do
    JOB_COMPLETION_INDEX=$i sh -c "$args" 2>/dev/null
done
tracepress batch --merge k8s 2>/dev/null || [ $? -eq 2 ]
check "Kubernetes Indexed Job (simulated), 8 pods" k8s

# Jobs (docs/SCALING.md "Jobs"): a generated 6-rank job, one-process vs shards
GEN="$OLDPWD/build/gen/gen_job"
if [ -x "$GEN" ]; then
    "$GEN" --ranks 6 --steps 3 --out job -q
    jcheck() { # name, folder
        if cmp -s jone/summary.json "$2/summary.json" && cmp -s jone/summary.md "$2/summary.md"; then
            echo "ok   $1"; else echo "FAIL $1"; fail=1; fi
    }
    tracepress report 'job/rank-*.json' -o jone 2>/dev/null
    if command -v parallel >/dev/null; then
        parallel -j 3 "tracepress report 'job/rank-*.json' -o jpar -j 1 --shard {}/3 2>/dev/null" ::: 1 2 3
        tracepress report --merge jpar 2>/dev/null
        jcheck "job: GNU parallel, 3 shards" jpar
    fi
    export RANKS_IN='job/rank-*.json' REPORT_OUT=jslurm SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1
    for k in 1 2 3 4; do
        SLURM_ARRAY_TASK_ID=$k bash "$OLDPWD/docs/scaling/slurm_job.sh" 2>/dev/null
    done
    tracepress report --merge jslurm 2>/dev/null
    jcheck "job: Slurm array (simulated), 4 tasks" jslurm
else
    echo "skip jobs (build/gen/gen_job not built)"
fi
cd / && rm -rf "$W"
exit $fail
