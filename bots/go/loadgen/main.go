// Command menagerie-loadgen is the lean load generator of `arena bench server`.
//
// The Python load generator (arena.bench.grpc_client --mode load) is one asyncio event
// loop per process; on a machine with few cores it burns about as much CPU per move as
// the server it measures, so at 1,000 matches the generators, not the server, set the
// latency tail. This program plays the same load for a fraction of that CPU:
//
//   - --matches Zooloretto Mini matches kept running at once (a finished match is
//     replaced by a new one), created with CreateMatch (the admin token as
//     `authorization: Bearer`), matches spread round-robin over the servers of
//     --address (comma-separated) and over --connections HTTP/2 connections per server;
//   - each seat is a Play stream that thinks --think-ms x (0.5 .. 1.5) before it
//     answers a Turn with a random legal index (as the Python client does, so the
//     matches have the same length);
//   - a sample is the time from writing a match's Move to holding that match's next
//     Turn decoded (either seat's): one move exchange, think time excluded; the same
//     definition as the Python client's `Samples` (arena/bench/grpc_client.py).
//
// Samples are taken from --warmup-s after the start for --seconds; then every stream is
// cancelled and one JSON object is printed on stdout:
//
//	{"matches": N, "latencies_us": [...], "errors": {"CODE: details": n},
//	 "client": "go", "marks": [snapshot, snapshot]}
//
// The two marks are cumulative probe snapshots at the start and end of the sampling
// window in the format of arena.server.probe.LoadProbe.snapshot, so the Python side
// computes the generator's figures with the same window() as for the servers. Go has no
// event loop: the "loop delay" here is how long a goroutine made runnable waits until it
// runs (a ticker hands a timestamp to a waiting goroutine every 5 ms), the collector
// pauses are the Go runtime's stop-the-world pauses, and the CPU is the process's.
//
// Usage: menagerie-loadgen --address HOST:PORT[,HOST:PORT] --token TOKEN --matches N
// [--think-ms 500] [--seconds 10] [--warmup-s 3] [--seed 0] [--connections 4]
// [--cpuprofile FILE] (its own CPU profile, for go tool pprof: at 1,000 matches about
// a third is the loopback sends and receives, an eighth decoding the Turns)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "menagerie/v1"
)

// giveUp: a match slot whose every CreateMatch failed this long ends the program (the
// server is gone), as the Python client's GIVE_UP_S.
const giveUp = 60 * time.Second

// callTimeout bounds CreateMatch and the connection set-up.
const callTimeout = 30 * time.Second

// drainTimeout: how long after the sampling window the streams may take to end.
const drainTimeout = 60 * time.Second

func main() {
	address := flag.String("address", "", "game servers HOST:PORT, comma-separated")
	token := flag.String("token", "", "admin token of the servers (CreateMatch)")
	matches := flag.Int("matches", 1, "matches kept running at once")
	thinkMs := flag.Float64("think-ms", 500, "bot think time per move (x 0.5..1.5)")
	seconds := flag.Float64("seconds", 10, "how long samples are taken")
	warmupS := flag.Float64("warmup-s", 3, "no samples this long after the start")
	seed := flag.Int64("seed", 0, "seed of the think times, moves and match seeds")
	connections := flag.Int("connections", 4, "HTTP/2 connections per server")
	cpuProfile := flag.String("cpuprofile", "", "write a Go CPU profile (go tool pprof) here")
	flag.Parse()
	var bad []string
	if *address == "" {
		bad = append(bad, "--address is needed")
	}
	if *matches < 1 || *matches > 100000 {
		bad = append(bad, fmt.Sprintf("--matches must be 1..100000, got %d", *matches))
	}
	if *thinkMs < 0 || *thinkMs > 600000 || *seconds <= 0 || *seconds > 86400 || *warmupS < 0 || *warmupS > 3600 {
		bad = append(bad, "--think-ms must be 0..600000, --seconds 0..86400 (> 0), --warmup-s 0..3600")
	}
	if *connections < 1 || *connections > 64 {
		bad = append(bad, fmt.Sprintf("--connections must be 1..64, got %d", *connections))
	}
	if len(bad) > 0 {
		fmt.Fprintln(os.Stderr, "error:", strings.Join(bad, "; "))
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "error: --cpuprofile:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	out, err := run(strings.Split(*address, ","), *token, *matches, *thinkMs, *seconds, *warmupS, *seed, *connections)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// samples holds the latencies of the sampling window and the failed calls.
type samples struct {
	mu          sync.Mutex
	latenciesUs []float64
	errors      map[string]int
	collectFrom time.Time
	stopAt      time.Time
}

func (s *samples) add(d time.Duration, now time.Time) {
	if now.Before(s.collectFrom) || !now.Before(s.stopAt) {
		return
	}
	s.mu.Lock()
	s.latenciesUs = append(s.latenciesUs, float64(d.Nanoseconds())/1e3)
	s.mu.Unlock()
}

func (s *samples) failed(err error) {
	st, _ := status.FromError(err)
	key := fmt.Sprintf("%s: %s", codeName(st.Code().String()), st.Message())
	if len(key) > 120 {
		key = key[:120]
	}
	s.mu.Lock()
	s.errors[key]++
	s.mu.Unlock()
}

func (s *samples) done() bool { return !time.Now().Before(s.stopAt) }

// codeName spells a status code as grpcio does (RESOURCE_EXHAUSTED, not ResourceExhausted),
// so the error counts of both generators read alike.
func codeName(camel string) string {
	var b strings.Builder
	for i, r := range camel {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	name := strings.ToUpper(b.String())
	if name == "O_K" {
		return "OK"
	}
	return name
}

// lockedRand is a random source shared by goroutines.
type lockedRand struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func (r *lockedRand) intn(n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Intn(n)
}

func (r *lockedRand) float() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rng.Float64()
}

func run(addresses []string, token string, matches int, thinkMs, seconds, warmupS float64, seed int64, connections int) (map[string]any, error) {
	start := time.Now()
	s := &samples{
		errors:      map[string]int{},
		latenciesUs: []float64{},
		collectFrom: start.Add(time.Duration(warmupS * float64(time.Second))),
	}
	s.stopAt = s.collectFrom.Add(time.Duration(seconds * float64(time.Second)))
	probe := newProbe()
	var conns []*grpc.ClientConn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for _, a := range addresses {
		for i := 0; i < connections; i++ {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			// WithBlock: a server that is not there is an error now, not 60 s of retries.
			// Each Dial is its own HTTP/2 connection (a fresh subchannel).
			c, err := grpc.DialContext(ctx, strings.TrimSpace(a), grpc.WithInsecure(), grpc.WithBlock(),
				grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(4<<20)))
			cancel()
			if err != nil {
				return nil, fmt.Errorf("cannot connect to %s: %v", a, err)
			}
			conns = append(conns, c)
		}
	}
	// Every stream ends by this deadline even if a server stops answering (a Recv has no
	// timeout of its own): the sampling window plus a minute for the last exchanges.
	ctx, cancelAll := context.WithDeadline(context.Background(), s.stopAt.Add(drainTimeout))
	defer cancelAll()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	rng := &lockedRand{rng: rand.New(rand.NewSource(seed))}
	think := time.Duration(thinkMs * float64(time.Millisecond))
	var played int64
	var fatal atomic.Value
	var wg sync.WaitGroup
	marks := make([]map[string]any, 0, 2)
	var marksMu sync.Mutex
	go func() { // the probe's marks at the window's edges
		for _, at := range []time.Time{s.collectFrom, s.stopAt} {
			time.Sleep(time.Until(at))
			snap := probe.snapshot()
			marksMu.Lock()
			marks = append(marks, snap)
			marksMu.Unlock()
		}
	}()
	for i := 0; i < matches; i++ {
		// Match i's connection: the servers round-robin first (as the Python client),
		// then that server's connections.
		server := i % len(addresses)
		conn := conns[server*connections+(i/len(addresses))%connections]
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := pb.NewGameServiceClient(conn)
			var failedSince time.Time
			for !s.done() {
				err := playMatch(ctx, client, s, think, rng)
				if err == nil {
					atomic.AddInt64(&played, 1)
					failedSince = time.Time{}
					continue
				}
				s.failed(err)
				if failedSince.IsZero() {
					failedSince = time.Now()
				} else if time.Since(failedSince) > giveUp {
					fatal.Store(fmt.Errorf("no match could be played for %v: %v", giveUp, err))
					return
				}
				time.Sleep(100 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
	if err, ok := fatal.Load().(error); ok {
		return nil, err
	}
	marksMu.Lock()
	for len(marks) < 2 {
		marks = append(marks, probe.snapshot())
	}
	got := marks[:2]
	marksMu.Unlock()
	probe.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	return map[string]any{
		"client":       "go",
		"matches":      played,
		"latencies_us": s.latenciesUs,
		"errors":       s.errors,
		"marks":        got,
	}, nil
}

// playMatch creates one match and plays both seats until it ends or sampling is done.
// A failed call is returned (the caller counts it and starts the next match).
func playMatch(ctx context.Context, client pb.GameServiceClient, s *samples, think time.Duration, rng *lockedRand) error {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	created, err := client.CreateMatch(cctx, &pb.CreateMatchRequest{
		Game: "zooloretto_mini", NumPlayers: 2, Seed: int64(rng.intn(1 << 30)),
	})
	cancel()
	if err != nil {
		return err
	}
	// sent: when the match's last Move was written (unix ns; 0: none pending).
	var sent int64
	mctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, len(created.Seats))
	for _, seat := range created.Seats {
		go func(credential string) {
			errs <- playSeat(mctx, client, credential, &sent, s, think, rng)
		}(seat.Credential)
	}
	var first error
	for range created.Seats {
		if err := <-errs; err != nil && first == nil {
			first = err
			stop() // (the other seat cannot finish its match alone)
		}
	}
	return first
}

// playSeat plays one seat's Play stream; nil when the match ended or sampling is done.
func playSeat(ctx context.Context, client pb.GameServiceClient, credential string, sent *int64, s *samples, think time.Duration, rng *lockedRand) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // (ends the stream when sampling is done: the server sees CANCELLED)
	stream, err := client.Play(ctx)
	if err != nil {
		return err
	}
	join := &pb.PlayRequest{Message: &pb.PlayRequest_Join{Join: &pb.Join{Credential: credential, BotName: "bench-go"}}}
	if err := stream.Send(join); err != nil {
		return err
	}
	for {
		response, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if s.done() || ctx.Err() != nil {
				return nil
			}
			return err
		}
		now := time.Now()
		if s.done() {
			return nil
		}
		switch m := response.Message.(type) {
		case *pb.PlayResponse_Turn:
			if t := atomic.SwapInt64(sent, 0); t != 0 {
				s.add(now.Sub(time.Unix(0, t)), now)
			}
			if think > 0 {
				time.Sleep(time.Duration(float64(think) * (0.5 + rng.float())))
			}
			legal := len(m.Turn.LegalActions)
			if legal == 0 {
				return fmt.Errorf("a Turn without legal actions")
			}
			move := &pb.PlayRequest{Message: &pb.PlayRequest_Move{Move: &pb.Move{
				Sequence: m.Turn.Sequence,
				Choice:   &pb.Move_Index{Index: uint32(rng.intn(legal))},
			}}}
			atomic.StoreInt64(sent, time.Now().UnixNano())
			if err := stream.Send(move); err != nil {
				return err
			}
		case *pb.PlayResponse_GameOver:
			return stream.CloseSend()
		}
	}
}

// -- probe: snapshots in the format of arena.server.probe.LoadProbe.snapshot -----------

// bucketsPerOctave and buckets: arena.server.probe.BUCKETS_PER_OCTAVE and BUCKETS (the
// histograms are read by its window()).
const (
	bucketsPerOctave = 4
	buckets          = 25 * bucketsPerOctave
)

// bucketOf is arena.server.probe.bucket_of.
func bucketOf(us float64) int {
	if us < 1 {
		return 0
	}
	b := int(math.Log2(us) * bucketsPerOctave)
	if b > buckets-1 {
		return buckets - 1
	}
	return b
}

type probe struct {
	mu        sync.Mutex
	delay     [buckets]int
	delaySum  float64
	gcPause   [buckets]int
	gcSum     float64
	gcCount   int
	lastNumGC uint32
	quit      chan struct{}
}

// newProbe starts the scheduling-delay sampler (every 5 ms, as LoadProbe's interval) and
// the collector watcher (every 100 ms: the runtime keeps the last 256 pauses).
func newProbe() *probe {
	p := &probe{quit: make(chan struct{})}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.lastNumGC = ms.NumGC
	handoff := make(chan time.Time, 1)
	go func() {
		for {
			select {
			case t := <-handoff:
				us := float64(time.Since(t).Nanoseconds()) / 1e3
				p.mu.Lock()
				p.delay[bucketOf(us)]++
				p.delaySum += us
				p.mu.Unlock()
			case <-p.quit:
				return
			}
		}
	}()
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		gcTick := time.NewTicker(100 * time.Millisecond)
		defer gcTick.Stop()
		for {
			select {
			case <-tick.C:
				select {
				case handoff <- time.Now():
				default:
				}
			case <-gcTick.C:
				p.readGC()
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

func (p *probe) stop() { close(p.quit) }

func (p *probe) readGC() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	p.mu.Lock()
	defer p.mu.Unlock()
	from := p.lastNumGC
	if ms.NumGC-from > 256 {
		from = ms.NumGC - 256
	}
	for n := from + 1; n <= ms.NumGC; n++ {
		us := float64(ms.PauseNs[(n+255)%256]) / 1e3
		p.gcPause[bucketOf(us)]++
		p.gcSum += us
	}
	p.gcCount += int(ms.NumGC - p.lastNumGC)
	p.lastNumGC = ms.NumGC
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}

// machineCPU is arena.server.probe.machine_cpu_s: (busy, total) CPU seconds since boot.
func machineCPU() (any, any) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil, nil
	}
	line := strings.SplitN(string(data), "\n", 2)[0]
	var f []float64
	for _, x := range strings.Fields(line)[1:] {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return nil, nil
		}
		f = append(f, v)
	}
	if len(f) < 8 {
		return nil, nil
	}
	const tick = 100.0 // SC_CLK_TCK on Linux
	idle := f[3] + f[4]
	total := 0.0
	for _, v := range f[:8] {
		total += v
	}
	return (total - idle) / tick, total / tick
}

var started = time.Now()

func (p *probe) snapshot() map[string]any {
	p.readGC()
	busy, total := machineCPU()
	cpu := cpuSeconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	return map[string]any{
		"time":             float64(now.UnixNano()) / 1e9,
		"wall_s":           now.Sub(started).Seconds(),
		"cpu_s":            cpu,
		"loop_cpu_s":       cpu, // (no loop thread: every goroutine's CPU)
		"loop_wait_s":      nil,
		"delay":            append([]int(nil), p.delay[:]...),
		"delay_sum_us":     p.delaySum,
		"gc_pause":         append([]int(nil), p.gcPause[:]...),
		"gc_sum_us":        p.gcSum,
		"gc_by_generation": []int{p.gcCount, 0, 0},
		"gc_cpu_us":        0.0,
		"gc_collected":     0,
		"machine_busy_s":   busy,
		"machine_total_s":  total,
	}
}
