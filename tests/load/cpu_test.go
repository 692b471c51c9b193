package load

import (
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// CPU time is reported beside throughput because this machine's cores are shared (the load
// generator, the server and PostgreSQL all run on it): CPU per request says what a change costs
// or saves even when the wall clock is disturbed by other work.

// processCPU is the CPU time used so far by this process (server and load generator together).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// clockTick is the unit of /proc/<pid>/stat times (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// pgBackends returns the CPU time used so far by each PostgreSQL backend connected to database
// name, found by their process titles ("postgres: ... user name host(port) state"). It is empty
// when the server is not on this machine or /proc cannot be read.
func pgBackends(name string) map[int]time.Duration {
	out := map[int]time.Duration{}
	if name == "" {
		return out
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmd, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !strings.HasPrefix(string(cmd), "postgres: ") || !strings.Contains(string(cmd), " "+name+" ") {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		if cpu, ok := procCPU(pid); ok {
			out[pid] = cpu
		}
	}
	return out
}

// procCPU is the CPU time (user and system) process pid has used so far, from /proc/<pid>/stat.
func procCPU(pid int) (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command may contain spaces; fields are counted after its closing parenthesis.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, false
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * clockTick, true
}

// pgCPUSince sums the CPU time the backends used since the snapshot before.
func pgCPUSince(name string, before map[int]time.Duration) time.Duration {
	var total time.Duration
	for pid, now := range pgBackends(name) {
		total += now - before[pid]
	}
	return total
}

// machineBusy is the CPU time all of this machine's cores have spent busy so far (user, nice,
// system, irq, softirq and steal in the first line of /proc/stat); 0 when it cannot be read.
func machineBusy() time.Duration {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return 0
	}
	var busy int64
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, _ := strconv.ParseInt(fields[i], 10, 64)
		busy += v
	}
	return time.Duration(busy) * clockTick
}

// databaseName is the database of a postgres:// URL.
func databaseName(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// residentMiB is this process's resident set size now, in MiB (VmRSS; 0 when /proc cannot be
// read). The server and the load generator share the process, so it is an upper bound of the
// server's (BenchmarkServerRSS measures the server alone).
func residentMiB() float64 {
	v, _ := procStatusMiB("self", "VmRSS")
	return v
}
