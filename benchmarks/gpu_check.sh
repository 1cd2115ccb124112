#!/usr/bin/env bash
# GPU check: on a machine with an NVIDIA GPU and nvcc, build and run the CUDA of every
# legal GPU corpus case, compare each with the C (or emulated) result of the unscheduled kernel
# through `vsched run --target cuda`, and print a table. One run, well inside five minutes.
#
#   bash benchmarks/gpu_check.sh            (uses `vsched` on PATH, or VSCHED=/path/to/vsched)
#
# Exit 0 when every row is ok. Without a GPU every row reports the failed CUDA call.
set -u
cd "$(dirname "$0")/.."
vs=${VSCHED:-vsched}
cases_dir=${CASES:-tests/cases}
# legal corpus cases with block/thread loops, and two size sets each
rows=(
  "shared_with_barrier B=1 B=37"
  "stage_shared_matmul TN=1,TM=1,TK=1 TN=3,TM=2,TK=5"
  "stage_swizzle_matmul TN=1,TM=1,TK=1 TN=2,TM=3,TK=4"
  "tensorize_matmul TN=1,TM=1,TK=1 TN=2,TM=2,TK=3"
  "split_reduction N=1,K=1 N=37,K=1000"
)
printf '%-24s %-18s %-10s %s\n' case sizes result "seconds"
fail=0
for row in "${rows[@]}"; do
  read -r name s1 s2 <<<"$row"
  for sizes in $s1 $s2; do
    start=$(date +%s.%N)
    out=$(timeout 120 "$vs" run "$cases_dir/$name.vs" --target cuda --size "$sizes" 2>&1)
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    result=$([ $rc -eq 0 ] && echo ok || echo "FAIL($rc)")
    [ $rc -eq 0 ] || fail=1
    printf '%-24s %-18s %-10s %.2f\n' "$name" "$sizes" "$result" "$secs"
    [ $rc -eq 0 ] || echo "$out" | tail -n 5 | sed 's/^/    /'
  done
done
exit $fail
