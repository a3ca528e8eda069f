# frozen_string_literal: true
#
# A perfengine worker in Ruby (docs/workers.md, protocol version 1): register benchmarks, then
# serve. Nothing to install; require this file by its path.
#
#   require_relative "perfengine_worker"   # or require "/path/to/workers/ruby/perfengine_worker"
#
#   worker = PerfEngine::Worker.new         # counters: ruby_objects (GC.stat(:total_allocated_objects))
#   text = File.read("data.json")
#   worker.benchmark("parse") { JSON.parse(text) }           # the block is one iteration
#   worker.benchmark("generate", setup: -> { obj = JSON.parse(text); -> { JSON.generate(obj) } })
#   worker.serve                                              # the hello, the batches, exit 0 at quit
#
# A batch of `run NAME N`, in this order:
#   1. a collection (unless gc_before_batch: false), outside every measurement: a full GC.start
#      unless the batch before was of the same benchmark and size, then a minor one
#      (GC.start(full_mark: false)), which frees that batch's garbage (young objects) in a
#      fraction of a full mark's time. So a round's first batch of a benchmark (the one whose
#      counters perfengine reads) always follows a full collection, and its counts do not depend
#      on what a minor collection happened to keep (weakly held caches such as interned strings);
#   2. the counters' values before (GC.stat(:total_allocated_objects) allocates nothing);
#   3. the opening marker, Process.ppid (libc getppid), then the clocks: monotonic, process CPU,
#      thread CPU;
#   4. the body N times, in a plain while loop;
#   5. the clocks: thread CPU, process CPU, monotonic, then the closing marker, Process.ppid; a
#      body that raises still reads the clocks and calls the closing marker, so every request
#      makes exactly two getppid calls (callgrind's --dump-before=getppid then dumps twice per
#      batch, and an LD_PRELOAD allocation counter sees the same window);
#   6. the counters' values after, and the digest of the last iteration's result; as perfengine
#      allows (PERFENGINE_WORKER_DIGESTS): `-` after the process's first batch of the benchmark
#      with "first", `-` always with "none" (its counting workers), so a large result is not
#      serialised again for every batch;
#   7. the reply: `done ...`, or `failed name=NAME reason=Class: message` when the body or its
#      set-up raised (the worker stays up).
# Nothing else in this file, or in what it requires, calls getppid.
#
# With PERFENGINE_PROFILE set (perfengine sets it only in a worker it starts to profile a
# regression; docs/workers.md, "Profiles"), every Ruby and C method the loop of step 4 calls is
# counted with TracePoint and written to that file after the batch, a `Class#method calls` line
# each (singleton methods `Class.method`), replacing the batch before's: a Ruby-level change (an
# extra Hash#transform_keys) is then named by its method, where callgrind sees only the VM.
#
# A benchmark registered with gc: false runs its batch with GC disabled (from step 2 to step 6):
# for a count that a collection inside the loop would make vary (dynamic Symbols freed and made
# again). Its CPU time then leaves out GC work.

require "digest"
require "fcntl"

module PerfEngine
  class Worker
    PROTOCOL_VERSION = 1
    MAX_LINE = 65_536
    NAME = %r{\A[A-Za-z0-9_.:/+-]{1,128}\z}

    # The counter every Ruby worker offers: objects allocated over the batch.
    RUBY_OBJECTS = { "ruby_objects" => -> { GC.stat(:total_allocated_objects) } }.freeze

    Entry = Struct.new(:name, :setup, :body, :digest, :gc, :error)

    # counters: name => a callable returning an Integer that only grows; the reply carries its
    # growth over the batch. gc_before_batch: run GC.start before each batch (outside the clocks
    # and the counters), so a batch does not pay for the garbage of the one before it.
    def initialize(counters: RUBY_OBJECTS, gc_before_batch: true)
      counters.each_key { |n| raise ArgumentError, "invalid counter name #{n.inspect}" unless NAME.match?(n) }
      @counters = counters.to_a
      @gc_before_batch = gc_before_batch
      @entries = {}
      @digested = {}
      @collected = {}
    end

    # Registers a benchmark. Either a block (one iteration), or setup: a callable run once
    # before the hello that returns the body (a callable: one iteration). A set-up that raises
    # leaves the benchmark named in the hello and makes each of its batches a `failed` reply.
    # digest: a callable from one result to a String (1 to 128 printable bytes, no spaces), or
    # nil for "-"; by default the SHA-256 of the result if it is a String, else of
    # Marshal.dump(result).
    def benchmark(name, setup: nil, digest: :default, gc: true, &body)
      raise ArgumentError, "invalid benchmark name #{name.inspect}" unless NAME.match?(name)
      raise ArgumentError, "benchmark #{name} registered twice" if @entries.key?(name)
      raise ArgumentError, "benchmark #{name}: give a block or setup:, not both" if body && setup
      raise ArgumentError, "benchmark #{name}: give a block or setup:" unless body || setup

      @entries[name] = Entry.new(name, setup, body, digest, gc, nil)
      self
    end

    def names = @entries.keys

    # Sets every benchmark up, opens the channel (PERFENGINE_WORKER_FDS), greets, serves until
    # `quit` or end of file, and exits 0. A request that is not the protocol: a line on stderr
    # and exit 2.
    def serve
      raise ArgumentError, "no benchmark registered" if @entries.empty?

      shift_layout
      set_up
      @digests = ENV["PERFENGINE_WORKER_DIGESTS"] # "first", "none" (docs/workers.md, "Digests")
      @in, @out = open_channel
      reply("hello version=#{PROTOCOL_VERSION} benchmarks=#{@entries.keys.join(",")}" +
            (@counters.empty? ? "" : " counters=#{@counters.map(&:first).join(",")}"))
      while (line = @in.gets("\n", MAX_LINE + 1))
        line = line.chomp("\n")
        case line
        when "quit" then break
        when /\Arun ([^ ]+) ([0-9]+)\z/ then reply(run(Regexp.last_match(1), Integer(Regexp.last_match(2), 10)))
        else protocol_error("unknown request #{line[0, 80].inspect}")
        end
      end
      exit 0
    end

    # One batch; returns the reply line (without its newline).
    def run(name, iterations)
      entry = @entries[name]
      return failed(name, "the worker offers no such benchmark") unless entry
      set_up_one(entry) unless entry.body.respond_to?(:call) || entry.error
      return failed(name, entry.error) if entry.error
      return failed(name, "iterations must be at least 1") if iterations < 1

      collect_before(name, iterations) if @gc_before_batch
      body = entry.body
      result = nil
      error = nil
      calls = ENV["PERFENGINE_PROFILE"] && Hash.new { |h, k| h[k] = Hash.new(0) }
      tracer = calls && TracePoint.new(:call, :c_call) { |tp| calls[tp.defined_class][tp.method_id] += 1 }
      GC.disable unless entry.gc
      begin
        before = @counters.map { |_, counter| counter.call }
        i = 0
        Process.ppid # the opening marker (docs/workers.md)
        w0 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
        p0 = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
        t0 = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
        begin
          tracer&.enable
          while i < iterations
            result = body.call
            i += 1
          end
        rescue StandardError, ScriptError, SystemStackError, NoMemoryError => e
          error = e
        ensure
          tracer&.disable
        end
        t1 = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
        p1 = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)
        w1 = Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
        Process.ppid # the closing marker
        after = @counters.map { |_, counter| counter.call }
      ensure
        GC.enable unless entry.gc
      end
      return failed(name, describe(error)) if error

      write_profile(calls) if calls
      digest = begin
        omit = @digests == "none" || (@digests == "first" && @digested[name])
        @digested[name] = true
        omit ? "-" : digest_of(entry, result)
      rescue StandardError => e
        return failed(name, "digest: #{describe(e)}")
      end
      counters = @counters.each_with_index.map { |(counter, _), k| " counter.#{counter}=#{after[k] - before[k]}" }
      "done name=#{name} iterations=#{iterations} thread_cpu_ns=#{t1 - t0} process_cpu_ns=#{p1 - p0} " \
        "wall_ns=#{w1 - w0} digest=#{digest}#{counters.join}"
    end

    # The default digest: the first 32 hex digits of a SHA-256.
    def self.default_digest(result)
      bytes = result.is_a?(String) ? result : Marshal.dump(result)
      Digest::SHA256.hexdigest(bytes)[0, 32]
    end

    private

    # The methods the batch called, "Class#method calls" a line (docs/counters.md, "Profiles a
    # contender reports"); a singleton method as "Class.method".
    def write_profile(calls)
      by_label = Hash.new(0)
      calls.each do |klass, methods|
        owner = klass&.singleton_class? ? "#{klass.inspect[/\A#<Class:(.+)>\z/, 1] || klass.inspect}." : "#{klass}#"
        methods.each { |id, n| by_label[(owner + id.to_s).gsub(/\s/, "_")] += n }
      end
      File.write(ENV["PERFENGINE_PROFILE"], by_label.sort.map { |label, n| "#{label} #{n}\n" }.join)
    end

    def collect_before(name, iterations)
      GC.start(full_mark: !@collected[[name, iterations]])
      @collected[[name, iterations]] = true
    end

    # PERFENGINE_WORKER_SHIFT (docs/workers.md, "Layout"): a seed perfengine draws anew for each
    # round and contender. Kept alive for the process: a malloc'd string and a run of objects of
    # sizes drawn from it, so the benchmarks' data set up after them lies at other offsets in
    # every round, and what the other benchmarks leave in the heap cannot bias one benchmark the
    # same way in every round.
    def shift_layout
      seed = ENV["PERFENGINE_WORKER_SHIFT"]
      return unless seed&.match?(/\A[0-9]+\z/)

      random = Random.new(Integer(seed, 10))
      @shift = ["x" * random.rand(1..16_384), Array.new(random.rand(0..2_000)) { Object.new }]
    end

    # $PERFENGINE_WORKER_BENCHMARKS (docs/workers.md, "The benchmarks a worker will be asked
    # for"): when set, only those are set up before the hello, so a worker counted for one
    # benchmark holds nothing the others' set-ups would have left in its heap; any other is set
    # up when first asked, outside the clocks.
    def set_up
      hinted = ENV["PERFENGINE_WORKER_BENCHMARKS"]&.split(",")
      @entries.each_value { |entry| set_up_one(entry) if hinted.nil? || hinted.include?(entry.name) }
    end

    def set_up_one(entry)
      entry.body = entry.setup ? entry.setup.call : entry.body
      raise TypeError, "its set-up returned #{entry.body.class}, not a callable" unless entry.body.respond_to?(:call)
    rescue StandardError, ScriptError => e
      entry.error = "set-up: #{describe(e)}"
    end

    def digest_of(entry, result)
      case entry.digest
      when nil then "-"
      when :default then Worker.default_digest(result)
      else
        d = entry.digest.call(result).to_s
        raise ArgumentError, "not 1 to 128 printable bytes without spaces: #{d[0, 40].inspect}" unless d.match?(/\A[!-~]{1,128}\z/)

        d
      end
    end

    # PERFENGINE_WORKER_FDS=IN,OUT. A channel on descriptor 0 moves to a descriptor of its own
    # (made close-on-exec) and stdin becomes /dev/null, so a
    # benchmark that reads stdin reads nothing rather than the protocol.
    def open_channel
      spec = ENV["PERFENGINE_WORKER_FDS"]
      abort "perfengine_worker: PERFENGINE_WORKER_FDS is not set: run me from perfengine (docs/workers.md)" unless spec
      m = /\A([0-9]+),([0-9]+)\z/.match(spec)
      abort "perfengine_worker: PERFENGINE_WORKER_FDS=#{spec} is not IN,OUT" unless m
      fd_in = Integer(m[1], 10)
      fd_out = Integer(m[2], 10)
      if fd_in.zero? || fd_out.zero?
        moved = IO.for_fd(0, autoclose: false).fcntl(Fcntl::F_DUPFD, 3)
        $stdin.reopen(File::NULL)
        fd_in = moved if fd_in.zero?
        fd_out = moved if fd_out.zero?
      end
      input = IO.for_fd(fd_in, fd_out == fd_in ? "r+b" : "rb", autoclose: false)
      output = fd_out == fd_in ? input : IO.for_fd(fd_out, "wb", autoclose: false)
      [input, output].each { |io| io.close_on_exec = true }
      output.sync = true
      [input, output]
    end

    def reply(line)
      @out.write(line, "\n")
      @out.flush
    end

    def failed(name, reason) = "failed name=#{name} reason=#{reason}"

    # One line of printable text: control bytes become spaces, at most 1,000 bytes.
    def describe(error)
      text = "#{error.class}: #{error.message}".scrub("?").gsub(/[\x00-\x1f\x7f]/, " ").strip
      text = text.byteslice(0, 1000).scrub("") if text.bytesize > 1000
      text.empty? ? error.class.name : text
    end

    def protocol_error(what)
      warn "perfengine_worker: not the protocol: #{what}"
      exit 2
    end
  end
end

