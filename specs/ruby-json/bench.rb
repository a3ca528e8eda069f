# frozen_string_literal: true
#
# One benchmark of specs/ruby-json.toml: ruby bench.rb NAME OUT [FIXTURE]
#
# Run by perfengine in a worktree of a ruby/json checkout, as
#   ruby --disable-gems -Ipe-lib -Ilib bench.rb NAME OUT [FIXTURE]
# where pe-lib/json/ext/{parser,generator}.so are that worktree's own build (the spec's `build`).
# It refuses to run (exit 3) unless exactly that build and that lib/ are what `require "json"`
# loaded, so Ruby's bundled json can never be measured by mistake.
#
# What it does: builds the payload (outside the counted part), runs the benchmark's body
# ITERATIONS times, then
#   * writes `ruby_objects N objects` to $PERFENGINE_COUNTERS, where N is the growth of
#     GC.stat(:total_allocated_objects) over the loop only (an exact count: the same every run);
#   * writes OUT: the benchmark's name, the SHA-256 of its last result (the generated string, or
#     Marshal.dump of the parsed value, which does not depend on json's own generator) and its
#     size, so parity compares what both versions computed.
#
# The benchmarks themselves (inputs, operations) are in benchmarks.rb, shared with worker.rb.

require "json"
require "digest"
require_relative "benchmarks"

name, out, fixture = ARGV
abort "usage: bench.rb NAME OUT [FIXTURE]" unless name && out

# --- the build under test, and nothing else ------------------------------------------------
here = Dir.pwd
RubyJsonBenchmarks.check_build!(here, "bench.rb")

benchmark = RubyJsonBenchmarks::BY_NAME.fetch(name) do
  abort "bench.rb: unknown benchmark '#{name}' (known: #{RubyJsonBenchmarks::BY_NAME.keys.join(", ")})"
end
abort "bench.rb: this benchmark needs its fixture directory" if benchmark.fixture && !fixture
iterations = benchmark.iterations
body = benchmark.body(File.join(here, "benchmark", "data"), benchmark.fixture ? { benchmark.fixture => fixture } : {})
result = nil

GC.start
GC.disable unless benchmark.gc # the two _symbolize benchmarks (benchmarks.rb says why)
# PERFENGINE_PROFILE (docs/counters.md, "Profiles a contender reports"): set only when perfengine
# profiles a regression. Every Ruby and C method the loop calls is counted with TracePoint (exact:
# the same every run) and written as `Class#method calls` lines, so a Ruby-level change (an extra
# Hash#transform_keys in JSON.parse) is named by its method, where callgrind sees only the VM.
profile_path = ENV["PERFENGINE_PROFILE"]
method_calls = Hash.new { |h, k| h[k] = Hash.new(0) }
tracer = profile_path && TracePoint.new(:call, :c_call) { |tp| method_calls[tp.defined_class][tp.method_id] += 1 }
cpu_before = Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
before = GC.stat(:total_allocated_objects)
tracer&.enable
i = 0
while i < iterations
  result = body.call
  i += 1
end
tracer&.disable
allocated = GC.stat(:total_allocated_objects) - before
if profile_path # "JSON.parse 4", "Hash#transform_keys 4": singleton methods with a dot
  by_label = Hash.new(0)
  method_calls.each do |klass, methods|
    owner = klass&.singleton_class? ? "#{klass.inspect[/\A#<Class:(.+)>\z/, 1] || klass.inspect}." : "#{klass}#"
    methods.each { |id, n| by_label[(owner + id.to_s).gsub(/\s/, "_")] += n }
  end
  File.write(profile_path, by_label.sort.map { |label, n| "#{label} #{n}\n" }.join)
end
if ENV["RUBY_JSON_BENCH_TIME"] # for tuning ITERATIONS: the loop's own CPU time
  warn format("%s: %d iterations, %.1f ms CPU", name, iterations, (Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID) - cpu_before) * 1000)
end

if (counters = ENV["PERFENGINE_COUNTERS"])
  File.write(counters, "ruby_objects #{allocated} objects\n")
end
sha, size = RubyJsonBenchmarks.digest(result)
File.write(out, "#{name} #{sha} #{size}\n")
