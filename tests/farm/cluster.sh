#!/bin/sh
# cluster.sh start|stop DIR — a one-node Slurm cluster for the farm tests,
# all of it in DIR: its own munged (own key and socket), slurmctld and
# slurmd (state, logs, pid files in DIR), so nothing of the machine's own
# Slurm or munge is touched. start waits until sinfo shows the node idle;
# stop ends only the daemons whose pid files are in DIR. Needs root (the
# daemons run as root: SlurmUser=root). Environment for clients:
# SLURM_CONF=DIR/slurm.conf.
set -eu
cmd=$1 dir=$2

stop() {
    for p in slurmd slurmctld munged; do
        if [ -s "$dir/$p.pid" ]; then
            pid=$(cat "$dir/$p.pid")
            kill "$pid" 2>/dev/null || true
            i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
            kill -9 "$pid" 2>/dev/null || true
            rm -f "$dir/$p.pid"
        fi
    done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi

mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
# munge: a fresh key and a socket of our own
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge/munge.key"
/usr/sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" --num-threads=2
# the node's memory (MiB, less a margin: slurmd drains a node that has less
# than it is said to) is a consumable, as on a real cluster, so a job's
# --mem is checked against it
mem=$(awk '/^MemTotal:/ {print int($2 / 1024) - 256}' /proc/meminfo)
cat > "$dir/slurm.conf" <<CONF
ClusterName=ngfarm
SlurmctldHost=localhost
SlurmctldPort=$((17000 + $$ % 500 * 2))
SlurmdPort=$((17001 + $$ % 500 * 2))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
NodeName=localhost CPUs=2 RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld -f "$dir/slurm.conf" -i
/usr/sbin/slurmd -f "$dir/slurm.conf" -N localhost
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
    i=$((i+1))
    if [ $i -gt 300 ]; then
        echo "cluster.sh: the node did not become idle in 30 s (logs in $dir)" >&2
        sinfo >&2 || true; tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
        stop; exit 1
    fi
    sleep 0.1
done
