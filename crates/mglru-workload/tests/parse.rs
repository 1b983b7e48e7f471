// SPDX-License-Identifier: GPL-2.0-only
//! Every generator's output is a valid trace: it is read to the end by
//! `mglru_trace::TraceReader::from_str` without an error.

mod common;

use common::{all, must_parse};

#[test]
fn generated_traces_parse() {
    let specs = [
        // The seeds' command lines, shrunk through the rate model / sizes.
        "fio:fio -name=mglru --numjobs=4 --directory=/mnt --size=960k --buffered=1 --ioengine=io_uring --iodepth=128 \
         --iodepth_batch_submit=32 --iodepth_batch_complete=32 --rw=randread --random_distribution=zipf:0.5 --norandommap \
         --time_based --ramp_time=1m --runtime=5m --group_reporting;memory=16M,memcg_max=2M,rate_iops=20",
        "fio:fio --directory=/mnt/ramdisk --filename_format='test.$jobnum.img' --name=cached --numjobs=4 --buffered=1 \
         --ioengine=mmap --rw=randread --random_distribution=zipf:1.2 --norandommap --time_based --ramp_time=1m --runtime=5m \
         --group_reporting --size=3m;rate_iops=10,memcg_max=4M",
        "fio:fio -name=mglru --numjobs=2 --directory=/mnt --size=1m --buffered=1 --ioengine=mmap --fadvise_hint=0 \
         --iodepth=128 --rw=read --time_based --ramp_time=10m --runtime=180m --group_reporting;rate_iops=1,swap=4M",
        "fio:--name=a --size=256k --rw=randrw --bs=4k,16k --rwmixread=30 --loops=2 --name=b --size=128k --rw=rw --nrfiles=2 \
         --file_service_type=sequential --pre_read=0 --thread",
        "fio:--name=p --size=1m --rw=randwrite --random_distribution=pareto:0.3 --norandommap --number_ios=3000 --io_size=1g",
        "fio:--name=n --size=1m --rw=randread --random_distribution=normal:10 --norandommap --number_ios=3000 --io_size=1g",
        "memtier:-S /var/run/memcached/memcached.sock -P memcache_binary -n allkeys --key-minimum=1 --key-maximum=2000 \
         --key-pattern=P:P -c 1 -t 8 --ratio 1:0 --pipeline 8 -d 2000 && -S /var/run/memcached/memcached.sock \
         -P memcache_binary -n allkeys --key-minimum=1 --key-maximum=2000 --key-pattern=R:R -c 1 -t 8 --ratio 0:1 \
         --pipeline 8 --randomize --distinct-client-seed;memory=16M,swap=8M",
        "memtier:--test-time=1 --ratio=1:10 --key-pattern=G:G --key-maximum=5000 -c 2 -t 2;rate_ops=3000,memcached_mem=1M,memcg_max=16M",
        "ycsb:workload=a,records=2000,operations=2000,cache=128K,checkpoint=1s,rate_ops=500",
        "ycsb:workload=b,scale=10000",
        "ycsb:workload=d,records=1000,operations=1000,cache=256K,load=1",
        "ycsb:workload=e,records=3000,operations=300,cache=256K,insert_order=ordered",
        "ycsb:workload=f,records=1000,operations=1000,cache=64K,distribution=uniform",
        "lru-file-readtwice:nr_task=4,memory=16M",
        "lru-file-mmap-read:nr_task=4,memory=16M,chunk=8",
        "mmap-pread-seq:nr_task=3,memory=16M",
        "mmap-xread-seq-mt:nr_task=3,memory=16M,memcg_max=1M",
        "ebizzy:scale=400",
        "ebizzy:seq=160,scale=400,threads=3,loops=5,memcg_max=4M",
        "file-anon-mix:scale=4096,iterations=3",
        "mixed-memcg:scale=20000,jobs=3,clients=3",
    ];
    for s in specs {
        let lines = all(mglru_workload::workload(s).unwrap_or_else(|e| panic!("{}: {}", s, e)));
        let n = must_parse(s, &lines);
        assert!(n > 10, "{}: only {} ops", s, n);
    }
}
