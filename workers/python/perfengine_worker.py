"""A perfengine worker in Python (docs/workers.md, protocol version 1): register benchmarks, then serve.

Nothing to install: put this directory on sys.path (or copy the file) and

    import perfengine_worker

    worker = perfengine_worker.Worker()              # counters: python_gc_collections
    text = open("data.json").read()
    worker.benchmark("parse", lambda: json.loads(text))   # a callable: one iteration
    @worker.setup("dump")                              # or a set-up run once before the hello
    def dump():                                        # that returns the body
        obj = json.loads(text)
        return lambda: json.dumps(obj)
    worker.serve()                                     # the hello, the batches, exit 0 at quit

A batch of `run NAME N`, in this order:
  1. gc.collect() (unless gc_before_batch=False), outside every measurement;
  2. the counters' values before;
  3. the opening marker, os.getppid() (libc getppid), then the clocks: time.monotonic_ns(),
     time.process_time_ns(), time.thread_time_ns();
  4. the body N times, in a plain for loop;
  5. the clocks: thread, process, monotonic, then the closing marker, os.getppid(); a body that
     raises still reads the clocks and calls the closing marker, so every request makes exactly
     two getppid calls (callgrind's --dump-before=getppid dumps twice per batch);
  6. the counters' values after, and the digest of the last iteration's result; as perfengine
     allows (PERFENGINE_WORKER_DIGESTS): `-` after the process's first batch of the benchmark
     with "first", `-` always with "none" (its counting workers);
  7. the reply: `done ...`, or `failed name=NAME reason=Type: message` when the body or its set-up
     raised (the worker stays up).
Nothing else in this module calls getppid.

A benchmark registered with gc=False runs its batch with the cyclic collector disabled (steps 2
to 6).

With PERFENGINE_PROFILE set (perfengine sets it only in a worker it starts to profile a
regression; docs/workers.md, "Profiles"), every Python and C function the loop of step 4 calls is
counted with sys.setprofile and written to that file after the batch, a `module.qualname calls`
line each, replacing the batch before's.
"""

import gc
import hashlib
import os
import random
import re
import sys
import time

PROTOCOL_VERSION = 1
MAX_LINE = 65536
_NAME = re.compile(r"[A-Za-z0-9_.:/+-]{1,128}\Z")
_DIGEST = re.compile(r"[!-~]{1,128}\Z")
_REQUEST = re.compile(rb"run ([^ ]+) ([0-9]+)\Z")


def _gc_collections():
    return sum(generation["collections"] for generation in gc.get_stats())


# The counter every Python worker offers by default: how many times the cyclic garbage collector
# ran during the batch (all generations). It is not an allocation count: CPython keeps none.
PYTHON_GC_COLLECTIONS = {"python_gc_collections": _gc_collections}


def default_digest(result):
    """The first 32 hex digits of a SHA-256: of the bytes, of a str's UTF-8, else of repr(result)."""
    if isinstance(result, (bytes, bytearray, memoryview)):
        data = bytes(result)
    elif isinstance(result, str):
        data = result.encode("utf-8", "surrogatepass")
    else:
        data = repr(result).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:32]


class _Entry:
    __slots__ = ("name", "setup", "body", "digest", "gc", "error")

    def __init__(self, name, setup, body, digest, gc_on):
        self.name, self.setup, self.body, self.digest, self.gc, self.error = name, setup, body, digest, gc_on, None


def _describe(error):
    """One line of printable text, at most 1,000 characters."""
    text = f"{type(error).__name__}: {error}"
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text).strip()[:1000]
    return text or type(error).__name__


class Worker:
    def __init__(self, counters=None, gc_before_batch=True):
        """counters: name -> a callable returning an int that only grows (default
        PYTHON_GC_COLLECTIONS; {} for none). gc_before_batch: gc.collect() before each batch,
        outside the clocks and the counters."""
        counters = PYTHON_GC_COLLECTIONS if counters is None else counters
        for name in counters:
            if not _NAME.match(name):
                raise ValueError(f"invalid counter name {name!r}")
        self._counters = list(counters.items())
        self._gc_before_batch = gc_before_batch
        self._entries = {}
        self._digested = set()
        self._digests = None

    def benchmark(self, name, body=None, *, setup=None, digest=default_digest, gc=True):
        """Registers a benchmark: body (a callable, one iteration) or setup (a callable run once
        before the hello that returns the body). A set-up that raises leaves the benchmark in the
        hello and makes each of its batches a `failed` reply. digest: a callable from one result
        to a str of 1 to 128 printable characters without spaces, or None for "-"."""
        if not _NAME.match(name):
            raise ValueError(f"invalid benchmark name {name!r}")
        if name in self._entries:
            raise ValueError(f"benchmark {name} registered twice")
        if (body is None) == (setup is None):
            raise ValueError(f"benchmark {name}: give a body or a setup, not both or neither")
        self._entries[name] = _Entry(name, setup, body, digest, gc)
        return self

    def setup(self, name, **options):
        """Decorator form of benchmark(name, setup=FUNCTION)."""
        def register(function):
            self.benchmark(name, setup=function, **options)
            return function
        return register

    @property
    def names(self):
        return list(self._entries)

    def serve(self):
        """Sets every benchmark up, opens the channel (PERFENGINE_WORKER_FDS), greets, serves until
        `quit` or end of file, and exits 0. A request that is not the protocol: a line on stderr
        and exit 2."""
        if not self._entries:
            raise ValueError("no benchmark registered")
        self._shift_layout()
        self._set_up()
        self._digests = os.environ.get("PERFENGINE_WORKER_DIGESTS")  # "first", "none" (docs/workers.md)
        self._in, self._out = _open_channel()
        hello = f"hello version={PROTOCOL_VERSION} benchmarks={','.join(self._entries)}"
        if self._counters:
            hello += " counters=" + ",".join(name for name, _ in self._counters)
        self._reply(hello)
        while True:
            line = self._in.readline(MAX_LINE + 1)
            if not line:
                break
            line = line[:-1] if line.endswith(b"\n") else line
            if line == b"quit":
                break
            match = _REQUEST.match(line)
            if not match:
                sys.stderr.write(f"perfengine_worker: not the protocol: unknown request {line[:80]!r}\n")
                sys.exit(2)
            self._reply(self.run(match.group(1).decode("ascii", "replace"), int(match.group(2))))
        sys.exit(0)

    def run(self, name, iterations):
        """One batch; returns the reply line (without its newline)."""
        entry = self._entries.get(name)
        if entry is None:
            return f"failed name={name} reason=the worker offers no such benchmark"
        if not callable(entry.body) and not entry.error:
            self._set_up_one(entry)
        if entry.error:
            return f"failed name={name} reason={entry.error}"
        if iterations < 1:
            return f"failed name={name} reason=iterations must be at least 1"
        if self._gc_before_batch:
            gc.collect()
        body = entry.body
        result = None
        error = None
        counters = self._counters
        was_enabled = gc.isenabled()
        if not entry.gc:
            gc.disable()
        calls = {} if os.environ.get("PERFENGINE_PROFILE") else None
        try:
            before = [counter() for _, counter in counters]
            loop = range(iterations)
            os.getppid()  # the opening marker (docs/workers.md)
            w0 = time.monotonic_ns()
            p0 = time.process_time_ns()
            t0 = time.thread_time_ns()
            try:
                if calls is not None:
                    sys.setprofile(_counting(calls))
                for _ in loop:
                    result = body()
            except Exception as e:  # noqa: BLE001 - any error of the benchmark is its `failed` reply
                error = e
            finally:
                if calls is not None:
                    sys.setprofile(None)
            t1 = time.thread_time_ns()
            p1 = time.process_time_ns()
            w1 = time.monotonic_ns()
            os.getppid()  # the closing marker
            after = [counter() for _, counter in counters]
        finally:
            if not entry.gc and was_enabled:
                gc.enable()
        if error is not None:
            return f"failed name={name} reason={_describe(error)}"
        if calls is not None:
            _write_profile(os.environ["PERFENGINE_PROFILE"], calls)
        try:
            omit = self._digests == "none" or (self._digests == "first" and name in self._digested)
            self._digested.add(name)
            digest = "-" if entry.digest is None or omit else str(entry.digest(result))
            if not _DIGEST.match(digest):
                raise ValueError(f"not 1 to 128 printable characters without spaces: {digest[:40]!r}")
        except Exception as e:  # noqa: BLE001
            return f"failed name={name} reason=digest: {_describe(e)}"
        grown = "".join(f" counter.{n}={a - b}" for (n, _), b, a in zip(counters, before, after))
        return (f"done name={name} iterations={iterations} thread_cpu_ns={t1 - t0} process_cpu_ns={p1 - p0} "
                f"wall_ns={w1 - w0} digest={digest}{grown}")

    def _shift_layout(self):
        # PERFENGINE_WORKER_SHIFT (docs/workers.md, "Layout"): a seed perfengine draws anew for each
        # round and contender. Kept alive for the process: a buffer and a run of objects of sizes
        # drawn from it, so the benchmarks' data set up after them lies at other offsets in every
        # round, and what the other benchmarks leave in the heap cannot bias one benchmark the
        # same way in every round.
        seed = os.environ.get("PERFENGINE_WORKER_SHIFT", "")
        if not seed.isdigit():
            return
        rng = random.Random(int(seed))
        self._shift = (bytearray(rng.randint(1, 16384)), [object() for _ in range(rng.randint(0, 2000))])

    def _set_up(self):
        # $PERFENGINE_WORKER_BENCHMARKS (docs/workers.md): when set, only those are set up before
        # the hello; any other is set up when first asked, outside the clocks.
        hinted = os.environ.get("PERFENGINE_WORKER_BENCHMARKS")
        names = None if hinted is None else hinted.split(",")
        for entry in self._entries.values():
            if names is None or entry.name in names:
                self._set_up_one(entry)

    def _set_up_one(self, entry):
        if entry.setup is None:
            return
        try:
            entry.body = entry.setup()
            if not callable(entry.body):
                raise TypeError(f"its set-up returned {type(entry.body).__name__}, not a callable")
        except Exception as e:  # noqa: BLE001
            entry.error = f"set-up: {_describe(e)}"

    def _reply(self, line):
        data = (line + "\n").encode("utf-8", "replace")
        while data:
            data = data[os.write(self._out, data):]


def _open_channel():
    """PERFENGINE_WORKER_FDS=IN,OUT: a reader for IN and the descriptor OUT. A channel on
    descriptor 0 moves to a descriptor of its own (not inheritable, as Python makes every
    descriptor) and stdin becomes /dev/null, so a benchmark that reads stdin reads nothing rather
    than the protocol."""
    spec = os.environ.get("PERFENGINE_WORKER_FDS")
    if spec is None:
        sys.exit("perfengine_worker: PERFENGINE_WORKER_FDS is not set: run me from perfengine (docs/workers.md)")
    match = re.fullmatch(r"([0-9]+),([0-9]+)", spec)
    if not match:
        sys.exit(f"perfengine_worker: PERFENGINE_WORKER_FDS={spec} is not IN,OUT")
    fd_in, fd_out = int(match.group(1)), int(match.group(2))
    if fd_in == 0 or fd_out == 0:
        moved = os.dup(0)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        fd_in = moved if fd_in == 0 else fd_in
        fd_out = moved if fd_out == 0 else fd_out
    os.set_inheritable(fd_in, False)
    os.set_inheritable(fd_out, False)
    return os.fdopen(fd_in, "rb", buffering=MAX_LINE + 2, closefd=False), fd_out


def _counting(calls):
    """A sys.setprofile function that counts each Python and C function called, by label."""
    def count(frame, event, arg):
        if event == "call":
            code = frame.f_code
            label = f"{frame.f_globals.get('__name__', '?')}.{getattr(code, 'co_qualname', code.co_name)}"
        elif event == "c_call":
            module = getattr(arg, "__module__", None)
            label = f"{module}.{arg.__qualname__}" if module else arg.__qualname__
        else:
            return
        calls[label] = calls.get(label, 0) + 1
    return count


def _write_profile(path, calls):
    """The batch's calls, `label calls` a line (docs/counters.md, "Profiles a contender reports")."""
    calls.pop("setprofile", None)  # the call that stopped the counting
    calls.pop("sys.setprofile", None)
    with open(path, "w", encoding="utf-8") as out:
        for label in sorted(calls):
            name = re.sub(r"\s", "_", label)
            out.write(f"{name} {calls[label]}\n")
