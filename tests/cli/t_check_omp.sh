#!/usr/bin/env bash
# synctrace check: OpenMP fork/join, barriers (reductions excluded), locks; team instances
# by synctrace:parallel_id (which every synctrace archive carries: check derives the
# relations as CLC does, src/relations/derive.c).
source "$ST_ROOT/tests/lib.sh"
source "$ST_ROOT/tests/cli/lib-cli.sh"

# One violation of each kind in the first parallel region and the locks; the second
# region (same team comm, parallel id 6) is clean.
mk omp <<'S'
ranks 1
threads 0 3
team 2 0 0 1 2
0.0 100 fork 3 pid=5
0.0 101 team_begin 2 pid=5
0.0 110 enter "!$omp barrier"
0.0 131 leave "!$omp barrier"
0.0 140 enter "!$omp reduction"
0.0 141 leave "!$omp reduction"
0.0 200 enter "!$omp implicit barrier"
0.0 210 leave "!$omp implicit barrier"
0.0 220 team_end 2 pid=5
0.0 235 join pid=5
0.0 300 fork 3 pid=6
0.0 301 team_begin 2 pid=6
0.0 310 team_end 2 pid=6
0.0 320 join pid=6
0.0 470 acquire 7 3
0.0 480 release 7 3
0.0 490 acquire 8 1
0.0 495 release 8 1
0.1 99 team_begin 2 pid=5
0.1 112 enter "!$omp barrier"
0.1 125 leave "!$omp barrier"
0.1 150 enter "!$omp reduction"
0.1 151 leave "!$omp reduction"
0.1 201 enter "!$omp implicit barrier"
0.1 211 leave "!$omp implicit barrier"
0.1 230 team_end 2 pid=5
0.1 302 team_begin 2 pid=6
0.1 311 team_end 2 pid=6
0.1 400 acquire 7 1
0.1 450 release 7 1
0.2 105 team_begin 2 pid=5
0.2 130 enter "!$omp barrier"
0.2 132 leave "!$omp barrier"
0.2 202 enter "!$omp implicit barrier"
0.2 212 leave "!$omp implicit barrier"
0.2 240 team_end 2 pid=5
0.2 303 team_begin 2 pid=6
0.2 312 team_end 2 pid=6
0.2 440 acquire 7 2
0.2 460 release 7 2
S
check_counts omp 4 0 0
for k in omp_fork omp_join omp_barrier omp_lock; do assert_eq "omp $k" 1 "$(kind_count $k)"; done
has "openmp: 2 team instances, 2 barrier instances, 2 lock handovers, 0 task relations"

# With synctrace:parallel_id the instance is the parallel id: thread 2 only joins the second
# region (same team comm) and starts before its fork -> 1 fork violation. Numbering by
# comm and sequence would wrongly put it into the first region (no violation).
mk pid <<'S'
ranks 1
threads 0 3
team 2 0 0 1 2
0.0 100 fork 2 pid=5
0.0 101 team_begin 2 pid=5
0.0 110 team_end 2 pid=5
0.0 120 join pid=5
0.0 200 fork 2 pid=6
0.0 201 team_begin 2 pid=6
0.0 210 team_end 2 pid=6
0.0 220 join pid=6
0.1 102 team_begin 2 pid=5
0.1 111 team_end 2 pid=5
0.2 199 team_begin 2 pid=6
0.2 211 team_end 2 pid=6
S
check_counts pid 1 0 0
assert_eq "pid omp_fork" 1 "$(kind_count omp_fork)"
run_st dump "$ST_TMP/pid"
has "            199     0      2  omp_team_begin    team=2 parallel_id=6"
