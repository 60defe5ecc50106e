"""Runs the hostile-input fuzzer's cases (fuzz_cases.py) in worker processes.

Each worker runs a batch of seeds under a memory limit and tells the harness,
through a pipe, which case it starts, what the case is doing (its notes) and
how the case ended. A worker that dies (a signal, an abort) or stops
reporting for longer than the case timeout (a hang) is blamed on the case it
was running; that case is then replayed alone in a fresh worker, to tell a
case that fails by itself from one that needs the cases before it.

    python python/tests/fuzz/fuzz_harness.py --seconds 600       # fuzz longer
    python python/tests/fuzz/fuzz_harness.py --seed random       # new seeds
    python python/tests/fuzz/fuzz_harness.py --replay 1234       # one case

`make test` runs it for PLAIT_FUZZ_SECONDS (20 by default) through
test_fuzz.py. See docs/limits.md.
"""

import argparse
import collections
import dataclasses
import faulthandler
import json
import os
import random
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# Address space of a worker: a result that could not fit must be refused
# before it is allocated, and a Rust allocation failure aborts the worker.
MEMORY_LIMIT = int(float(os.environ.get("PLAIT_FUZZ_MEMORY_GB", "4")) * 2**30)
CASE_TIMEOUT = float(os.environ.get("PLAIT_FUZZ_CASE_TIMEOUT", "120"))
BATCH = 40


# ------------------------------------------------------------------ worker


def worker(seeds, deadline, fd, families):
    """Runs the cases of `seeds` until `deadline` (time.time()), reporting on fd."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    faulthandler.enable()
    sys.path.insert(0, HERE)
    out = os.fdopen(fd, "w", buffering=1)
    pid = os.getpid()

    def send(*fields):
        if os.getpid() == pid:  # not from a forked child
            out.write(" ".join(fields) + "\n")
            out.flush()

    import fuzz_cases

    fuzz_cases.set_note(lambda text: send("N", json.dumps(text)))
    for seed in seeds:
        if deadline and time.time() > deadline:
            break
        send("S", str(seed))
        family = fuzz_cases.family_of(seed, families)
        try:
            fuzz_cases.run_case(seed, families)
            status, detail = "ok", ""
        except fuzz_cases.Bug as e:
            status, detail = "bug", str(e)
        except BaseException as e:  # noqa: BLE001 - every way out is reported
            if isinstance(e, KeyboardInterrupt):
                raise
            why = fuzz_cases.bug_in(e)
            status, detail = "bug", why or f"the case raised {type(e).__name__} outside of a checked call: {str(e)[:500]}"
        send("D", str(seed), family, status, json.dumps(detail))
    out.close()


# ------------------------------------------------------------------ harness


@dataclasses.dataclass
class Failure:
    seed: int
    family: str
    kind: str  # "bug", "crash" or "hang"
    detail: str
    notes: list
    stderr: str = ""
    alone: str = ""  # how the replay alone went

    def describe(self, families):
        replay = f"python python/tests/fuzz/fuzz_harness.py --replay {self.seed}"
        if families:
            replay += f" --family {','.join(families)}"
        lines = [f"seed {self.seed} ({self.family}): {self.kind}: {self.detail}", f"  replay: {replay}"]
        if self.alone:
            lines.append(f"  alone: {self.alone}")
        lines += [f"  note: {n[:300]}" for n in self.notes[-5:]]
        if self.stderr.strip():
            lines.append("  stderr:\n" + "\n".join("    " + line for line in self.stderr.strip().splitlines()[-25:]))
        return "\n".join(lines)


@dataclasses.dataclass
class Report:
    first_seed: int
    seconds: float = 0.0
    cases: int = 0
    per_family: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    failures: list = dataclasses.field(default_factory=list)
    families: list = None

    def summary(self):
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.per_family.items()))
        return f"fuzz: {self.cases} cases from seed {self.first_seed} in {self.seconds:.1f} s ({counts}); {len(self.failures)} failures"

    def describe(self):
        return "\n\n".join([self.summary()] + [f.describe(self.families) for f in self.failures])


class Worker:
    def __init__(self, seeds, deadline, families, workdir):
        self.seeds = list(seeds)
        read, write = os.pipe()
        os.set_blocking(read, False)
        self.stderr = tempfile.TemporaryFile(mode="w+b")
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "--fd", str(write), "--deadline", str(deadline or 0),
               "--seeds", ",".join(map(str, self.seeds))]
        if families:
            cmd += ["--family", ",".join(families)]
        env = dict(os.environ, PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.stderr, stderr=self.stderr, pass_fds=(write,), cwd=workdir,
                                     env=env, start_new_session=True)
        os.close(write)
        self.fd = read
        self.buffer = b""
        self.current = None  # the seed started and not done
        self.notes = []
        self.since = time.monotonic()
        self.done = set()
        self.closed = False

    def lines(self):
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return []
        if not chunk:
            self.closed = True
            return []
        self.buffer += chunk
        *whole, self.buffer = self.buffer.split(b"\n")
        return [line.decode() for line in whole]

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")[-6000:]

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()

    def close(self):
        os.close(self.fd)
        self.stderr.close()


def run(seconds, first_seed=0, workers=2, families=None, case_timeout=CASE_TIMEOUT, replay_failures=True, batch=BATCH, count=None, log=None):
    """Runs cases from `first_seed` on for about `seconds` (or `count` cases);
    returns a Report."""
    import fuzz_cases

    report = Report(first_seed=first_seed, families=families)
    start = time.monotonic()
    deadline = time.time() + seconds
    workdir = tempfile.mkdtemp(prefix="plait-fuzz-")
    pending = collections.deque()  # seeds of batches cut short by a failure
    next_seed = first_seed
    end_seed = first_seed + count if count is not None else None
    running = []
    try:
        while True:
            while len(running) < workers and time.time() < deadline:
                if pending:
                    seeds = [pending.popleft() for _ in range(min(batch, len(pending)))]
                else:
                    stop = next_seed + batch if end_seed is None else min(next_seed + batch, end_seed)
                    if stop <= next_seed:
                        break
                    seeds = range(next_seed, stop)
                    next_seed = stop
                running.append(Worker(seeds, deadline, families, workdir))
            if not running:
                break
            select.select([w.fd for w in running if not w.closed], [], [], 0.2)
            for w in list(running):
                for line in w.lines():
                    tag, _, rest = line.partition(" ")
                    if tag == "S":
                        w.current, w.notes, w.since = int(rest), [], time.monotonic()
                    elif tag == "N":
                        w.notes.append(json.loads(rest))
                        w.since = time.monotonic()
                    elif tag == "D":
                        seed, family, status, detail = rest.split(" ", 3)
                        w.done.add(int(seed))
                        report.cases += 1
                        report.per_family[family] += 1
                        if status != "ok":
                            report.failures.append(Failure(int(seed), family, status, json.loads(detail), w.notes))
                            if log:
                                log(report.failures[-1].describe(families))
                        w.current = None
                hung = w.current is not None and time.monotonic() - w.since > case_timeout
                if hung:
                    w.kill()
                if w.closed or hung or w.proc.poll() is not None:
                    if not hung:
                        w.lines()
                        w.proc.wait()
                    code = w.proc.returncode
                    if w.current is not None:
                        kind = "hang" if hung else "crash"
                        detail = f"no progress for {case_timeout:.0f} s" if hung else f"the worker died with {describe_exit(code)}"
                        failure = Failure(w.current, fuzz_cases.family_of(w.current, families), kind, detail, w.notes, w.stderr_text())
                        report.cases += 1
                        report.per_family[failure.family] += 1
                        report.failures.append(failure)
                        if log:
                            log(failure.describe(families))
                        rest = [s for s in w.seeds if s not in w.done and s != w.current]
                        if time.time() < deadline:
                            pending.extend(rest)
                    elif code != 0:
                        report.failures.append(Failure(-1, "-", "crash", f"a worker exited with {describe_exit(code)} between cases", [], w.stderr_text()))
                    w.close()
                    running.remove(w)
        if replay_failures:
            for failure in report.failures:
                if failure.kind in ("crash", "hang"):
                    failure.alone = replay_alone(failure.seed, families, case_timeout, workdir)
    finally:
        for w in running:
            w.kill()
            w.close()
        shutil.rmtree(workdir, ignore_errors=True)
    report.seconds = time.monotonic() - start
    return report


def describe_exit(code):
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def replay_alone(seed, families, case_timeout, workdir):
    """Runs one case in a fresh worker: how it ended."""
    w = Worker([seed], 0, families, workdir)
    end = time.monotonic() + case_timeout
    status = None
    while time.monotonic() < end and not w.closed:
        select.select([w.fd], [], [], 0.2)
        for line in w.lines():
            if line.startswith("D "):
                status = line.split(" ", 4)[3:]
    if not w.closed:
        w.kill()
        w.close()
        return f"hangs alone too (no end within {case_timeout:.0f} s)"
    w.proc.wait()
    code = w.proc.returncode
    w.close()
    if status is None:
        return f"fails alone too: the worker died with {describe_exit(code)}"
    if status[0] != "ok":
        return f"fails alone too: {json.loads(status[1])}"
    return "passes alone: it needs the cases the worker ran before it"


# ------------------------------------------------------------------ command line


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("PLAIT_FUZZ_SECONDS", "60")))
    parser.add_argument("--seed", default=os.environ.get("PLAIT_FUZZ_SEED", "0"), help="the first seed, or 'random'")
    parser.add_argument("--workers", type=int, default=int(os.environ.get("PLAIT_FUZZ_WORKERS", "2")))
    parser.add_argument("--family", help="only these families (comma-separated)")
    parser.add_argument("--replay", type=int, help="run this one seed alone and print its notes")
    parser.add_argument("--case-timeout", type=float, default=CASE_TIMEOUT)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--seeds", help=argparse.SUPPRESS)
    args = parser.parse_args()
    families = args.family.split(",") if args.family else None
    if args.worker:
        worker([int(s) for s in args.seeds.split(",")], args.deadline, args.fd, families)
        return 0
    sys.path.insert(0, HERE)
    if args.replay is not None:
        return replay(args.replay, families, args.case_timeout)
    first = random.randrange(2**40) if args.seed == "random" else int(args.seed)
    report = run(args.seconds, first, args.workers, families, args.case_timeout, log=lambda text: print(text + "\n", flush=True))
    print(report.describe() if report.failures else report.summary())
    return 1 if report.failures else 0


def replay(seed, families, case_timeout):
    """Runs one case in a worker, printing its notes as they come."""
    workdir = tempfile.mkdtemp(prefix="plait-fuzz-")
    w = Worker([seed], 0, families, workdir)
    end = time.monotonic() + case_timeout
    code = 1
    try:
        while time.monotonic() < end and not w.closed:
            select.select([w.fd], [], [], 0.2)
            for line in w.lines():
                tag, _, rest = line.partition(" ")
                if tag == "N":
                    print("  " + json.loads(rest)[:2000], flush=True)
                elif tag == "D":
                    _, family, status, detail = rest.split(" ", 3)
                    print(f"seed {seed} ({family}): {status} {json.loads(detail)}")
                    code = 0 if status == "ok" else 1
        if not w.closed:
            print(f"seed {seed}: hangs (no end within {case_timeout:.0f} s)")
            w.kill()
            code = 1
        else:
            w.proc.wait()
            if w.proc.returncode:
                print(f"seed {seed}: the worker died with {describe_exit(w.proc.returncode)}")
                code = 1
        print(w.stderr_text()[-3000:], file=sys.stderr)
    finally:
        w.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
