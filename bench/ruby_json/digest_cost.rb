# frozen_string_literal: true
#
# What a worker batch costs around its loop, per ruby/json benchmark (docs/workers.md,
# "Digests"; issue 41): the digest of the last result (specs/ruby-json/benchmarks.rb's, as
# worker.rb sends it), a full collection and a minor one after one iteration. Run it in a
# ruby/json worktree built as specs/ruby-json-worker.toml builds it:
#
#   cd WORKTREE && ruby --disable-gems -Ipe-lib -Ilib /path/to/bench/ruby_json/digest_cost.rb FIXTURES [NAME ...]
#
# FIXTURES is `perfengine generate specs/ruby-json/fixtures.toml --out DIR`'s DIR. With NAMEs,
# only those benchmarks. Under `valgrind --tool=callgrind` it shows what the same steps cost
# in a counting worker. Every benchmark is set up first, as in a worker, so a full collection
# marks the whole suite's heap. Milliseconds of wall time, one measurement each.

require "json"
require_relative "../../specs/ruby-json/benchmarks"

def ms
  t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t) * 1000
end

fixtures_dir = ARGV.shift or abort "usage: digest_cost.rb FIXTURES [NAME ...]"
fixtures = RubyJsonBenchmarks::FIXTURES.keys.to_h { |kind| [kind, File.join(fixtures_dir, kind)] }
wanted = ARGV
data = File.join(Dir.pwd, "benchmark", "data")
bodies = RubyJsonBenchmarks::LIST.to_h { |b| [b.name, b.body(data, fixtures)] }
totals = Hash.new(0.0)
printf("%-28s %10s %10s %10s\n", "benchmark", "digest ms", "full GC ms", "minor GC ms")
bodies.each do |name, body|
  next unless wanted.empty? || wanted.include?(name)
  result = body.call
  row = { digest: ms { RubyJsonBenchmarks.digest(result) }, full: ms { GC.start } }
  body.call
  row[:minor] = ms { GC.start(full_mark: false) }
  row.each { |k, v| totals[k] += v }
  printf("%-28s %10.2f %10.2f %10.2f\n", name, row[:digest], row[:full], row[:minor])
end
printf("%-28s %10.2f %10.2f %10.2f\n", "total", totals[:digest], totals[:full], totals[:minor])
