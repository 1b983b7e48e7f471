// SPDX-License-Identifier: GPL-2.0-only
// A stand-in for mglru-replay, only to test the harness end to end (boot, init, result line,
// JSON). It does not replay the trace: it makes a memcg `app` with memory.max=64M, writes and
// reads a 32 MiB file in --data-dir from inside it, and prints
//   MGLRU-REPLAY-RESULT {"kernel": ..., "vmstat": {...}, "memcg": {"app": {...}}, "lru_gen": ...}
// with /proc/vmstat as a difference over the work. Build: gcc -O2 -static -o replay-placeholder
// replay-placeholder.c
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define MAXV 400

struct kv { char name[64]; long long v; };

static int read_kv(const char *path, struct kv *t, int max)
{
	FILE *f = fopen(path, "r");
	int n = 0;
	if (!f)
		return 0;
	while (n < max && fscanf(f, "%63s %lld", t[n].name, &t[n].v) == 2)
		n++;
	fclose(f);
	return n;
}

static void put_kv(const struct kv *t, int n, const struct kv *before)
{
	putchar('{');
	for (int i = 0; i < n; i++)
		printf("%s\"%s\": %lld", i ? ", " : "", t[i].name, t[i].v - (before ? before[i].v : 0));
	putchar('}');
}

static long long read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;
	if (f) {
		if (fscanf(f, "%lld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void put_file_json(const char *path)
{
	FILE *f = fopen(path, "r");
	int c;
	putchar('"');
	if (f) {
		while ((c = fgetc(f)) != EOF) {
			if (c == '"' || c == '\\')
				printf("\\%c", c);
			else if (c == '\n')
				fputs("\\n", stdout);
			else if (c >= 0x20)
				putchar(c);
		}
		fclose(f);
	}
	putchar('"');
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, strlen(s)) < 0)
		fprintf(stderr, "placeholder: cannot write %s to %s\n", s, path);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	const char *dir = "/mnt/data";
	static struct kv before[MAXV], after[MAXV], stat[MAXV], ev[MAXV];
	static char buf[1 << 16], path[512], pid[32];
	struct utsname u;
	int nb, na, ns, ne, fd;
	long long total = 32LL << 20;

	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--data-dir"))
			dir = argv[i + 1];
	uname(&u);

	/* the data file, written from the root cgroup, then out of the cache */
	snprintf(path, sizeof(path), "%s/data", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	memset(buf, 0x5a, sizeof(buf));
	for (long long off = 0; off < total; off += sizeof(buf))
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 2;
	fsync(fd);
	close(fd);
	sync();
	write_str("/proc/sys/vm/drop_caches", "3");

	write_str("/sys/fs/cgroup/cgroup.subtree_control", "+memory");
	mkdir("/sys/fs/cgroup/app", 0755);
	write_str("/sys/fs/cgroup/app/memory.max", "67108864");
	snprintf(pid, sizeof(pid), "%d", getpid());
	write_str("/sys/fs/cgroup/app/cgroup.procs", pid);

	nb = read_kv("/proc/vmstat", before, MAXV);
	fd = open(path, O_RDONLY);
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
	for (int pass = 0; pass < 2; pass++)
		for (long long off = 0; off < total; off += 4096)
			if (pread(fd, buf, 4096, off) != 4096)
				return 3;
	close(fd);
	na = read_kv("/proc/vmstat", after, MAXV);
	ns = read_kv("/sys/fs/cgroup/app/memory.stat", stat, MAXV);
	ne = read_kv("/sys/fs/cgroup/app/memory.events", ev, MAXV);

	printf("MGLRU-REPLAY-RESULT {\"kernel\": \"%s\", \"vmstat\": ", u.release);
	put_kv(after, na == nb ? na : 0, before);
	printf(", \"memcg\": {\"app\": {\"stat\": ");
	put_kv(stat, ns, NULL);
	printf(", \"current\": %lld, \"peak\": %lld, \"events\": ",
	       read_num("/sys/fs/cgroup/app/memory.current"), read_num("/sys/fs/cgroup/app/memory.peak"));
	put_kv(ev, ne, NULL);
	printf("}}, \"lru_gen\": ");
	put_file_json("/sys/kernel/debug/lru_gen");
	printf(", \"meta\": {\"replayer\": \"placeholder\"}}\n");
	fflush(stdout);
	write_str("/sys/fs/cgroup/cgroup.procs", pid);
	return 0;
}
